/**
 * The recovery sweep of the local stack: what the EventBridge schedule does on AWS (serverless.yml
 * reportsSweep, every 5 minutes), this process does on an interval with the same use case
 * (shared/reports/worker/recover.ts sweepPendingReports). A report the worker was handed (re-invokes) runs
 * through serverless-offline's Lambda endpoint, like the API's own invokes.
 */
import { recoverDeps } from '../../shared/reports/worker/recover-deps';
import { sweepPendingReports } from '../../shared/reports/worker/recover';
import { everyInterval } from './schedule';

/** Locally a minute: a crashed run is picked up soon, the emulator barely notices. */
export const LOCAL_SWEEP_EVERY_MS = 60_000;

/** Starts the interval; `stop` ends it after a sweep that is running. */
export function startSweep(
  everyMs = LOCAL_SWEEP_EVERY_MS,
  log: (line: string) => void = () => undefined,
): { stop(): Promise<void> } {
  return everyInterval(
    everyMs,
    async () => {
      const r = await sweepPendingReports(recoverDeps);
      if (r.recovered > 0 || r.errors > 0) log(`recovery sweep: ${JSON.stringify(r)}`);
    },
    (e) => log(`recovery sweep failed: ${String(e)}`),
  );
}
