/**
 * A user's purchases of goods (keys.ts: pk `USER#<userId>`, sk `PURCH#<purchaseId>`): money paid to a
 * supplier on a day, optionally for an article and a quantity. They enter the cash flow as money out on
 * their day (docs/METRICS.md, «Cash flow»), not the P&L (the cost of goods is counted by the sales).
 * Money in kopecks.
 */
import { BatchWriteCommand, DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { isConditionFailed } from './dynamo-errors';
import { PURCHASE_PREFIX, purchaseKey } from './keys';
import { parseStored, RECORD_VERSIONS, storedPurchase } from './records';

export interface PurchaseRecord {
  id: string;
  seller_id: string | null;
  /** YYYY-MM-DD: the day the money went out. */
  date: string;
  /** Kopecks. */
  amount: number;
  article: string | null;
  quantity: number | null;
  comment: string | null;
  created_at: string;
  updated_at: string;
}

const toItem = (userId: string, p: PurchaseRecord): Record<string, unknown> => ({
  ...purchaseKey(userId, p.id),
  type: 'purchase',
  v: RECORD_VERSIONS.purchase,
  ...p,
});

const fromItem = (item: Record<string, unknown>): PurchaseRecord => {
  const p = parseStored('purchase', storedPurchase, item);
  return {
    id: p.id,
    seller_id: p.seller_id,
    date: p.date,
    amount: p.amount,
    article: p.article,
    quantity: p.quantity,
    comment: p.comment,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
};

/** Every purchase of the user, in the order they were added (ids sort by time). */
export async function listPurchases(userId: string): Promise<PurchaseRecord[]> {
  const out: PurchaseRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': purchaseKey(userId, 'x').pk, ':p': PURCHASE_PREFIX },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const it of r.Items ?? []) out.push(fromItem(it));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Writes a purchase; with `mustExist`, only over a stored one (false when there is none). */
export async function putPurchase(userId: string, p: PurchaseRecord, mustExist = false): Promise<boolean> {
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(userId, p),
        ...(mustExist ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
      }),
    );
    return true;
  } catch (e) {
    if (mustExist && isConditionFailed(e)) return false;
    throw e;
  }
}

/** Writes new purchases (an import), 25 a batch, unprocessed ones sent again. */
export async function putPurchases(userId: string, purchases: readonly PurchaseRecord[]): Promise<void> {
  for (let i = 0; i < purchases.length; i += 25) {
    let pending = purchases.slice(i, i + 25).map((p) => ({ PutRequest: { Item: toItem(userId, p) } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= 8) throw new Error('purchases: batch write kept unprocessed items');
      const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (r.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      if (pending.length > 0) await new Promise((res) => setTimeout(res, 50 * 2 ** attempt));
    }
  }
}

/** Deletes a purchase; false when there was none. */
export async function deletePurchase(userId: string, id: string): Promise<boolean> {
  try {
    await ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: purchaseKey(userId, id),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}
