/**
 * Paid storage and paid acceptance per card as cost sources (costs.ts) over WB's report tasks on
 * seller-analytics-api: one source per report descriptor (analytics-reports.ts), its calls made by the
 * generic task client (report-task.ts; docs/WB-API.md «Paid storage and acceptance per article»). The
 * fetch of one period is report-plan.ts's plan, one call a step:
 *
 *   - the plan's state (windows of ≤ 8 days for storage, ≤ 31 for acceptance, their tasks and statuses,
 *     WB's per-method token buckets) is the job's memo, JSON as the cost job keeps it;
 *   - the job's `call` is the plan's next call (create a window's task, ask its status, download it);
 *     `next` records the call in the plan at the step's `now` (the method's budget spent), applies the
 *     outcome, and plans the call after it: at once, or after the wait the plan says (WB's buckets, the
 *     status poll, a 429's X-Ratelimit-Retry);
 *   - a downloaded window is stored as part `report` over every day of the window (a day without rows is
 *     0), so reading a period again replaces, never adds.
 *
 * A 429 stays in the plan (its bucket is held until WB's retry time, no failure counted); 5xx, network
 * errors and invalid answers retry the same call (the cost step counts them); a task WB purged, canceled
 * or forgot is made again (the plan's limit); a refused request gives the period up; 401/403 stop the
 * source for the connection. WB's minute is the setting WB_CALL_INTERVAL_SECONDS (reportPlanSettings).
 */
import type { AnalyticsReport, ReportKind } from './analytics-reports';
import type { CostKind } from './cost-kinds';
import type { ArticleCost, CostBatch, CostFetchState, CostSource, CostStepResult } from './costs';
import type { FetchLike, WbOutcome } from '../finance/finance-client';
import {
  advanceReport,
  allowedAt,
  claimReportCall,
  initialReportState,
  makeReportCall,
  planReportCall,
  reportPlanSettings,
  type ReportCall,
  type ReportFetchState,
  type ReportPlanSettings,
} from './report-plan';
import { createReportTaskClient, reportCosts, type ReportTaskClient } from './report-task';
import { ANALYTICS_SCOPE } from '../token';

/** The «Аналитика» category's bit (shared/marketplaces/wb/token.ts). */
export const ANALYTICS_SCOPE_BIT = 2;
/** The part a window's report is stored under (one per kind and day: a refetch replaces it). */
export const REPORT_PART = 'report';

interface Memo {
  plan?: ReportFetchState;
}

/** The plan's call as the job keeps it (null when the plan is over). */
function planned(
  plan: ReportFetchState,
  now: number,
  settings: ReportPlanSettings,
): { call: ReportCall | null; at: number } {
  const p = planReportCall(plan, now, settings);
  if (p.kind === 'call') return { call: p.call, at: now };
  if (p.kind !== 'wait') return { call: null, at: now };
  const later = planReportCall(plan, p.until, settings);
  return later.kind === 'call' ? { call: later.call, at: p.until } : { call: null, at: now };
}

/** The fetch of [from, to] of one report kind starts with its first window's task. */
export function reportFirst(kind: ReportKind, from: string, to: string, settings: ReportPlanSettings): CostFetchState {
  const plan = initialReportState(kind, from, to, settings);
  const { call } = planned(plan, 0, settings);
  return { call, memo: { plan } };
}

/** The pure step of a report source (exported for its tests): `now` is when the call was made. */
export function reportNext<Row>(
  state: CostFetchState,
  outcome: WbOutcome<unknown>,
  now: number,
  settings: ReportPlanSettings,
  convert: (rows: readonly Row[]) => ArticleCost[],
): CostStepResult {
  const call = state.call as ReportCall | null;
  const plan = (state.memo as Memo).plan;
  if (!call || !plan) return { state: { call: null, memo: {} }, batches: [], waitMs: 0 };
  switch (outcome.kind) {
    case 'server_error':
    case 'network_error':
    case 'invalid_response':
      // The same call again; the cost step counts the failures in a row.
      return { state, batches: [], waitMs: 2 * settings.limits[call.op].intervalMs, retry: true };
    default:
      break;
  }
  // The call is recorded when it was made (never before the plan allowed it: the step does not call early).
  const claimed = claimReportCall(
    plan,
    call,
    Math.max(now, plan.notBefore, allowedAt(plan, call.op, settings)),
    settings,
  );
  const { state: after, effects } = advanceReport<Row>(
    claimed,
    call,
    outcome as WbOutcome<string> | WbOutcome<never> | WbOutcome<Row[]>,
    now,
    settings,
  );
  const batches: CostBatch[] = [];
  const result: Partial<CostStepResult> = {};
  for (const e of effects) {
    if (e.kind === 'rows') {
      try {
        batches.push({ part: REPORT_PART, from: e.dateFrom, to: e.dateTo, costs: convert(e.rows) });
      } catch (err) {
        result.gaveUp = `${e.dateFrom}…${e.dateTo}: ${err instanceof Error ? err.message : String(err)}`;
      }
    } else if (e.kind === 'token-rejected') result.refused = e.reason;
    else if (e.kind === 'gave-up') result.gaveUp = e.reason;
  }
  if (result.refused || result.gaveUp !== undefined) {
    // The windows read so far stay stored (their days are counted as fetched); the rest is not.
    return { state: { call: null, memo: {} }, batches, waitMs: 0, ...result };
  }
  const next = planned(after, now, settings);
  return {
    state: next.call ? { call: next.call, memo: { plan: after } } : { call: null, memo: {} },
    batches,
    waitMs: next.at - now,
  };
}

export interface AnalyticsSourceOptions {
  /** seller-analytics-api's base URL (setting WB_ANALYTICS_API_URL). */
  baseUrl: () => string;
  /** WB's minute (setting WB_CALL_INTERVAL_SECONDS), ms: the plan's limits scale with it. */
  callIntervalMs: () => number;
  fetch?: FetchLike;
}

/**
 * The cost source of one report task kind (analytics-reports.ts), storing its costs as `kind`: its id is
 * the kind (kept in the cost jobs), its budget the report's, its calls the generic task client's.
 */
export function analyticsSource<Row>(
  kind: CostKind,
  report: AnalyticsReport<Row, ReportKind>,
  opts: AnalyticsSourceOptions,
): CostSource<ReportTaskClient<Row>> {
  const settings = () => reportPlanSettings(report.api, opts.callIntervalMs());
  return {
    id: kind,
    kind,
    api: report.api,
    scopeBit: ANALYTICS_SCOPE_BIT,
    scopeName: ANALYTICS_SCOPE,
    // The account's budget between two calls of this report: its quickest method (the plan holds the rest).
    pacing: () => {
      const { limits } = settings();
      return { intervalMs: Math.min(limits.create.intervalMs, limits.status.intervalMs, limits.download.intervalMs) };
    },
    client: (token) => createReportTaskClient(report, { baseUrl: opts.baseUrl(), token, fetch: opts.fetch }),
    first: (from, to) => reportFirst(report.api, from, to, settings()),
    call: (c, state) => makeReportCall(c, state.call as ReportCall) as Promise<WbOutcome<unknown>>,
    next: (state, outcome, _from, _to, now) =>
      reportNext<Row>(state, outcome, now, settings(), (rows) => reportCosts(report, rows)),
  };
}
