/**
 * The settings a report is built with (METRICS.md, Settings that enter the computation): the tax
 * profile of the report's seller, else the user's default; the catalog's cost prices. Both are
 * snapshot into the report; `isStale` tells whether a rebuild would take different ones now.
 */
import { DEFAULT_TAX_PROFILE, type TaxProfile, type VatRate } from '../report/types';
import { getCostPrices } from '../store/products.repo';
import type { ReportRecord } from '../store/reports.repo';
import type { StoredItem } from '../store/items.repo';
import type { SellerRecord } from '../store/sellers.repo';
import type { UserRecord } from '../store/users.repo';

export function effectiveTaxProfile(
  user: Pick<UserRecord, 'tax'> | null,
  seller: Pick<SellerRecord, 'tax'> | null,
): TaxProfile {
  const tax = seller?.tax ?? user?.tax ?? DEFAULT_TAX_PROFILE;
  return { tax_system: tax.tax_system, usn_rate: Number(tax.usn_rate), vat_rate: Number(tax.vat_rate) as VatRate };
}

export function sameTaxProfile(a: TaxProfile, b: TaxProfile): boolean {
  return (
    a.tax_system === b.tax_system &&
    Number(a.usn_rate) === Number(b.usn_rate) &&
    Number(a.vat_rate) === Number(b.vat_rate)
  );
}

/**
 * True when the catalog's current cost prices or the current effective tax profile differ from the
 * report's snapshot. A combined report is never stale: it has no source to rebuild from.
 */
export async function isStale(
  record: ReportRecord,
  items: ReadonlyArray<StoredItem>,
  user: Pick<UserRecord, 'id' | 'tax'>,
  seller: SellerRecord | null,
): Promise<boolean> {
  if (record.is_combined) return false;
  if (!sameTaxProfile(record.tax_profile, effectiveTaxProfile(user, seller))) return true;
  const prices = await getCostPrices(
    user.id,
    items.map((i) => i.article),
  );
  return items.some((i) => (i.computed.cost_price ?? 0) !== (prices[i.article] ?? 0));
}
