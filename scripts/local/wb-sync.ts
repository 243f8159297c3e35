/**
 * The WB sync tick of the local stack: what the EventBridge schedule does on AWS (serverless.yml
 * wbSyncTick, every minute), this process does on an interval with the same use case
 * (shared/marketplaces/wb/sync/step.ts tick). Each step still makes at most one WB call per WB account and interval
 * (WB_CALL_INTERVAL_SECONDS); a tick more often than a minute only picks due steps up sooner. Imported
 * reports go to the worker through serverless-offline's Lambda endpoint, like the API's own invokes.
 * WB is WB_FINANCE_API_URL: the local emulator (`npm run wb:emulator`) or WB itself.
 */
import { stepDeps } from '../../shared/marketplaces/wb/sync/step-deps';
import { tick } from '../../shared/marketplaces/wb/sync/step';
import { everyInterval } from './schedule';

export const LOCAL_WB_TICK_EVERY_MS = 5_000;

/** Starts the interval; `stop` ends it after a tick that is running. */
export function startWbSyncTick(
  everyMs = LOCAL_WB_TICK_EVERY_MS,
  log: (line: string) => void = () => undefined,
): { stop(): Promise<void> } {
  return everyInterval(
    everyMs,
    async () => {
      const r = await tick(stepDeps, {
        // As on AWS (sync-tick.handler.ts TICK_AHEAD_MS): a call due within half a tick is made in this one.
        aheadMs: everyMs / 2,
        onError: (e, c) => log(`WB sync step of ${c.id} failed: ${String(e)}`),
      });
      const active = r.filter((x) => x.result !== 'wait' && x.result !== 'leased');
      if (active.length > 0) log(`WB sync tick: ${active.map((x) => `${x.id} ${x.result}`).join(', ')}`);
    },
    (e) => log(`WB sync tick failed: ${String(e)}`),
  );
}
