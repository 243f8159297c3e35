import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { getConfig } from '../../shared/config';
import { invocationKeys, log, withRequestLog } from '../../shared/log';
import { countMetric, publishMetrics } from '../../shared/metrics';
import { loadSecrets } from '../../shared/secrets';
import { notificationsTick, type TickResult } from '../../shared/notifications/deliver';
import { deliverDeps } from '../../shared/notifications/deliver-deps';

// Cold start: a missing setting fails the environment's init, naming itself.
getConfig();

/**
 * The notifications' delivery tick (no HTTP route): run by an EventBridge schedule every minute
 * (shared/notifications/deliver.ts). A store outage throws; the next tick takes the same deliveries.
 */
export async function handler(_event: unknown, context?: Partial<Context>): Promise<TickResult> {
  const keys = invocationKeys(context?.awsRequestId || randomUUID(), context);
  return withRequestLog(keys, async () => {
    try {
      // The bot's token (SSM on AWS; cached by Powertools for its max age): Telegram is wired when set.
      await loadSecrets(['telegramBot']);
      const r = await notificationsTick(deliverDeps());
      if (r.sent > 0) countMetric('NotificationsSent', r.sent);
      if (r.failed > 0) countMetric('NotificationsFailed', r.failed);
      if (r.expanded + r.sent + r.held + r.retried + r.failed > 0)
        log(r.failed > 0 ? 'warn' : 'info', 'notifications tick done', { ...r });
      return r;
    } finally {
      publishMetrics();
    }
  });
}
