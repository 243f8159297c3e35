/**
 * The month's P&L and the tax thresholds (docs/API.md: GET /api/pnl, GET /api/tax-thresholds;
 * docs/METRICS.md, «P&L by month», «Tax thresholds»). Reads through its ports (PnlDeps): the user's
 * report records with their totals (one Query, no items), the period costs, the sellers. The arithmetic
 * is pure: shared/engine/pnl.ts and shared/engine/tax-thresholds.ts. Money leaves in roubles.
 */
import { badRequest, notFound } from '../errors';
import type { Clock } from '../deps';
import { reportInfo } from '../engine/analytics/compute';
import { settingsChanged } from '../reports/analytics/analytics';
import { kopecksToRoubles } from '../engine/fields';
import {
  computePnl,
  isMonth,
  monthsOf,
  PNL_LINE_ORDER,
  type PeriodCost,
  type PnlReport,
  type PnlResult,
} from '../engine/pnl';
import { proposeTaxPeriods, thresholdStatus, WARNING_SHARE } from '../engine/tax-thresholds';
import type { Pnl, TaxThreshold } from '../contract/pnl-shapes';
import type { PeriodCostRecord } from '../store/period-costs.repo';
import type { ReportTotalsHead } from '../store/report-totals.repo';
import type { SellerRecord } from '../store/sellers.repo';
import type { UserRecord } from '../store/users.repo';
import { resolveReportTax } from '../reports/worker/report-settings';
import { presentCostsPending } from '../reports/present-report';

export interface PnlDeps {
  reports: { listReportTotals(userId: string): Promise<ReportTotalsHead[]> };
  costs: { listPeriodCosts(userId: string): Promise<PeriodCostRecord[]> };
  sellers: {
    getSeller(userId: string, sellerId: string): Promise<SellerRecord | null>;
    listSellers(userId: string): Promise<SellerRecord[]>;
  };
  clock: Clock;
}

/** Longest range of one P&L, months. */
export const MAX_PNL_MONTHS = 36;

type User = Pick<UserRecord, 'id' | 'tax' | 'tax_periods' | 'allocation'>;

const invalidRange = (message: string) => badRequest('invalid_range', message);

export function checkMonths(from: string, to: string): void {
  if (!isMonth(from) || !isMonth(to)) throw invalidRange('from and to are months YYYY-MM');
  if (from > to) throw invalidRange('from is after to');
  if (monthsOf(from, to).length > MAX_PNL_MONTHS)
    throw invalidRange(`The range is longer than ${MAX_PNL_MONTHS} months`);
}

/** A report whose rebuild would take other settings than it was built with (analytics' rule). */
const stale = (user: User, seller: SellerRecord | null, h: ReportTotalsHead): boolean =>
  settingsChanged(user, seller, { ...h, allocation: h.allocation_method ? { method: h.allocation_method } : null });

function toPnlReports(user: User, heads: readonly ReportTotalsHead[], sellers: Map<string, SellerRecord>): PnlReport[] {
  return heads.map((h) => ({
    ...reportInfo(h, null, stale(user, h.seller_id ? (sellers.get(h.seller_id) ?? null) : null, h)),
    totals: h.totals,
  }));
}

const toCost = (c: PeriodCostRecord): PeriodCost =>
  c.kind === 'one_off'
    ? { id: c.id, name: c.name, category: c.category, amount: c.amount, kind: 'one_off', date: c.date as string }
    : {
        id: c.id,
        name: c.name,
        category: c.category,
        amount: c.amount,
        kind: 'monthly',
        from_month: c.from_month as string,
        to_month: c.to_month,
      };

const rub = (lines: Record<string, number>) =>
  Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, kopecksToRoubles(v)]));

/**
 * The thresholds of each seller of `reports` (or of the one asked) for `year`, USN sellers only: the
 * income of the year so far by the month of the sale (straddling weeks split by their days, each week
 * once), the previous year's too.
 */
function thresholdsFor(
  user: User,
  reports: readonly PnlReport[],
  sellers: Map<string, SellerRecord>,
  sellerIds: ReadonlyArray<string | null>,
  year: number,
): TaxThreshold[] {
  const out: TaxThreshold[] = [];
  for (const sellerId of sellerIds) {
    const seller = sellerId ? (sellers.get(sellerId) ?? null) : null;
    const own = reports.filter((r) => r.seller_id === sellerId);
    const r = computePnl({ from: `${year - 1}-01`, to: `${year}-12`, reports: own, costs: [] });
    const income = new Map(r.months.map((m) => [m.month, m.income]));
    const withData = r.months.filter((m) => m.month.startsWith(`${year}-`) && m.covered_days > 0);
    const asOf = withData.at(-1)?.month ?? `${year}-01`;
    const profile = resolveReportTax(user, seller, `${asOf}-15`).profile;
    if (profile.tax_system === 'none') continue;
    const s = thresholdStatus(income, year, asOf, true);
    if (!s) continue;
    const usn = { tax_system: profile.tax_system, usn_rate: profile.usn_rate };
    const proposals = proposeTaxPeriods(s, usn, (date) => resolveReportTax(user, seller, date).profile.vat_rate);
    out.push({
      seller_id: sellerId,
      seller_name: seller?.name ?? 'Без продавца',
      tax_system: profile.tax_system,
      year,
      as_of: s.as_of,
      income: kopecksToRoubles(s.income),
      previous_year_income: s.previous_year_income === null ? null : kopecksToRoubles(s.previous_year_income),
      exemption_threshold: kopecksToRoubles(s.thresholds.exemption),
      rate5_limit: kopecksToRoubles(s.thresholds.rate5),
      rate7_limit: kopecksToRoubles(s.thresholds.rate7),
      source: s.thresholds.source,
      share: s.share,
      level: s.level,
      warning_share: WARNING_SHARE,
      vat_from: s.vat_from,
      rate7_from: s.rate7_from,
      usn_lost_from: s.usn_lost_from,
      vat_rate: s.vat_rate,
      message: s.message,
      proposals,
    });
  }
  return out;
}

async function load(deps: PnlDeps, user: User, sellerId: string | null) {
  if (sellerId !== null && !(await deps.sellers.getSeller(user.id, sellerId)))
    throw notFound('Seller not found', 'seller_not_found');
  const [heads, costs, sellerList] = await Promise.all([
    deps.reports.listReportTotals(user.id),
    deps.costs.listPeriodCosts(user.id),
    deps.sellers.listSellers(user.id),
  ]);
  const sellers = new Map(sellerList.map((s) => [s.id, s]));
  const all = toPnlReports(user, heads, sellers);
  const reports = sellerId === null ? all : all.filter((r) => r.seller_id === sellerId);
  const ownCosts = costs.filter((c) => sellerId === null || c.seller_id === sellerId).map(toCost);
  // The sellers whose thresholds are shown: the one asked, else every seller with reports (and the
  // reports without a seller, taxed with the user's own profile).
  const sellerIds =
    sellerId !== null ? [sellerId] : [...new Set(all.filter((r) => !r.is_combined).map((r) => r.seller_id))];
  const pending = new Map(heads.filter((h) => h.costs_pending?.length).map((h) => [h.id, h.costs_pending ?? []]));
  return { reports, ownCosts, sellers, sellerIds, pending };
}

/** Months shown when none are asked: this many, ending with the newest month that holds a report. */
export const DEFAULT_PNL_MONTHS = 3;

/** `month` (YYYY-MM) moved by `n` months. */
function shiftMonth(month: string, n: number): string {
  const i = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + n;
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
}

/**
 * The range asked, or — with neither `from` nor `to` — the last DEFAULT_PNL_MONTHS months ending with the
 * newest month a report covers (this month when there is no report), so the page opens on the data.
 */
export function pnlRange(
  q: { from?: string; to?: string },
  reports: ReadonlyArray<Pick<PnlReport, 'period_to'>>,
  now: Date,
): { from: string; to: string } {
  if (q.from !== undefined && q.to !== undefined) return { from: q.from, to: q.to };
  if (q.from !== undefined || q.to !== undefined) throw invalidRange('from and to go together, or neither');
  const newest = reports.reduce<string | null>(
    (m, r) => (r.period_to !== null && (m === null || r.period_to > m) ? r.period_to : m),
    null,
  );
  const to = (newest ?? now.toISOString()).slice(0, 7);
  return { from: shiftMonth(to, -(DEFAULT_PNL_MONTHS - 1)), to };
}

/** The P&L in kopecks (for the export) with the thresholds of the year of `to`. */
export async function computeUserPnl(
  deps: PnlDeps,
  user: User,
  q: { from?: string; to?: string; seller_id?: string },
): Promise<{
  result: PnlResult;
  thresholds: TaxThreshold[];
  sellerId: string | null;
  /** Report id → WB's per-article cost kinds still to come (report-record.ts `costs_pending`). */
  pending: Map<string, string[]>;
}> {
  if (q.from !== undefined && q.to !== undefined) checkMonths(q.from, q.to);
  const sellerId = q.seller_id ?? null;
  const { reports, ownCosts, sellers, sellerIds, pending } = await load(deps, user, sellerId);
  const range = pnlRange(q, reports, deps.clock.now());
  const result = computePnl({ from: range.from, to: range.to, reports, costs: ownCosts });
  const year = Number(range.to.slice(0, 4));
  return { result, thresholds: thresholdsFor(user, reports, sellers, sellerIds, year), sellerId, pending };
}

export async function getPnl(
  deps: PnlDeps,
  user: User,
  q: { from?: string; to?: string; seller_id?: string },
): Promise<Pnl> {
  const { result: r, thresholds, sellerId, pending } = await computeUserPnl(deps, user, q);
  return {
    from: r.from,
    to: r.to,
    seller_id: sellerId,
    lines: PNL_LINE_ORDER.map((l) => ({ key: l.key, title: l.title, sign: l.sign })),
    months: r.months.map((m) => ({
      month: m.month,
      lines: rub(m.lines),
      net_profit: kopecksToRoubles(m.net_profit),
      margin: m.margin,
      income: kopecksToRoubles(m.income),
      covered_days: m.covered_days,
      days: m.days,
      reports: m.reports,
      costs_pending: presentCostsPending(m.reports.flatMap((x) => pending.get(x.report_id) ?? [])),
      period_costs: m.period_costs.map((c) => ({ ...c, amount: kopecksToRoubles(c.amount) })),
    })),
    totals: {
      lines: rub(r.totals.lines),
      net_profit: kopecksToRoubles(r.totals.net_profit),
      margin: r.totals.margin,
      income: kopecksToRoubles(r.totals.income),
      covered_days: r.totals.covered_days,
      days: r.totals.days,
    },
    sources: r.sources,
    split_rule: 'days',
    thresholds,
    warnings: r.warnings,
  };
}

/** GET /api/tax-thresholds: where each USN seller's income of `year` stands (this year by default). */
export async function getTaxThresholds(
  deps: PnlDeps,
  user: User,
  q: { seller_id?: string; year?: string },
): Promise<{ thresholds: TaxThreshold[] }> {
  const sellerId = q.seller_id ?? null;
  const year = q.year ? Number(q.year) : deps.clock.now().getUTCFullYear();
  if (year < 2000 || year > 2100) throw invalidRange('year is out of range');
  const { reports, sellers, sellerIds } = await load(deps, user, sellerId);
  return { thresholds: thresholdsFor(user, reports, sellers, sellerIds, year) };
}
