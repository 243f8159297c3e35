/**
 * WB's call budget for one seller account, as pure time arithmetic (epoch milliseconds in, out).
 * The Finance API allows 1 request per minute per seller account with a burst of 1 (docs/WB-API.md), and
 * a 429 says how long to wait in X-Ratelimit-Retry. Nothing here sleeps: the sync hands the time of the
 * next call to a queue (sync-plan.ts, docs/WB-API.md «Sync without sleeping»).
 */

export interface RatePolicy {
  /** Least time between two calls for one seller account (setting WB_CALL_INTERVAL_SECONDS). */
  intervalMs: number;
  /** Waits after transient failures (5xx, network, timeouts) grow from interval·2 up to this. */
  backoffMaxMs: number;
  /**
   * Failed calls in a row (5xx, network, timeouts, 429, redirects, answers that break the spec) after which
   * the connection shows `error` with WB's status, the last attempt and the next one; it keeps retrying
   * with backoff (setting WB_FAILURES_BEFORE_ERROR).
   */
  maxFailures: number;
  /** The longest wait a 429's Retry-After / X-Ratelimit-Retry is honoured for (setting WB_RETRY_AFTER_MAX_SECONDS). */
  retryAfterMaxMs: number;
}

export const DEFAULT_RATE_POLICY: RatePolicy = {
  intervalMs: 60_000,
  backoffMaxMs: 30 * 60_000,
  maxFailures: 3,
  retryAfterMaxMs: 3_600_000,
};

/** SQS's longest message delay; a longer wait is handed over in several hops. */
export const MAX_HANDOVER_DELAY_SECONDS = 900;

/** The earliest moment the next call may start, given the last one's start. */
export function earliestCall(lastCallAt: number | null, policy: RatePolicy): number {
  return lastCallAt === null ? 0 : lastCallAt + policy.intervalMs;
}

/**
 * After a 429: not before WB's X-Ratelimit-Retry has passed, and never sooner than the interval; a wait
 * over `retryAfterMaxMs` (or not a finite number) is that cap, so no answer can push the next call out of reach.
 */
export function afterRateLimited(now: number, retryAfterSeconds: number, policy: RatePolicy): number {
  const asked = Number.isFinite(retryAfterSeconds) ? Math.max(0, Math.ceil(retryAfterSeconds * 1000)) : Infinity;
  const retryMs = Math.min(asked, policy.retryAfterMaxMs);
  return now + Math.max(retryMs, policy.intervalMs);
}

/** After the n-th transient failure in a row (n ≥ 1): interval·2^n, at most backoffMaxMs (never below interval). */
export function afterFailure(now: number, failures: number, policy: RatePolicy): number {
  const wait = Math.min(policy.intervalMs * 2 ** Math.max(1, failures), policy.backoffMaxMs);
  return now + Math.max(wait, policy.intervalMs);
}

/** Delay for the hand-over message (SQS DelaySeconds): the wait rounded up, 0…900. */
export function handoverDelaySeconds(nextCallAt: number, now: number): number {
  const s = Math.ceil((nextCallAt - now) / 1000);
  return Math.min(MAX_HANDOVER_DELAY_SECONDS, Math.max(0, s));
}
