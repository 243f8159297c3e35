/**
 * Every cost price of the caller's catalog in one paged Query of the product records (keys.ts:
 * `USER#<userId>` / `PRODUCT#<article>`, projection article and cost_price). For checks against a big
 * report (5,000 articles) this is a few requests where a BatchGet by article takes 50, and it needs no
 * article list, so it runs alongside the read of the report's items. Read-only; products.repo.ts owns
 * every write of these records.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { PRODUCT_PREFIX, productKey } from './keys';

export async function allCostPrices(userId: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': productKey(userId, '').pk, ':prefix': PRODUCT_PREFIX },
        ProjectionExpression: 'article, cost_price',
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const i of r.Items ?? []) out.set(String(i.article), Number(i.cost_price ?? 0));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}
