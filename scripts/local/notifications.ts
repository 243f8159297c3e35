/**
 * The notifications' delivery tick of the local stack: what the EventBridge schedule does on AWS
 * (serverless.yml notificationsTick, every minute), this process does on an interval with the same use
 * case (shared/notifications/deliver.ts): new events into deliveries, due ones sent by mail (the SES
 * emulator) and Telegram (the Telegram emulator, or TELEGRAM_API_URL). The weekly digest is not
 * scheduled locally: `npm run digest -- --now` sends it.
 */
import { notificationsTick } from '../../shared/notifications/deliver';
import { deliverDeps } from '../../shared/notifications/deliver-deps';
import { everyInterval } from './schedule';

export const LOCAL_NOTIFICATIONS_EVERY_MS = 2_000;

/** Starts the interval; `stop` ends it after a tick that is running. */
export function startNotificationsTick(
  everyMs = LOCAL_NOTIFICATIONS_EVERY_MS,
  log: (line: string) => void = () => undefined,
): { stop(): Promise<void> } {
  return everyInterval(
    everyMs,
    async () => {
      const r = await notificationsTick(deliverDeps());
      if (r.sent + r.failed + r.retried > 0)
        log(`notifications tick: ${r.sent} sent, ${r.retried} to retry, ${r.failed} failed, ${r.held} held`);
    },
    (e) => log(`notifications tick failed: ${String(e)}`),
  );
}
