/**
 * Acquiring WB bills separately (payment type «Комиссия за организацию платежа с НДС») per card, as a cost
 * source (../costs.ts) over WB's acquiring report (acquiring-client.ts). The fetch of one period is the
 * detailed rows page after page: `rrdId` 0 first, then the last row's rrdId, until WB answers 204.
 *
 * Each page is stored as its own part (`r<rrdId it starts after>`, every day of the period, an empty day
 * where nothing was billed), so reading the period again replaces, never adds; the first page marks the
 * period fetched even when WB has no acquiring report for it. Its kind is `acquiring_billed`: the engine
 * lays it onto the articles of a report whose rows bill acquiring separately (shared/engine/attribution.ts);
 * a report whose rows hold none of it (acquiring inside for_pay) is left to its rows.
 */
import type { WbOutcome } from '../../wb-types';
import {
  unansweredStep,
  type CostFetchState,
  type CostSource,
  type CostStepResult,
  type SourceOptions,
} from '../costs';
import { acquiringToCosts, createAcquiringClient, type AcquiringClient, type AcquiringRow } from './acquiring-client';

/** WB's «Финансы» category (shared/marketplaces/wb/token.ts): the Finance API's own. */
export const ACQUIRING_SCOPE_BIT = 13;
export const ACQUIRING_SCOPE = 'Финансы';

/** The page to read: the period (WB's dateFrom/dateTo, Moscow days) and the rrdId it starts after. */
interface Call {
  from: string;
  to: string;
  rrdId: number;
}

/** The pure step of the acquiring source (exported for its tests). */
export function acquiringNext(
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
  const rows = outcome.kind === 'ok' ? (outcome.value as AcquiringRow[]) : [];
  const part = `r${call.rrdId}`;
  const batch = { part, from, to, costs: acquiringToCosts(rows, from, to) };
  if (rows.length === 0) return { state: { call: null, memo: {} }, batches: [batch], waitMs: intervalMs };
  const last = rows.reduce((m, r) => Math.max(m, r.rrdId), 0);
  // A page that does not move the cursor on would be asked for again and again: WB's answer is wrong.
  if (last <= call.rrdId) return { state, batches: [], waitMs: intervalMs * 2, retry: true };
  return { state: { call: { ...call, rrdId: last }, memo: {} }, batches: [batch], waitMs: intervalMs };
}

/** The acquiring cost source for the sync (registered in ../index.ts). */
export function acquiringSource(opts: SourceOptions): CostSource<AcquiringClient> {
  return {
    id: 'acquiring',
    kind: 'acquiring_billed',
    // Its own budget: WB limits the acquiring report apart from the sales reports (one call a minute each).
    api: 'acquiring',
    scopeBit: ACQUIRING_SCOPE_BIT,
    scopeName: ACQUIRING_SCOPE,
    pacing: () => ({ intervalMs: opts.intervalMs() }),
    // Only a week whose rows bill acquiring separately has an acquiring report to lay out.
    needsRows: true,
    client: (token) => createAcquiringClient({ baseUrl: opts.baseUrl(), token, fetch: opts.fetch }),
    first: (from, to) => ({ call: { from, to, rrdId: 0 }, memo: {} }),
    call: (client, state) => {
      const call = state.call as unknown as Call;
      return client.detailed({ dateFrom: call.from, dateTo: call.to, rrdId: call.rrdId });
    },
    next: (state, outcome, from, to) => acquiringNext(state, outcome, from, to, opts.intervalMs()),
  };
}
