/**
 * Settings by date (docs/METRICS.md, Settings that enter the computation): a tax profile and a cost price are
 * lists of periods, each in force from its `valid_from` (YYYY-MM-DD; null = from the beginning) until the
 * next one starts. A report takes the values in force on the middle day of its period.
 */
import type { TaxProfile } from './types';

/** One period of a tax profile. */
export interface TaxPeriod extends TaxProfile {
  /** First day (YYYY-MM-DD) the profile is in force; null = from the beginning. */
  valid_from: string | null;
}

/** One period of an article's cost price (kopecks per unit). */
export interface CostPricePeriod {
  valid_from: string | null;
  cost_price: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

/** The middle day of a period (rounded down); one end when the other is missing; null without both. */
export function periodMiddle(from: string | null | undefined, to: string | null | undefined): string | null {
  if (!from && !to) return null;
  if (!from || !to) return (from ?? to) as string;
  const a = Date.parse(`${from}T00:00:00Z`);
  const b = Date.parse(`${to}T00:00:00Z`);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return from;
  const days = Math.floor((b - a) / 86_400_000 / 2);
  return new Date(a + days * 86_400_000).toISOString().slice(0, 10);
}

/** Periods ordered by valid_from, "from the beginning" first; a later duplicate of a date replaces an earlier one. */
export function sortPeriods<P extends { valid_from: string | null }>(periods: readonly P[]): P[] {
  const byDate = new Map<string, P>();
  for (const p of periods) byDate.set(p.valid_from ?? '', p);
  return [...byDate.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
}

/**
 * The period in force on `date` (YYYY-MM-DD): the last one starting on or before it. Before the first
 * period starts, the first one (the earliest known setting is the best estimate of an earlier one).
 * A null date (a report without a period) takes the period in force today. Null for an empty list.
 */
export function periodInForce<P extends { valid_from: string | null }>(
  periods: readonly P[],
  date: string | null,
  today: string = new Date().toISOString().slice(0, 10),
): P | null {
  const sorted = sortPeriods(periods);
  if (sorted.length === 0) return null;
  const on = date ?? today;
  let found: P = sorted[0]!;
  for (const p of sorted) if (p.valid_from === null || p.valid_from <= on) found = p;
  return found;
}

/** VAT rates known to the service and the dates they exist on (Russian tax code as of 2026). */
export const VAT_RATE_VALUES = [0, 5, 7, 10, 20, 22] as const;

/** From/until (exclusive) of each rate; null = open. */
const VAT_VALIDITY: Record<number, { from: string | null; until: string | null }> = {
  0: { from: null, until: null },
  10: { from: null, until: null },
  // USN payers over the threshold owe VAT at 5 % or 7 % since 2025.
  5: { from: '2025-01-01', until: null },
  7: { from: '2025-01-01', until: null },
  // The general rate: 20 % until 2025, 22 % since 2026.
  20: { from: null, until: '2026-01-01' },
  22: { from: '2026-01-01', until: null },
};

/** True when the VAT rate exists on that date (an unknown rate never does). */
export function vatRateValidOn(rate: number, date: string): boolean {
  const v = VAT_VALIDITY[rate];
  if (!v) return false;
  return (v.from === null || date >= v.from) && (v.until === null || date < v.until);
}

/** First date a rate exists on (null: always has). */
export function vatRateValidFrom(rate: number): string | null {
  return VAT_VALIDITY[rate]?.from ?? null;
}

/**
 * The VAT rate applied on `date` when the profile's rate does not exist then. The rule: the general rate
 * follows the law (22 % before 2026 → 20 %; 20 % from 2026 → 22 %); the USN rates 5 % and 7 % before 2025
 * → 0 (simplified-tax payers were not VAT payers then). A rate valid on the date is kept.
 */
export function applicableVatRate(rate: number, date: string): number {
  if (vatRateValidOn(rate, date)) return rate;
  if (rate === 22 || rate === 20) return date < '2026-01-01' ? 20 : 22;
  return 0;
}

export interface TaxResolution {
  /** The profile the report is computed with (its vat_rate possibly adjusted). */
  profile: TaxProfile;
  /** The period chosen (null: no periods, the default applies). */
  period: TaxPeriod | null;
  /** The date the choice was made for (the report's middle day, or today). */
  date: string;
  /** Set when the profile's VAT rate does not exist on the date and another one was applied. */
  vat_adjusted?: { configured: number; applied: number };
}

/**
 * The tax profile of a report from a list of periods: the one in force on the report's middle day,
 * with its VAT rate checked against that date (applicableVatRate). `fallback` when the list is empty.
 */
export function resolveTax(
  periods: readonly TaxPeriod[],
  reportDate: string | null,
  fallback: TaxProfile,
  today: string = new Date().toISOString().slice(0, 10),
): TaxResolution {
  const date = reportDate ?? today;
  const period = periodInForce(periods, date, today);
  const base = period ?? fallback;
  const configured = Number(base.vat_rate);
  const applied = applicableVatRate(configured, date);
  const profile: TaxProfile = {
    tax_system: base.tax_system,
    usn_rate: Number(base.usn_rate),
    vat_rate: applied,
  };
  return {
    profile,
    period,
    date,
    ...(applied !== configured ? { vat_adjusted: { configured, applied } } : {}),
  };
}

/** A period whose VAT rate does not exist on its first day (what saving refuses with 422 `vat_rate_not_in_force`). */
export interface InvalidVatPeriod {
  valid_from: string | null;
  vat_rate: number;
  /** The rate exists from this date (null: from always)… */
  valid_from_rate: string | null;
  /** …until this date (exclusive; null: open). */
  valid_until_rate: string | null;
}

/**
 * Periods whose VAT rate does not exist on their `valid_from`. A period "from the beginning" is
 * accepted with any known rate: for dates before the rate existed, the report applies the rule of
 * applicableVatRate and says so in a warning.
 */
export function invalidVatPeriods(periods: readonly TaxPeriod[]): InvalidVatPeriod[] {
  const out: InvalidVatPeriod[] = [];
  for (const p of periods) {
    if (p.valid_from === null) continue;
    if (!vatRateValidOn(Number(p.vat_rate), p.valid_from)) {
      const v = VAT_VALIDITY[Number(p.vat_rate)];
      out.push({
        valid_from: p.valid_from,
        vat_rate: Number(p.vat_rate),
        valid_from_rate: v?.from ?? null,
        valid_until_rate: v?.until ?? null,
      });
    }
  }
  return out;
}

/** The cost price in force on `date` (kopecks), or null when the list is empty (no price set). */
export function costPriceOn(periods: readonly CostPricePeriod[], date: string | null, today?: string): number | null {
  const p = periodInForce(periods, date, today);
  return p ? p.cost_price : null;
}

/** The price in force on `date` of each product whose price the seller has set, by article. */
export function costPricesOn(
  products: Iterable<{ article: string; cost_prices: readonly CostPricePeriod[] }>,
  date: string | null,
): Record<string, number> {
  const prices: Record<string, number> = {};
  for (const p of products) {
    const price = costPriceOn(p.cost_prices, date);
    if (price !== null) prices[p.article] = price;
  }
  return prices;
}
