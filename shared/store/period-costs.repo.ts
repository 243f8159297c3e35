/**
 * A user's period costs (keys.ts: pk `USER#<userId>`, sk `PCOST#<costId>`): salaries, rent, services…
 * that enter the P&L below the articles (docs/METRICS.md, «P&L by month»). A cost belongs to a seller,
 * or to none (then it counts only in the P&L of all sellers). Money in kopecks.
 */
import { BatchWriteCommand, DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PeriodCostCategory } from '../engine/pnl';
import { ddb, tableName } from './client';
import { isConditionFailed } from './dynamo-errors';
import { PERIOD_COST_PREFIX, periodCostKey } from './keys';
import { parseStored, RECORD_VERSIONS, storedPeriodCost } from './records';

export interface PeriodCostRecord {
  id: string;
  seller_id: string | null;
  name: string;
  category: PeriodCostCategory;
  /** Kopecks; per month for a monthly cost. */
  amount: number;
  kind: 'monthly' | 'one_off';
  /** Monthly: the first month (YYYY-MM) and the last one (null: open). */
  from_month: string | null;
  to_month: string | null;
  /** One-off: the day (YYYY-MM-DD). */
  date: string | null;
  created_at: string;
  updated_at: string;
}

const toItem = (userId: string, c: PeriodCostRecord): Record<string, unknown> => ({
  ...periodCostKey(userId, c.id),
  type: 'period_cost',
  v: RECORD_VERSIONS.period_cost,
  ...c,
});

const fromItem = (item: Record<string, unknown>): PeriodCostRecord => {
  const c = parseStored('period_cost', storedPeriodCost, item);
  return {
    id: c.id,
    seller_id: c.seller_id,
    name: c.name,
    category: c.category,
    amount: c.amount,
    kind: c.kind,
    from_month: c.from_month,
    to_month: c.to_month,
    date: c.date,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

/** Every period cost of the user, oldest first (ids sort by time). */
export async function listPeriodCosts(userId: string): Promise<PeriodCostRecord[]> {
  const out: PeriodCostRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': periodCostKey(userId, 'x').pk, ':p': PERIOD_COST_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const it of r.Items ?? []) out.push(fromItem(it));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Writes a cost; with `mustExist`, only over a stored one (false when there is none). */
export async function putPeriodCost(userId: string, c: PeriodCostRecord, mustExist = false): Promise<boolean> {
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(userId, c),
        ...(mustExist ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
      }),
    );
    return true;
  } catch (e) {
    if (mustExist && isConditionFailed(e)) return false;
    throw e;
  }
}

/** Writes new costs (an import), 25 a batch, unprocessed ones sent again. */
export async function putPeriodCosts(userId: string, costs: readonly PeriodCostRecord[]): Promise<void> {
  for (let i = 0; i < costs.length; i += 25) {
    let pending = costs.slice(i, i + 25).map((c) => ({ PutRequest: { Item: toItem(userId, c) } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= 8) throw new Error('period costs: batch write kept unprocessed items');
      const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (r.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      if (pending.length > 0) await new Promise((res) => setTimeout(res, 50 * 2 ** attempt));
    }
  }
}

/** Deletes a cost; false when there was none. */
export async function deletePeriodCost(userId: string, id: string): Promise<boolean> {
  try {
    await ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: periodCostKey(userId, id),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}
