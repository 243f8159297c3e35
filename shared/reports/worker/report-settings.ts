/**
 * The settings a report is built with (docs/METRICS.md, Settings that enter the computation): the tax
 * profile of the report's seller, else the user's default, as in force on the middle day of the
 * report's period (its VAT rate checked against that date); the catalog's cost prices in force on that
 * day; the seller's own per-unit costs in force on that day (shared/engine/own-costs.ts); the
 * allocation method of the seller, else the user's. All are snapshot into the report (the prices and
 * the own costs per unit as each item's computed cost_price and own_cost_price); `isStale` tells
 * whether a rebuild would take different ones now.
 */
import { DEFAULT_ALLOCATION } from '../../engine/allocation';
import { unprocessable } from '../../errors';
import { ownCostPerUnit, ownCostRates } from '../../engine/own-costs';
import type { OwnCostBook } from '../../store/own-costs.repo';
import {
  costPricesOn,
  invalidVatPeriods,
  periodMiddle,
  resolveTax,
  type TaxPeriod,
  type TaxResolution,
} from '../../engine/periods';
import {
  DEFAULT_TAX_PROFILE,
  type AllocationMethod,
  type ReportCosts,
  type ReportSettings,
  type ReportWarning,
  type TaxProfile,
} from '../../engine/types';
import type { ProductRecord } from '../../store/products.repo';
import type { ReportRecord } from '../../store/report-record';
import type { StoredItem } from '../../store/items.repo';
import type { SellerRecord } from '../../store/sellers.repo';
import type { UserRecord } from '../../store/users.repo';
import type { PeriodCosts } from '../../store/wb-costs.repo';
import type { CostKind } from '../../marketplaces/wb/sources/cost-kinds';
import { ATTRIBUTED_FIELDS } from '../../engine/attribution';

/** What resolving a report's settings and its staleness read: the catalog's prices, WB's costs, own costs. */
export interface SettingsDeps {
  products: {
    /** The cost prices of these articles on `date` (null: today's), and which articles the catalog knows. */
    getReportCostPrices(
      userId: string,
      articles: readonly string[],
      date: string | null,
    ): Promise<{ prices: Record<string, number>; known: Set<string> }>;
    listAllProducts(userId: string): Promise<ProductRecord[]>;
  };
  /** WB's per-article costs of a period (the WB connection's cost fetch). */
  wbCosts: {
    readPeriodCosts(userId: string, wbSellerId: string, kind: CostKind, from: string, to: string): Promise<PeriodCosts>;
  };
  /** The seller's own per-unit cost lines (shared/engine/own-costs.ts). */
  ownCosts: { getOwnCosts(userId: string): Promise<OwnCostBook> };
}

type UserSettings = Partial<Pick<UserRecord, 'tax' | 'tax_periods' | 'allocation'>>;
type SellerSettings = Partial<Pick<SellerRecord, 'tax' | 'tax_periods' | 'allocation'>>;

/** The dated profile that applies: the seller's own, else the user's default (a plain `tax` = from the beginning). */
export function taxPeriodsOf(user: UserSettings | null, seller: SellerSettings | null): TaxPeriod[] {
  const own = (s: UserSettings | SellerSettings | null): TaxPeriod[] | null => {
    if (!s) return null;
    if (s.tax_periods && s.tax_periods.length > 0) return s.tax_periods;
    return s.tax ? [{ valid_from: null, ...s.tax }] : null;
  };
  return own(seller) ?? own(user) ?? [];
}

export function effectiveAllocation(user: UserSettings | null, seller: SellerSettings | null): AllocationMethod {
  return seller?.allocation ?? user?.allocation ?? DEFAULT_ALLOCATION;
}

/** The day a report's settings are taken for: the middle of its period (null without one: today). */
export function settingsDate(period: { period_from: string | null; period_to: string | null }): string | null {
  return periodMiddle(period.period_from, period.period_to);
}

export function resolveReportTax(
  user: UserSettings | null,
  seller: SellerSettings | null,
  date: string | null,
): TaxResolution {
  return resolveTax(taxPeriodsOf(user, seller), date, DEFAULT_TAX_PROFILE);
}

/** The profile in force for a report dated `date` (null: today). */
export function effectiveTaxProfile(
  user: UserSettings | null,
  seller: SellerSettings | null,
  date: string | null = null,
): TaxProfile {
  return resolveReportTax(user, seller, date).profile;
}

export function sameTaxProfile(a: TaxProfile, b: TaxProfile): boolean {
  return (
    a.tax_system === b.tax_system &&
    Number(a.usn_rate) === Number(b.usn_rate) &&
    Number(a.vat_rate) === Number(b.vat_rate)
  );
}

/** `vat_rate_adjusted`: the profile's VAT rate does not exist on the report's date, so another one was applied. */
export function vatWarning(t: TaxResolution): ReportWarning | null {
  if (!t.vat_adjusted) return null;
  const { configured, applied } = t.vat_adjusted;
  return {
    code: 'vat_rate_adjusted',
    message: `Ставки НДС ${configured} % на ${t.date} не было: применена ставка ${applied} %${
      applied === 0 ? ' (упрощенцы тогда не платили НДС)' : ' (общая ставка на эту дату)'
    }. Укажите налоги по периодам в настройках.`,
    details: { configured, applied, date: t.date },
  };
}

export interface ResolvedSettings {
  settings: ReportSettings;
  /** Articles already in the catalog (the others are added with cost price 0, not set). */
  known: Set<string>;
  /** Warnings the settings add to the report (vat_rate_adjusted). */
  warnings: ReportWarning[];
  /** The day the settings were taken for. */
  date: string | null;
}

/**
 * Everything a report of this period is built with. `prices` may be loaded beforehand (in parallel
 * with other work) with loadReportCostPrices.
 */
export async function resolveReportSettings(
  deps: SettingsDeps,
  user: UserSettings & Pick<UserRecord, 'id'>,
  seller: (SellerSettings & { number?: string }) | null,
  period: { period_from: string | null; period_to: string | null },
  articles: readonly string[],
  prices?: Promise<{ prices: Record<string, number>; known: Set<string> }>,
  /** Kinds WB's APIs have not answered for yet (the report's `costs_pending`): left to the rows. */
  pending: readonly string[] = [],
): Promise<ResolvedSettings> {
  const date = settingsDate(period);
  const tax = resolveReportTax(user, seller, date);
  const costsP = loadReportCosts(deps, user.id, seller?.number ?? null, period, pending);
  const [catalog, own] = await Promise.all([
    prices ?? loadReportCostPrices(deps, user.id, period, articles),
    deps.ownCosts.getOwnCosts(user.id),
  ]);
  const costs = await costsP;
  const w = vatWarning(tax);
  return {
    settings: {
      tax: tax.profile,
      costPrices: catalog.prices,
      allocation: effectiveAllocation(user, seller),
      ownCosts: ownCostRates(own.lines, date, articles),
      ...(costs ? { costs } : {}),
    },
    known: catalog.known,
    warnings: w ? [w] : [],
    date,
  };
}

/**
 * WB's per-article costs of the report's period (shared/store/wb-costs.repo.ts), by kind: the seller's WB
 * id is its number (the file names' and the token's `oid`). A kind enters only when the sync fetched its
 * period; undefined when none did (the report is built from its rows alone).
 */
export async function loadReportCosts(
  deps: Pick<SettingsDeps, 'wbCosts'>,
  userId: string,
  wbSellerId: string | null,
  period: { period_from: string | null; period_to: string | null },
  pending: readonly string[] = [],
): Promise<ReportCosts | undefined> {
  if (!wbSellerId || !period.period_from || !period.period_to) return undefined;
  const { period_from: from, period_to: to } = period;
  // A kind whose fetch is under way may have part of its data stored: not used until it is all in.
  const kinds = ATTRIBUTED_FIELDS.filter((k) => !pending.includes(k));
  const read = await Promise.all(kinds.map((k) => deps.wbCosts.readPeriodCosts(userId, wbSellerId, k, from, to)));
  const costs: ReportCosts = {};
  kinds.forEach((k, i) => {
    const r = read[i]!;
    if (r.days.length > 0)
      costs[k] = {
        byNm: r.byNm,
        revenueByNm: r.revenueByNm,
        days: r.days.length,
        ...(r.namesByNm ? { names: r.namesByNm } : {}),
      };
  });
  return Object.keys(costs).length > 0 ? costs : undefined;
}

export function loadReportCostPrices(
  deps: SettingsDeps,
  userId: string,
  period: { period_from: string | null; period_to: string | null },
  articles: readonly string[],
) {
  return deps.products.getReportCostPrices(userId, articles, settingsDate(period));
}

/**
 * True when a rebuild would take other settings than the report's snapshot: the tax profile in force on
 * the report's date, the allocation method, a cost price in force on that date (a price never set
 * counts as 0), or the own costs per unit in force on that date. A combined report is never stale here:
 * it has no source to rebuild from.
 */
export async function isStale(
  deps: SettingsDeps,
  record: ReportRecord,
  items: ReadonlyArray<StoredItem>,
  user: UserSettings & Pick<UserRecord, 'id'>,
  seller: SellerRecord | null,
  catalog?: Promise<ReadonlyMap<string, ProductRecord>>,
): Promise<boolean> {
  if (record.is_combined) return false;
  const date = settingsDate(record);
  if (!sameTaxProfile(record.tax_profile, effectiveTaxProfile(user, seller, date))) return true;
  if ((record.allocation?.method ?? DEFAULT_ALLOCATION) !== effectiveAllocation(user, seller)) return true;
  const own = ownCostRates((await deps.ownCosts.getOwnCosts(user.id)).lines, date);
  if (items.some((i) => (i.computed.own_cost_price ?? 0) !== ownCostPerUnit(own, i.article))) return true;
  let prices: Record<string, number>;
  if (catalog) {
    prices = costPricesOn((await catalog).values(), date);
  } else {
    prices = (
      await deps.products.getReportCostPrices(
        user.id,
        items.map((i) => i.article),
        date,
      )
    ).prices;
  }
  return items.some((i) => i.article !== '' && (i.computed.cost_price ?? 0) !== (prices[i.article] ?? 0));
}

/** Reports with at least this many items are checked against the whole catalog, read beside their items. */
export const WHOLE_CATALOG_FROM_ITEMS = 300;

/** Every product of the caller's catalog (one Query per catalog shard, in parallel). */
async function wholeCatalog(deps: SettingsDeps, userId: string): Promise<Map<string, ProductRecord>> {
  return new Map((await deps.products.listAllProducts(userId)).map((p) => [p.article, p]));
}

/**
 * The catalog read isStale needs, started before the items are read: the whole catalog for a big
 * report (a few Query pages where a BatchGet by article takes 50 requests, and no article list needed,
 * so it runs beside the items' read), undefined (isStale reads by article) for a small or combined one.
 */
export function catalogForStaleCheck(
  deps: SettingsDeps,
  record: ReportRecord,
  userId: string,
): Promise<ReadonlyMap<string, ProductRecord>> | undefined {
  if (record.is_combined || record.item_count < WHOLE_CATALOG_FROM_ITEMS) return undefined;
  const p = wholeCatalog(deps, userId);
  p.catch(() => undefined); // awaited by isStale; an early failure must not count as unhandled meanwhile
  return p;
}

/**
 * Saving a dated tax profile: every period's VAT rate must exist on its first day (5 % and 7 % from
 * 2025-01-01, 22 % from 2026-01-01, 20 % before 2026-01-01; 10 % and 0 always). Else 422
 * `vat_rate_not_in_force` naming the periods. A period from the beginning takes any known rate (reports
 * dated before the rate existed apply the rule of periods.ts applicableVatRate and say so).
 */
export function assertTaxPeriods(periods: readonly TaxPeriod[]): void {
  const bad = invalidVatPeriods(periods);
  if (bad.length === 0) return;
  const first = bad[0]!;
  throw unprocessable(
    'vat_rate_not_in_force',
    `VAT ${first.vat_rate} % does not exist on ${first.valid_from}` +
      (first.valid_from_rate ? ` (it applies from ${first.valid_from_rate})` : '') +
      (first.valid_until_rate ? ` (it applies before ${first.valid_until_rate})` : ''),
    { periods: bad },
  );
}
