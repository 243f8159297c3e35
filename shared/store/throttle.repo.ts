/**
 * Sliding-window send counters ("at most 3 mails per hour per address", API.md). One record per
 * (kind, address) holds the timestamps of the sends inside the window. A send is allowed when fewer
 * than `limit` timestamps are younger than the window; the new list is written on the condition that
 * the record is still the version we read, so concurrent requests cannot both take the last slot.
 * The record's `ttl` lets DynamoDB drop it once the window has passed.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
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
