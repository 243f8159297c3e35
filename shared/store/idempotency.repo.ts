/**
 * Idempotency records: `IDEMPOTENCY#<scope>#<key>` holds the first result of an operation. The record is
 * written inside the operation's own transaction with `attribute_not_exists`, so a repeated key can
 * never apply twice; a repeat reads the stored result instead.
 */
import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unprocessable } from '../errors';
import { ddb, putNew, tableName, type DocTransactItem } from './client';
import { idempotencyKey, ttlIn } from './keys';

/** Default memory of a key: 30 days. */
export const IDEMPOTENCY_TTL_SECONDS = 30 * 24 * 3600;

/** The transaction element that claims `key` in `scope` and stores `result`. */
export function idempotencyPut(
  scope: string,
  key: string,
  result: unknown,
  extra: Record<string, unknown> = {},
  ttlSeconds: number | null = IDEMPOTENCY_TTL_SECONDS,
): DocTransactItem {
  return putNew({
    ...idempotencyKey(scope, key),
    type: 'idempotency',
    scope,
    ...extra,
    result,
    created_at: new Date().toISOString(),
    ...(ttlSeconds === null ? {} : { ttl: ttlIn(ttlSeconds) }),
  });
}

/** The stored record of `key` in `scope` (its result and the extra attributes it was written with), or null. */
export async function getIdempotentRecord<T>(
  scope: string,
  key: string,
): Promise<{ result: T; fingerprint?: string } | null> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: idempotencyKey(scope, key), ConsistentRead: true }),
  );
  if (!r.Item) return null;
  return {
    result: r.Item.result as T,
    ...(typeof r.Item.fingerprint === 'string' ? { fingerprint: r.Item.fingerprint } : {}),
  };
}

/**
 * A hash of what a request asks for (its payload, keys sorted), stored beside the result: a repeat of
 * the key with a different payload is refused instead of silently answered with the first result
 * (issue 12; the rule of Powertools' idempotency utility).
 */
export function payloadHash(payload: unknown): string {
  const canonical = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : Array.isArray(v)
        ? v.map(canonical)
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(payload)))
    .digest('hex');
}

/**
 * The stored result of `key` in `scope` when its payload hash is `hash`, null when the key is new;
 * a key first used with another payload → 422 `idempotency_key_reused`.
 */
export async function getIdempotentResultFor<T>(scope: string, key: string, hash: string): Promise<T | null> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: idempotencyKey(scope, key), ConsistentRead: true }),
  );
  if (!r.Item) return null;
  if (typeof r.Item.payload_hash === 'string' && r.Item.payload_hash !== hash) {
    throw unprocessable(
      'idempotency_key_reused',
      'This Idempotency-Key was already used for a different request; use a new key for a new request',
    );
  }
  return r.Item.result as T;
}
