/**
 * Sliding-window send counters ("at most 3 mails per hour per address", docs/API.md). One record per
 * (kind, address) holds the timestamps of the sends inside the window. A send is allowed when fewer
 * than `limit` timestamps are younger than the window; the new list is written on the condition that
 * the record is still the version we read, so concurrent requests cannot both take the last slot.
 * The record's `ttl` lets DynamoDB drop it once the window has passed.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { backoff, isConditionFailed, sleep } from './dynamo-errors';
import { throttleKey, ttlIn } from './keys';

export interface ThrottleInput {
  kind: string;
  subject: string;
  limit: number;
  windowSeconds: number;
  now?: number;
}

/** True when a slot was taken (the caller may send); false when the window is full. */
export async function tryConsume(input: ThrottleInput): Promise<boolean> {
  const key = throttleKey(input.kind, input.subject);
  for (let attempt = 0; ; attempt++) {
    const now = input.now ?? Date.now();
    const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    const version = r.Item ? Number(r.Item.version ?? 0) : 0;
    const windowStart = now - input.windowSeconds * 1000;
    const recent = ((r.Item?.sends as number[] | undefined) ?? []).filter((t) => t > windowStart);
    if (recent.length >= input.limit) return false;
    const sends = [...recent, now];
    try {
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            type: 'throttle',
            sends,
            version: version + 1,
            ttl: ttlIn(input.windowSeconds, Math.max(...sends)),
          },
          ConditionExpression: r.Item ? '#v = :v' : 'attribute_not_exists(pk)',
          ExpressionAttributeNames: r.Item ? { '#v': 'version' } : undefined,
          ExpressionAttributeValues: r.Item ? { ':v': version } : undefined,
        }),
      );
      return true;
    } catch (e) {
      if (!isConditionFailed(e) || attempt >= 20) throw e;
      await sleep(backoff(attempt));
    }
  }
}

/** tryConsume with the wait: when the window is full, the seconds until its oldest entry leaves it. */
export async function consumeSlot(input: ThrottleInput): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
  if (await tryConsume(input)) return { ok: true };
  const now = input.now ?? Date.now();
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: throttleKey(input.kind, input.subject), ConsistentRead: true }),
  );
  const recent = ((r.Item?.sends as number[] | undefined) ?? []).filter((t) => t > now - input.windowSeconds * 1000);
  const oldest = recent.length ? Math.min(...recent) : now;
  return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + input.windowSeconds * 1000 - now) / 1000)) };
}

// ---- failure lockout (sign-in) ----------------------------------------------------------------------

/**
 * Failures counted per subject (an address, a source IP) inside a sliding window; from the `free`-th
 * failure on, each one locks the subject for `baseSeconds × 2^(failures − free)`, capped at `maxSeconds`
 * (5 failures → 30 s, 6 → 60 s, … up to 15 minutes); a policy with `baseSeconds: 0` only counts (sign-in
 * paces an address by its count instead of locking it, shared/auth/accounts.ts). Stored as one record with `ttl`, so the state is
 * shared by every Lambda instance and DynamoDB drops it once nothing in it matters.
 */
export interface LockoutPolicy {
  kind: string;
  /** Failures allowed before the first lock. */
  free: number;
  windowSeconds: number;
  baseSeconds: number;
  maxSeconds: number;
}

/** The seconds a subject is still locked for (0: not locked). */
export async function lockedFor(policy: LockoutPolicy, subject: string, now = Date.now()): Promise<number> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: throttleKey(policy.kind, subject), ConsistentRead: true }),
  );
  const until = Number(r.Item?.locked_until ?? 0);
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

/** The failures of a subject still inside the policy's window at `now`. */
export async function failureCount(policy: LockoutPolicy, subject: string, now = Date.now()): Promise<number> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: throttleKey(policy.kind, subject), ConsistentRead: true }),
  );
  const windowStart = now - policy.windowSeconds * 1000;
  return ((r.Item?.failures as number[] | undefined) ?? []).filter((t) => t > windowStart).length;
}

/** Lock length after `failures` failures inside the window (0: none yet; never for `baseSeconds: 0`). */
export function lockSeconds(policy: LockoutPolicy, failures: number): number {
  if (failures < policy.free || policy.baseSeconds <= 0) return 0;
  return Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** Math.min(30, failures - policy.free));
}

/** Counts one failure; returns the lock it starts, in seconds (0: none). */
export async function recordFailure(policy: LockoutPolicy, subject: string, now = Date.now()): Promise<number> {
  const key = throttleKey(policy.kind, subject);
  for (let attempt = 0; ; attempt++) {
    const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    const version = r.Item ? Number(r.Item.version ?? 0) : 0;
    const windowStart = now - policy.windowSeconds * 1000;
    const failures = [...((r.Item?.failures as number[] | undefined) ?? []).filter((t) => t > windowStart), now];
    const lock = lockSeconds(policy, failures.length);
    const lockedUntil = Math.max(Number(r.Item?.locked_until ?? 0), lock > 0 ? now + lock * 1000 : 0);
    try {
      await ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...key,
            type: 'throttle',
            // Only what can still count: the newest failures up to the cap's worth.
            failures: failures.slice(-(policy.free + 32)),
            locked_until: lockedUntil,
            version: version + 1,
            ttl: ttlIn(policy.windowSeconds, Math.max(now, lockedUntil)),
          },
          ConditionExpression: r.Item ? '#v = :v' : 'attribute_not_exists(pk)',
          ExpressionAttributeNames: r.Item ? { '#v': 'version' } : undefined,
          ExpressionAttributeValues: r.Item ? { ':v': version } : undefined,
        }),
      );
      return lock;
    } catch (e) {
      if (!isConditionFailed(e) || attempt >= 20) throw e;
      await sleep(backoff(attempt));
    }
  }
}

/** Forgets a subject's failures (a successful sign-in of that account). */
export async function clearFailures(policy: LockoutPolicy, subject: string): Promise<void> {
  await ddb().send(new DeleteCommand({ TableName: tableName(), Key: throttleKey(policy.kind, subject) }));
}

// ---- known sources (sign-in) ------------------------------------------------------------------------

/** Marks `subject` (an address and source IP that signed in) as known for `seconds`; DynamoDB's ttl ends it. */
export async function markKnown(kind: string, subject: string, seconds: number, now = Date.now()): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...throttleKey(kind, subject),
        type: 'throttle',
        known_until: now + seconds * 1000,
        ttl: ttlIn(seconds, now),
      },
    }),
  );
}

/** Whether `subject` was marked known and the mark has not run out at `now`. */
export async function isKnown(kind: string, subject: string, now = Date.now()): Promise<boolean> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: throttleKey(kind, subject) }));
  return Number(r.Item?.known_until ?? 0) > now;
}
