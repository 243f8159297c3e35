import { z } from 'zod';
import { log } from '../../shared/log';
import { runWorkerEvent } from '../../shared/reports/worker';

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
export async function handler(raw: unknown): Promise<{ outcome: string }> {
  const parsed = event.safeParse(raw);
  if (!parsed.success) {
    log('error', 'worker: malformed event dropped', { issues: parsed.error.issues.map((i) => i.message) });
    return { outcome: 'dropped' };
  }
  return { outcome: await runWorkerEvent(parsed.data) };
}
