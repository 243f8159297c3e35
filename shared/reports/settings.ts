/**
 * The settings a report is built with (METRICS.md, Settings that enter the computation): the tax
 * profile of the report's seller, else the user's default; the catalog's cost prices. Both are
 * snapshot into the report; `isStale` tells whether a rebuild would take different ones now.
 */
import { DEFAULT_TAX_PROFILE, type TaxProfile } from '../report/types';
import { allCostPrices } from '../store/catalog-prices';
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
  return { tax_system: tax.tax_system, usn_rate: Number(tax.usn_rate), vat_rate: Number(tax.vat_rate) };
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
 * report's snapshot. A combined report is never stale: it has no source to rebuild from. `catalog`:
 * the catalog's prices when already being read (catalogForStaleCheck), else they are read by article.
 */
export async function isStale(
  record: ReportRecord,
  items: ReadonlyArray<StoredItem>,
  user: Pick<UserRecord, 'id' | 'tax'>,
  seller: SellerRecord | null,
  catalog?: Promise<ReadonlyMap<string, number>>,
): Promise<boolean> {
  if (record.is_combined) return false;
  if (!sameTaxProfile(record.tax_profile, effectiveTaxProfile(user, seller))) return true;
  const prices: ReadonlyMap<string, number> = catalog
    ? await catalog
    : new Map(
        Object.entries(
          await getCostPrices(
            user.id,
            items.map((i) => i.article),
          ),
        ),
      );
  return items.some((i) => (i.computed.cost_price ?? 0) !== (prices.get(i.article) ?? 0));
}

/** Reports with at least this many items are checked against the whole catalog, read beside their items. */
export const WHOLE_CATALOG_FROM_ITEMS = 300;

/**
 * The catalog read that isStale needs, started before the items are read: the whole catalog for a
 * big report (a few Query pages), undefined (isStale reads by article) for a small one or one that is
 * never stale (combined).
 */
export function catalogForStaleCheck(
  record: ReportRecord,
  userId: string,
): Promise<ReadonlyMap<string, number>> | undefined {
  if (record.is_combined || record.item_count < WHOLE_CATALOG_FROM_ITEMS) return undefined;
  const p = allCostPrices(userId);
  p.catch(() => undefined); // awaited by isStale; an early failure must not count as unhandled meanwhile
  return p;
}
