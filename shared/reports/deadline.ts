/**
 * The honest deadline of a request that starts work (upload, rebuild, rebuild-many, combine, recombine):
 * it answers within its budget (HttpRequest.budgetMs: REQUEST_DEADLINE_MS, or the Lambda's remaining
 * time) whatever the stores do. The use case races its work against the budget; when the budget runs
 * out first it answers with what is already settled — 202 with the report it charged or the task it
 * started — or 503 `try_again` when it has charged and started nothing. The work is not abandoned: it
 * goes on in the background, and whatever it commits late is made whole by the same means as a crash
 * (the idempotency claims answer a repeat with the report; the recovery sweep hands a `processing`
 * report whose lease ran out to a worker, recover.ts).
 */
import { appError } from '../errors';
import { describeError, log } from '../log';

export const LATE: unique symbol = Symbol('late');

/** 503 `try_again`: the request ran out of time before it charged or started anything. */
export const tryAgain = () =>
  appError('try_again', 'The request ran out of time before it charged or started anything; try again');

/**
 * `work`'s value, or LATE when `budgetMs` passes first (no budget: simply the work). A late work's
 * failure is logged (nobody else awaits it); its success needs nothing more.
 */
export async function beforeDeadline<T>(
  work: Promise<T>,
  budgetMs: number | undefined,
  what: string,
): Promise<T | typeof LATE> {
  if (budgetMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const expired = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => {
      late = true;
      resolve(LATE);
    }, budgetMs);
  });
  work.catch((e: unknown) => {
    if (late) log('warn', `${what} failed after its request answered`, describeError(e));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    if (late) log('warn', `${what}: request deadline reached`, { budget_ms: budgetMs });
  }
}
