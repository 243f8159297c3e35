/**
 * WB's account balance as the sync read it (keys.ts: pk `USER#<userId>`, sk `WBBAL#<as_of ISO>#<wb
 * seller id>`): one record per reading, kept as the history the payout calendar reads (docs/METRICS.md,
 * «Payout calendar»). Money in kopecks. The newest readings come first in one descending Query.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { WB_BALANCE_PREFIX, wbBalanceKey } from './keys';

export interface BalanceRecord {
  wb_seller_id: string;
  connection_id: string;
  currency: string;
  /** Kopecks: «На балансе». */
  current: number;
  /** Kopecks: «Можно вывести». */
  for_withdraw: number;
  /** ISO time WB answered. */
  as_of: string;
}

/** Keeps one reading. */
export async function putBalance(userId: string, b: BalanceRecord): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...wbBalanceKey(userId, b.as_of, b.wb_seller_id), type: 'wb_balance', ...b },
    }),
  );
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);

/** The user's newest readings (at most `limit`), newest first. */
export async function latestBalances(userId: string, limit = 50): Promise<BalanceRecord[]> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': wbBalanceKey(userId, 'x', 'x').pk, ':p': WB_BALANCE_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const out: BalanceRecord[] = [];
  for (const it of r.Items ?? []) {
    const current = num(it.current);
    const forWithdraw = num(it.for_withdraw);
    if (current === null || forWithdraw === null || typeof it.as_of !== 'string') continue;
    out.push({
      wb_seller_id: String(it.wb_seller_id ?? ''),
      connection_id: String(it.connection_id ?? ''),
      currency: String(it.currency ?? 'RUB'),
      current,
      for_withdraw: forWithdraw,
      as_of: it.as_of,
    });
  }
  return out;
}
