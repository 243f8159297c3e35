import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { invocationKeys, log, withRequestLog } from '../../shared/log';
import { publishMetrics } from '../../shared/metrics';
import { getConfig } from '../../shared/config';
import { reportDeps } from '../../shared/reports/deps';
import { runWorkerEvent } from '../../shared/reports/worker/worker';

// Cold start: a missing setting fails the environment's init, naming itself (as route() does for routes).
getConfig();

const event = z.object({
  kind: z.literal('report'),
  user_id: z.string().min(1).max(64),
  report_id: z.string().min(1).max(64),
  task_id: z.string().max(64),
});

/**
 * The report worker (no HTTP route): invoked asynchronously by upload, rebuild, rebuild-many and
 * recovery with {kind: 'report', user_id, report_id, task_id}. A malformed event is logged and dropped
 * (a retry would not fix it); a store outage throws, so Lambda retries the event.
 */
export async function handler(raw: unknown, context?: Partial<Context>): Promise<{ outcome: string }> {
  const keys = invocationKeys(context?.awsRequestId || randomUUID(), context);
  return withRequestLog(keys, async () => {
    try {
      const parsed = event.safeParse(raw);
      if (!parsed.success) {
        log('error', 'worker: malformed event dropped', { issues: parsed.error.issues.map((i) => i.message) });
        return { outcome: 'dropped' };
      }
      // The worker acts for the report's owner: their id goes on every line of this invocation.
      keys.user_id = parsed.data.user_id;
      return { outcome: await runWorkerEvent(reportDeps, parsed.data) };
    } finally {
      publishMetrics();
    }
  });
}
