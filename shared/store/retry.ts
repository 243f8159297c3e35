/**
 * Throttling is normal on DynamoDB (docs/OPERATIONS.md, "Throttling"). The SDK's standard retry strategy
 * already retries a throttled GetItem, Query, PutItem, UpdateItem or BatchWrite (maxAttempts on the
 * client). It does not retry a TransactWriteItems that DynamoDB cancelled because one of its items was
 * throttled (`ThrottlingError`, `ProvisionedThroughputExceeded`) or met a concurrent transaction
 * (`TransactionConflict`): the SDK sees a TransactionCanceledException, a client error. A cancelled
 * transaction wrote nothing, so sending the same request again is safe; this middleware does that with
 * jittered exponential backoff, a bounded number of times, for every transaction of the process.
 * A cancellation with any other reason (ConditionalCheckFailed above all) is passed on at once: it is an
 * answer, not a hiccup.
 */
import { cancellationCodes } from './dynamo-errors';

const TRANSIENT_CODES = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);
// Retried here: what the SDK's standard strategy leaves alone. Throttled calls (ThrottlingException,
// ProvisionedThroughputExceededException, RequestLimitExceeded) are the SDK's: retrying them here too
// would multiply its attempts.
const TRANSIENT_NAMES = new Set(['TransactionConflictException', 'TransactionInProgressException']);

/** A transaction that a later identical request may not meet: cancelled by throttling or a conflict. */
export function isTransient(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (TRANSIENT_NAMES.has(e.name)) return true;
  const codes = cancellationCodes(e);
  if (!codes || codes.length === 0) return false;
  return codes.some((c) => TRANSIENT_CODES.has(c)) && codes.every((c) => c === 'None' || TRANSIENT_CODES.has(c));
}

export interface RetryOptions {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Backoff before attempt n (n ≥ 1), in ms: full jitter over an exponential ceiling. */
  delayMs?: (attempt: number) => number;
  sleep?: (ms: number) => Promise<void>;
}

export const fullJitter =
  (baseMs = 25, capMs = 2_000, random: () => number = Math.random) =>
  (attempt: number): number =>
    random() * Math.min(capMs, baseMs * 2 ** attempt);

/** The middleware (initialize step: each attempt is serialised and signed anew). */
export function transientRetry(o: RetryOptions) {
  const delay = o.delayMs ?? fullJitter();
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return <A, R>(next: (args: A) => Promise<R>) =>
    async (args: A): Promise<R> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(args);
        } catch (e) {
          if (attempt >= o.attempts || !isTransient(e)) throw e;
          await sleep(delay(attempt));
        }
      }
    };
}
