/**
 * Ad spend per card as a cost source (costs.ts) over WB's promotion API (advert-client.ts): the fetch of
 * one period is
 *
 *   1. `promotion/count`: every campaign; kept are those that can have statistics (7 completed, 9 active,
 *      11 paused) and were not finished before the period began (changeTime ≥ from, or still running);
 *   2. `fullstats` for ≤ 50 of them over ≤ 31 days, call after call, until every campaign and every
 *      window of the period is read.
 *
 * Each fullstats answer is stored per campaign (part `c<advertId>`, every day of the window, an empty day
 * where the campaign spent nothing), so reading a period twice replaces, never adds. The count call
 * stores an empty part `count` over the whole period: the period is marked as fetched even when no
 * campaign ran.
 */
import {
  createAdvertClient,
  FULLSTATS_MAX_DAYS,
  FULLSTATS_MAX_IDS,
  fullstatsToCosts,
  STATS_STATUSES,
  type AdvertClient,
  type Fullstats,
  type PromotionCount,
} from './advert-client';
import {
  daysOf,
  unansweredStep,
  type CostBatch,
  type CostFetchState,
  type CostSource,
  type CostStepResult,
  type SourceOptions,
} from './costs';
import type { WbOutcome } from '../finance/finance-client';

export const ADVERT_SCOPE_BIT = 6;
export const ADVERT_SCOPE = 'Продвижение';

type Call = { op: 'count' } | { op: 'fullstats'; ids: number[]; from: string; to: string };
interface Memo {
  /** Campaign ids still to read in the current window. */
  ids?: number[];
  /** All kept campaign ids (each window reads them all). */
  all?: number[];
  /** The windows (≤ 31 days) of the period not started yet. */
  windows?: Array<[string, string]>;
  /** The current window. */
  window?: [string, string];
}

/** [from, to] cut into windows of ≤ 31 days. */
export function windowsOf(from: string, to: string, maxDays = FULLSTATS_MAX_DAYS): Array<[string, string]> {
  const days = daysOf(from, to);
  const out: Array<[string, string]> = [];
  for (let i = 0; i < days.length; i += maxDays) out.push([days[i]!, days[Math.min(i + maxDays, days.length) - 1]!]);
  return out;
}

/** The campaigns of a count answer that can have spend in [from, to]. */
export function campaignsFor(count: PromotionCount, from: string): number[] {
  const ids = new Set<number>();
  for (const group of count.adverts ?? []) {
    if (!STATS_STATUSES.includes(group.status)) continue;
    for (const a of group.advert_list) {
      // A completed campaign last changed before the period began spent nothing in it.
      if (group.status === 7 && a.changeTime && a.changeTime.slice(0, 10) < from) continue;
      ids.add(a.advertId);
    }
  }
  return [...ids].sort((a, b) => a - b);
}

function nextFullstats(memo: Memo): CostFetchState {
  let { ids = [], windows = [], window } = memo;
  const all = memo.all ?? [];
  if (ids.length === 0) {
    const w = windows[0];
    if (!w || all.length === 0) return { call: null, memo: {} };
    window = w;
    windows = windows.slice(1);
    ids = all;
  }
  const batch = ids.slice(0, FULLSTATS_MAX_IDS);
  return {
    call: { op: 'fullstats', ids: batch, from: window![0], to: window![1] },
    memo: { all, ids: ids.slice(FULLSTATS_MAX_IDS), windows, window },
  };
}

/** The pure step of the ads source (exported for its tests). */
export function advertNext(
  state: CostFetchState,
  outcome: WbOutcome<unknown>,
  from: string,
  to: string,
  intervalMs: number,
): CostStepResult {
  const call = state.call as Call | null;
  if (!call) return { state, batches: [], waitMs: 0 };
  const unanswered = unansweredStep(state, outcome, intervalMs);
  if (unanswered) return unanswered;
  if (call.op === 'count') {
    const count = outcome.kind === 'ok' ? (outcome.value as PromotionCount) : { adverts: [] };
    const all = campaignsFor(count, from);
    const marker: CostBatch = { part: 'count', from, to, costs: [], revenue: [] };
    return {
      state: nextFullstats({ all, ids: [], windows: windowsOf(from, to) }),
      batches: [marker],
      waitMs: intervalMs,
    };
  }
  const stats = outcome.kind === 'ok' ? (outcome.value as Fullstats) : [];
  const batches: CostBatch[] = call.ids.map((id) => {
    const own = stats.filter((s) => s.advertId === id);
    const { costs, revenue } = fullstatsToCosts(own, call.from, call.to);
    return { part: `c${id}`, from: call.from, to: call.to, costs, revenue };
  });
  return { state: nextFullstats(state.memo as Memo), batches, waitMs: intervalMs };
}

/** The ads cost source for the sync (shared/marketplaces/wb/sync/step-deps.ts wires it with the settings). */
export function advertSource(opts: SourceOptions): CostSource<AdvertClient> {
  return {
    id: 'advert',
    kind: 'ads',
    api: 'advert',
    scopeBit: ADVERT_SCOPE_BIT,
    scopeName: ADVERT_SCOPE,
    pacing: () => ({ intervalMs: opts.intervalMs() }),
    client: (token) => createAdvertClient({ baseUrl: opts.baseUrl(), token, fetch: opts.fetch }),
    first: () => ({ call: { op: 'count' }, memo: {} }),
    call: (client, state) => {
      const call = state.call as Call;
      return call.op === 'count' ? client.promotionCount() : client.fullstats(call.ids, call.from, call.to);
    },
    next: (state, outcome, from, to) => advertNext(state, outcome, from, to, opts.intervalMs()),
  };
}
