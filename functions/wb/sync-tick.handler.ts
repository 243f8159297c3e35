import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { getConfig } from '../../shared/config';
import { describeError, invocationKeys, log, withRequestLog } from '../../shared/log';
import { countMetric, publishMetrics } from '../../shared/metrics';
import { stepDeps } from '../../shared/marketplaces/wb/sync/step-deps';
import { tick } from '../../shared/marketplaces/wb/sync/step';

// Cold start: a missing setting fails the environment's init, naming itself.
getConfig();

/**
 * No step starts after this much of a tick: a step (one WB call, a page of up to 100 000 rows read in
 * ~5 s, docs/PERFORMANCE.md) started by then ends well within the function's 55 s timeout, itself under
 * the schedule's 60 s period, so a tick never overlaps the next; what is left stays due for it.
 */
export const TICK_BUDGET_MS = 25_000;

/**
 * A call due within this long of the tick's start is waited for and made in this tick: the next call of
 * a connection is timed from WB's last answer, moments after the tick that made it, so a minute's tick
 * would otherwise make a read's calls two minutes apart. The wait ends by 10 s, its call by 10 s + the
 * call deadline, within the 55 s timeout.
 */
export const TICK_AHEAD_MS = 10_000;

/**
 * The WB sync tick (no HTTP route): run by an EventBridge schedule every minute. One step of every WB
 * connection that is due (shared/marketplaces/wb/sync/step.ts): each step at most one call to WB, then the
 * connection's due time is written and the next tick takes it from there. A store outage throws; the
 * next tick tries again.
 */
export async function handler(_event: unknown, context?: Partial<Context>): Promise<{ steps: number; failed: number }> {
  const keys = invocationKeys(context?.awsRequestId || randomUUID(), context);
  return withRequestLog(keys, async () => {
    try {
      const results = await tick(stepDeps, {
        budgetMs: TICK_BUDGET_MS,
        aheadMs: TICK_AHEAD_MS,
        onError: (e, conn) => log('error', 'WB sync step failed', { connection_id: conn.id, ...describeError(e) }),
      });
      const failed = results.filter((r) => r.result === 'failed').length;
      const called = results.filter((r) => r.result === 'called').length;
      const deferred = results.filter((r) => r.result === 'deferred').length;
      if (called > 0) countMetric('WbCalls', called);
      // Alarmed (serverless.base.yml WbSyncFailuresAlarm): a failed step is otherwise only a log line.
      if (failed > 0) countMetric('WbSyncStepsFailed', failed);
      if (deferred > 0) countMetric('WbSyncStepsDeferred', deferred);
      if (results.length > 0)
        log(failed > 0 ? 'error' : 'info', 'WB sync tick done', { steps: results.length - deferred, failed, deferred });
      return { steps: results.length - deferred, failed };
    } finally {
      publishMetrics();
    }
  });
}
