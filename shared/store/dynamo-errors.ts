/** Reading DynamoDB's failure shapes without depending on the SDK's exception classes. */

export function isConditionFailed(e: unknown): boolean {
  return e instanceof Error && e.name === 'ConditionalCheckFailedException';
}

/**
 * A conditional write (Put, Update or Delete with a ConditionExpression): true when it was written,
 * false when its condition failed; any other error is passed on.
 */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/**
 * For a cancelled TransactWriteItems: one reason code per item in request order ("None",
 * "ConditionalCheckFailed", "TransactionConflict", ...); null when `e` is another error.
 */
export function cancellationCodes(e: unknown): string[] | null {
  if (!(e instanceof Error) || e.name !== 'TransactionCanceledException') return null;
  const reasons = (e as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  if (reasons && reasons.length > 0) return reasons.map((r) => r.Code ?? 'None');
  // DynamoDB Local sometimes leaves CancellationReasons out; its message lists them: "[None, ConditionalCheckFailed]".
  const m = /\[([^\]]*)\]/.exec(e.message);
  return m ? m[1]!.split(',').map((s) => s.trim()) : [];
}

/** Conflicts with a concurrent transaction: safe to retry the whole transaction. */
export function isTransactionConflict(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === 'TransactionConflictException' || e.name === 'TransactionInProgressException') return true;
  const codes = cancellationCodes(e);
  return codes !== null && codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Jittered exponential backoff for optimistic retries (ms), capped. */
export function backoff(attempt: number): number {
  const base = Math.min(200, 5 * 2 ** Math.min(attempt, 6));
  return base / 2 + Math.random() * base;
}
