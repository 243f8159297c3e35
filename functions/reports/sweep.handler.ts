import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { getConfig } from '../../shared/config';
import { invocationKeys, log, withRequestLog } from '../../shared/log';
import { countMetric, publishMetrics } from '../../shared/metrics';
import { recoverDeps } from '../../shared/reports/worker/recover-deps';
import { sweepPendingReports, type ScheduledSweepResult } from '../../shared/reports/worker/recover';

// Cold start: a missing setting fails the environment's init, naming itself (as route() does for routes).
getConfig();

/**
 * The recovery sweep (no HTTP route): run by an EventBridge schedule every 5 minutes. Every user's
 * reports whose worker died are handed to a new worker, or, after the last attempt, failed and refunded
 * (an upload) or ended as they were (a rebuild) — shared/reports/worker/recover.ts sweepPendingReports. A
 * store outage throws; the next run tries again.
 */
export async function handler(_event: unknown, context?: Partial<Context>): Promise<ScheduledSweepResult> {
  const keys = invocationKeys(context?.awsRequestId || randomUUID(), context);
  return withRequestLog(keys, async () => {
    try {
      const r = await sweepPendingReports(recoverDeps);
      if (r.recovered > 0) countMetric('ReportsRecovered', r.recovered);
      log(r.errors > 0 ? 'error' : 'info', 'recovery sweep done', { ...r });
      return r;
    } finally {
      publishMetrics();
    }
  });
}
