/**
 * Idempotency records: `IDEMPOTENCY#<scope>#<key>` holds the first result of an operation. The record is
 * written inside the operation's own transaction with `attribute_not_exists`, so a repeated key can
 * never apply twice; a repeat reads the stored result instead.
 */
import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { idempotencyKey, ttlIn } from './keys';

/** One TransactWriteItems element in the document client's shape (plain values, not AttributeValues). */
export type DocTransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Default memory of a key: 30 days. */
export const IDEMPOTENCY_TTL_SECONDS = 30 * 24 * 3600;

/** The transaction element that claims `key` in `scope` and stores `result`. */
export function idempotencyPut(scope: string, key: string, result: unknown, extra: Record<string, unknown> = {}, ttlSeconds: number | null = IDEMPOTENCY_TTL_SECONDS): DocTransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...idempotencyKey(scope, key),
        type: 'idempotency',
        scope,
        ...extra,
        result,
        created_at: new Date().toISOString(),
        ...(ttlSeconds === null ? {} : { ttl: ttlIn(ttlSeconds) }),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The stored result of `key` in `scope`, or null when the key is new. */
export async function getIdempotentResult<T>(scope: string, key: string): Promise<T | null> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: idempotencyKey(scope, key), ConsistentRead: true }));
  return r.Item ? (r.Item.result as T) : null;
}
