/**
 * Period analytics (docs/API.md: GET /api/analytics, GET /api/analytics/export). Input: the caller and
 * an optional range, seller and article. Output: weeks, totals, the previous range with changes,
 * articles with ABC letters and margin groups, warnings — money in roubles.
 *
 * Reads no items on the way: one Query of the caller's report records (projected), one of their
 * summaries (shared/store/summaries.repo.ts), one of the catalog's prices and the sellers, all in the
 * caller's partition, so another user's data is unreachable. A summary missing or older than its
 * report (a write that failed after the report was final, or a report built before analytics existed)
 * is rebuilt from the report's items here, within a time budget; a report not reached in time is left
 * out with a warning. The math is pure: shared/engine/analytics/compute.ts.
 *
 * writeReportSummary is THE one call that keeps summaries current: it follows every change of a report's
 * items or totals (upload, rebuild, manual value); removeReportSummary follows a delete.
 */
import {
  addDays,
  computeAnalytics,
  daysInclusive,
  defaultRange,
  isDate,
  reportInfo,
  selectReports,
  summarizeItems,
  weekStart,
  WEEK_FIELDS,
  type AnalyticsResult,
  type ReportFigures,
  type ReportInfo,
  type Totals,
} from '../../engine/analytics';
import type { Analytics } from '../../contract/shapes';
import { badRequest, notFound } from '../../errors';
import { log } from '../../log';
import { kopecksToRoubles } from '../../engine/fields';
import type { ComputedItem, TaxProfile } from '../../engine/types';
import { DEFAULT_ALLOCATION } from '../../engine/allocation';
import { costPriceOn, type CostPricePeriod } from '../../engine/periods';
import { nowMs, type Clock } from '../../deps';
import type { SummaryContent } from '../../engine/analytics/summary';
import type { StoredItem } from '../../store/items.repo';
import type { SellerRecord } from '../../store/sellers.repo';
import type { ReportHead, StoredSummary } from '../../store/summaries.repo';
import type { UserRecord } from '../../store/users.repo';
import { effectiveAllocation, effectiveTaxProfile, sameTaxProfile, settingsDate } from '../worker/report-settings';

/** What keeping a report's summary current writes. */
export interface SummaryDeps {
  summaries: SummaryWriter;
}

/** A report's analytics summary written at its version (false: a newer one is stored), or removed. */
export interface SummaryWriter {
  putSummary(userId: string, reportId: string, version: number, content: SummaryContent): Promise<boolean>;
  deleteSummary(userId: string, reportId: string): Promise<void>;
}

/** The summaries of a user's reports and the catalog's dated cost prices (summaries.repo.ts). */
export interface SummaryReader {
  /** Summaries by report id (all of the user's, or those of `reportIds`). */
  listSummaries(userId: string, reportIds?: readonly string[]): Promise<Map<string, StoredSummary>>;
  /** The catalog's cost-price periods by article. */
  listCostPrices(userId: string): Promise<Map<string, CostPricePeriod[]>>;
}

/** The seller records of a user (sellers.repo.ts). */
export interface SellerReader {
  getSeller(userId: string, sellerId: string): Promise<SellerRecord | null>;
  listSellers(userId: string): Promise<SellerRecord[]>;
}

/** What the period analytics read (and heal): summaries, report heads, prices, sellers, items; the clock. */
export interface AnalyticsDeps {
  summaries: SummaryReader &
    Pick<SummaryWriter, 'putSummary'> & { listReportHeads(userId: string): Promise<ReportHead[]> };
  items: { getItemsOfGen(userId: string, reportId: string, gen: number): Promise<StoredItem[]> };
  sellers: SellerReader;
  clock: Clock;
}

/** Longest range one request may ask for (about three years). */
export const MAX_RANGE_DAYS = 1100;
/** How long one request may spend rebuilding summaries that are missing or out of date. */
export const HEAL_BUDGET_MS = 3000;

/**
 * Stores the analytics summary of a report whose items and totals are now final. `record.version` is
 * the report's version AFTER the change. Combined reports have none (analytics counts their sources).
 * Never fails the caller: a summary that could not be written is rebuilt by the next analytics read.
 */
export async function writeReportSummary(
  deps: { summaries: Pick<SummaryDeps['summaries'], 'putSummary'> },
  record: { user_id: string; id: string; version?: number; is_combined?: boolean },
  items: ReadonlyArray<Pick<ComputedItem, 'article' | 'computed' | 'effective'>>,
): Promise<void> {
  if (record.is_combined) return;
  try {
    await deps.summaries.putSummary(record.user_id, record.id, record.version ?? 1, summarizeItems(items));
  } catch (e) {
    log('error', 'report summary write failed', { report_id: record.id, error: String(e) });
  }
}

/** Deletes a report's summary with the report. */
export async function removeReportSummary(
  deps: { summaries: Pick<SummaryDeps['summaries'], 'deleteSummary'> },
  userId: string,
  reportId: string,
): Promise<void> {
  await deps.summaries.deleteSummary(userId, reportId);
}

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  seller_id?: string;
  article?: string;
}

const invalidRange = (message: string) => badRequest('invalid_range', message);

function checkRange(q: AnalyticsQuery): { from: string; to: string } | null {
  if (q.from === undefined && q.to === undefined) return null;
  if (q.from === undefined || q.to === undefined) throw invalidRange('Give both from and to, or neither');
  if (!isDate(q.from) || !isDate(q.to)) throw invalidRange('from and to are dates YYYY-MM-DD');
  if (q.from > q.to) throw invalidRange('from is after to');
  if (daysInclusive(q.from, q.to) > MAX_RANGE_DAYS)
    throw invalidRange(`The range is longer than ${MAX_RANGE_DAYS} days`);
  return { from: q.from, to: q.to };
}

/**
 * Whether a rebuild would take other settings than the report was built with (as the report page's
 * `stale`, shared/reports/worker/report-settings.ts isStale): the tax profile in force on its date, the allocation
 * method. Cost prices are compared with the summary's (computeUserAnalytics).
 */
export function settingsChanged(
  user: Pick<UserRecord, 'tax' | 'tax_periods' | 'allocation'>,
  seller: SellerRecord | null,
  h: Pick<ReportHead, 'is_combined' | 'tax_profile' | 'allocation' | 'period_from' | 'period_to'>,
): boolean {
  if (h.is_combined) return false;
  const tax = h.tax_profile as TaxProfile | undefined;
  if (tax && !sameTaxProfile(tax, effectiveTaxProfile(user, seller, settingsDate(h)))) return true;
  return (h.allocation?.method ?? DEFAULT_ALLOCATION) !== effectiveAllocation(user, seller);
}

/** The catalog's price of `article` in force on `date` (0 when never set); one price needs no date. */
export function priceOn(
  prices: ReadonlyMap<string, readonly CostPricePeriod[]>,
  article: string,
  date: string | null,
): number {
  const periods = prices.get(article);
  if (!periods || periods.length === 0) return 0;
  if (periods.length === 1) return periods[0]!.cost_price;
  return costPriceOn(periods, date) ?? 0;
}

/** A summary usable for its report: complete and of the report's current version. */
const current = (s: StoredSummary | undefined, head: ReportHead): s is StoredSummary =>
  s !== undefined && s.complete && s.version === head.version;

const countable = (h: ReportHead) => h.status === 'ready' && !h.is_combined && !!h.period_from && !!h.period_to;

/** Rebuilds the summaries of `heads` from their items, oldest report first, until the budget is spent. */
async function heal(
  deps: AnalyticsDeps,
  userId: string,
  heads: ReportHead[],
  summaries: Map<string, StoredSummary>,
): Promise<void> {
  const started = nowMs(deps.clock);
  for (const h of heads) {
    if (nowMs(deps.clock) - started >= HEAL_BUDGET_MS) break;
    const items = await deps.items.getItemsOfGen(userId, h.id, h.items_gen);
    const content = summarizeItems(items);
    await deps.summaries.putSummary(userId, h.id, h.version, content);
    summaries.set(h.id, {
      report_id: h.id,
      version: h.version,
      totals: content.totals,
      content_hash: content.content_hash,
      complete: true,
      articles: () => content.articles,
    });
  }
}

/** The JSON answer: the contract's Analytics (shared/contract/shapes.ts). */
export type ApiAnalytics = Analytics;

const MONEY = new Set(['realization', 'for_pay', 'payout', 'profit', 'expenses']);
function money<T extends object>(o: T): T {
  const out = { ...o } as Record<string, unknown>;
  for (const k of Object.keys(out)) if (MONEY.has(k) && typeof out[k] === 'number') out[k] = kopecksToRoubles(out[k]);
  return out as T;
}
const totalsJson = (t: Totals): Analytics['totals'] => {
  const out = {} as Analytics['totals'];
  for (const k of WEEK_FIELDS) out[k] = MONEY.has(k) ? kopecksToRoubles(t[k]) : t[k];
  out.margin = t.margin;
  return out;
};

/** The analytics answer in kopecks (for the export) and in roubles (for JSON). */
export async function computeUserAnalytics(
  deps: AnalyticsDeps,
  user: UserRecord,
  q: AnalyticsQuery,
): Promise<{ result: AnalyticsResult; available: ApiAnalytics['available']; sellerId: string | null }> {
  const asked = checkRange(q);
  const sellerId = q.seller_id ?? null;
  if (sellerId !== null && !(await deps.sellers.getSeller(user.id, sellerId)))
    throw notFound('Seller not found', 'seller_not_found');

  // The summaries are read by ranges of the report ids (in parallel), so they wait for the heads.
  const headsRead = deps.summaries.listReportHeads(user.id);
  const [allHeads, summaries, prices, sellers] = await Promise.all([
    headsRead,
    headsRead.then((hs) =>
      deps.summaries.listSummaries(
        user.id,
        hs.map((h) => h.id),
      ),
    ),
    deps.summaries.listCostPrices(user.id),
    deps.sellers.listSellers(user.id),
  ]);
  const heads = sellerId === null ? allHeads : allHeads.filter((h) => h.seller_id === sellerId);
  const outdated = heads.filter((h) => countable(h) && !current(summaries.get(h.id), h));
  if (outdated.length > 0)
    await heal(
      deps,
      user.id,
      outdated.sort((a, b) => (a.id < b.id ? -1 : 1)),
      summaries,
    );

  const sellerById = new Map(sellers.map((s) => [s.id, s]));
  const infos: ReportInfo[] = heads.map((h) => {
    const s = summaries.get(h.id);
    const usable = current(s, h);
    return reportInfo(
      h,
      usable ? s.content_hash : null,
      h.stale === true || settingsChanged(user, h.seller_id ? (sellerById.get(h.seller_id) ?? null) : null, h),
    );
  });

  const { counted } = selectReports(infos);
  const weeksWith = [...new Set(counted.map((r) => weekStart(r.period_from as string)))].sort();
  const available = {
    report_count: counted.length,
    first_week: weeksWith[0] ?? null,
    last_week: weeksWith[weeksWith.length - 1] ?? null,
  };
  const range = asked ??
    defaultRange(counted) ?? { from: addDays(weekStart(deps.clock.now().toISOString().slice(0, 10)), -77), to: '' };
  if (range.to === '') range.to = addDays(range.from, 83);

  // Figures of the reports a range may need: articles decoded only for the asked range.
  const figures = new Map<string, ReportFigures>();
  const infoById = new Map(infos.map((i) => [i.id, i]));
  for (const h of heads) {
    const s = summaries.get(h.id);
    if (!countable(h) || !current(s, h)) continue;
    const inside = (h.period_from as string) >= range.from && (h.period_to as string) <= range.to;
    const articles = inside ? s.articles() : [];
    figures.set(h.id, { totals: s.totals, articles });
    const info = infoById.get(h.id) as ReportInfo;
    // Cost prices in force for the report's date changed since it was built: a rebuild would change it.
    if (inside && !info.stale) {
      const date = settingsDate(h);
      info.stale = articles.some((a) => a.article !== '' && priceOn(prices, a.article, date) !== a.cost_price);
    }
  }

  const result = computeAnalytics({
    from: range.from,
    to: range.to,
    reports: infos,
    figures,
    article: q.article,
  });
  if (counted.length === 0) result.warnings = result.warnings.filter((w) => w.code !== 'missing_week');
  return { result, available, sellerId };
}

export async function getAnalytics(deps: AnalyticsDeps, user: UserRecord, q: AnalyticsQuery): Promise<ApiAnalytics> {
  const { result: r, available, sellerId } = await computeUserAnalytics(deps, user, q);
  return {
    range: r.range,
    previous_range: r.previous_range,
    seller_id: sellerId,
    available,
    weeks: r.weeks.map((w) => money(w)),
    totals: totalsJson(r.totals),
    previous: { ...totalsJson(r.previous), change: r.previous.change },
    articles: r.articles.map((a) => money(a)),
    margin_groups: {
      high: money(r.margin_groups.high),
      low: money(r.margin_groups.low),
      loss: money(r.margin_groups.loss),
    },
    warnings: r.warnings,
    ...(r.history ? { history: { article: r.history.article, weeks: r.history.weeks.map((w) => money(w)) } } : {}),
  };
}
