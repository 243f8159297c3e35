/**
 * Per-article costs from WB's other APIs (docs/WB-API.md «Promotion and per-article costs»; docs/METRICS.md
 * «Per-article costs from WB»): what a client returns, and the pluggable description of a source that the
 * WB sync fetches one call per step (shared/marketplaces/wb/sync/costs-step.ts) for a report's period.
 *
 * A source is a small state machine of single calls: `first` opens the fetch of one period, `next`
 * takes a call's outcome and says what to store, how long to wait and what to call next. Nothing here
 * sleeps or touches AWS; the step claims the WB account's budget for the source's API, makes the one call
 * and writes what the source says. The sources are the list the composition passes (shared/marketplaces/wb/sync/step-deps.ts
 * `costSources`): ads (advert-source.ts), paid storage and acceptance (analytics-source.ts).
 */
import type { FetchLike, WbOutcome } from '../finance/finance-client';
import type { CostKind } from './cost-kinds';

/** One day's cost of one card (nmId), integer kopecks. */
export interface ArticleCost {
  /** YYYY-MM-DD (Moscow). */
  date: string;
  nmId: number;
  kopecks: number;
  /** The card's vendor code («Артикул продавца») where WB's answer gives it (paid storage): names a card's own line. */
  vendorCode?: string;
}

export type { CostKind } from './cost-kinds';

/** The ad side of a card's day that is not a cost: orders WB puts down to the ads (fullstats `sum_price`). */
export interface ArticleAdRevenue {
  date: string;
  nmId: number;
  kopecks: number;
}

/** What one call gives to store: the costs of `part` for every day of [from, to] (a day without a row is 0). */
export interface CostBatch {
  /** A stable name of the data's origin within the kind (a campaign id, a report task): a refetch replaces it. */
  part: string;
  from: string;
  to: string;
  costs: ArticleCost[];
  revenue?: ArticleAdRevenue[];
}

/** The fetch of one period of one source, as stored between steps (JSON). */
export interface CostFetchState {
  /** The call to make next (the source's own words), or null when the period is done. */
  call: Record<string, unknown> | null;
  /** Source-defined memory between calls (campaign ids left, a task id…). */
  memo: Record<string, unknown>;
}

export interface CostStepResult {
  state: CostFetchState;
  /** Data to store (before the state moves on). */
  batches: CostBatch[];
  /** Least wait before this source's next call (its own pacing), ms; the budget interval applies anyway. */
  waitMs: number;
  /** The token lacks the scope, or WB refuses it: stop this source for the connection. */
  refused?: 'unauthorized' | 'forbidden';
  /** Transient trouble (5xx, network, invalid answer, 429): try the same call again after waitMs. */
  retry?: boolean;
  /** WB refused the request as malformed: give the period up. */
  gaveUp?: string;
}

/** The pacing of one source (from settings; tests inject short intervals). */
export interface CostSourcePacing {
  /** Least time between two calls of this API for one WB account. */
  intervalMs: number;
}

/** A per-article cost source: one WB API, one kind of cost, single-call steps. */
export interface CostSource<Client = unknown> {
  /** Stable id, kept in the stored fetch state (e.g. 'advert'). */
  id: string;
  kind: CostKind;
  /** The WB API whose budget the calls use (a separate budget per WB account and API). */
  api: string;
  /** The token category the source needs (the bit position of shared/marketplaces/wb/token.ts, e.g. 6 «Продвижение»). */
  scopeBit: number;
  /** The category's name as the connection keeps it (token.ts), for the scope check without the token. */
  scopeName: string;
  pacing: () => CostSourcePacing;
  /**
   * Asked for only for a report whose rows carry the kind (acquiring billed separately): rows marked with
   * the kind when the sync reads them (finance/row-marks.ts), or a non-zero total of its field. Absent: every
   * report of a period.
   */
  needsRows?: boolean;
  /** The client for a token (the composition injects the base URL and fetch). */
  client: (token: string) => Client;
  /** The fetch of [from, to] starts here. */
  first(from: string, to: string): CostFetchState;
  /** Make the state's call. */
  call(client: Client, state: CostFetchState): Promise<WbOutcome<unknown>>;
  /** The state after the call's outcome and what to store; `now` is when the call was made (epoch ms). */
  next(state: CostFetchState, outcome: WbOutcome<unknown>, from: string, to: string, now: number): CostStepResult;
}

/** Σ of costs by nmId (kopecks). */
export function sumByNm(costs: readonly ArticleCost[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const c of costs) out.set(c.nmId, (out.get(c.nmId) ?? 0) + c.kopecks);
  return out;
}

/** Every day of [from, to] (YYYY-MM-DD), inclusive. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && out.length < 400; t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * A single-call source's step after an answer that carries no rows: WB's wait after a 429, the token
 * refused (401/403: the source stops for the connection), a failure tried again at twice the interval,
 * or the period given up (400/404). Null for an answer with rows (`ok`, `no_content`): the source reads it.
 */
export function unansweredStep(
  state: CostFetchState,
  outcome: WbOutcome<unknown>,
  intervalMs: number,
): CostStepResult | null {
  const same = (extra: Partial<CostStepResult>): CostStepResult => ({
    state,
    batches: [],
    waitMs: intervalMs,
    ...extra,
  });
  switch (outcome.kind) {
    case 'rate_limited':
      return same({ retry: true, waitMs: Math.max(intervalMs, Math.ceil(outcome.retryAfterSeconds * 1000)) });
    case 'unauthorized':
    case 'forbidden':
      return same({ refused: outcome.kind });
    case 'server_error':
    case 'network_error':
    case 'invalid_response':
      return same({ retry: true, waitMs: intervalMs * 2 });
    case 'rejected':
    case 'not_found':
      return { state: { call: null, memo: {} }, batches: [], waitMs: intervalMs, gaveUp: outcome.message };
    default:
      return null;
  }
}

/** What a single-call source is made with: its WB host, WB's minute (ms) and, in tests, a fetch. */
export interface SourceOptions {
  baseUrl: () => string;
  /** WB's minute (WB_CALL_INTERVAL_SECONDS), ms: one call a minute per seller account. */
  intervalMs: () => number;
  fetch?: FetchLike;
}
