/**
 * WB's account balance as the sync read it (keys.ts: pk `USER#<userId>`, sk `WBBAL#<as_of ISO>#<wb
 * seller id>`): one record per reading, kept as the history the payout calendar reads (docs/METRICS.md,
 * «Payout calendar»). Money in kopecks. The newest readings come first in one descending Query. The sync
 * keeps a reading when the balance changed, or a day after the last one kept (balance-plan.ts), so the
 * history is its changes (a few a week), not every hourly reading; the connection holds the last time WB
 * said so (`balance.read_at`).
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

/**
 * The readings from `fromIso` on, oldest first, with the last one before it (the value a rise after
 * `fromIso` starts from) and the day of the very first reading (where the history begins).
 */
export async function balancesSince(
  userId: string,
  fromIso: string,
): Promise<{ readings: BalanceRecord[]; firstAt: string | null }> {
  const pk = wbBalanceKey(userId, 'x', 'x').pk;
  const from = `${WB_BALANCE_PREFIX}${fromIso}`;
  const query = async (cond: string, values: Record<string, string>, forward: boolean, limit?: number) => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const r = await ddb().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: `pk = :pk AND ${cond}`,
          ExpressionAttributeValues: { ':pk': pk, ...values },
          ScanIndexForward: forward,
          ExclusiveStartKey: start,
          ...(limit ? { Limit: limit } : {}),
        }),
      );
      items.push(...(r.Items ?? []));
      start = limit ? undefined : r.LastEvaluatedKey;
    } while (start);
    return items.map(parse).filter((b): b is BalanceRecord => b !== null);
  };
  const [first, before, after] = await Promise.all([
    query('begins_with(sk, :p)', { ':p': WB_BALANCE_PREFIX }, true, 1),
    query('sk BETWEEN :p AND :to', { ':p': WB_BALANCE_PREFIX, ':to': from }, false, 1),
    query('sk >= :from', { ':from': from }, true),
  ]);
  const readings = [...before.filter((b) => b.as_of < fromIso), ...after.filter((b) => b.as_of >= fromIso)];
  return { readings, firstAt: first[0]?.as_of ?? null };
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
  return (r.Items ?? []).map(parse).filter((b): b is BalanceRecord => b !== null);
}

function parse(it: Record<string, unknown>): BalanceRecord | null {
  const current = num(it.current);
  const forWithdraw = num(it.for_withdraw);
  if (current === null || forWithdraw === null || typeof it.as_of !== 'string') return null;
  return {
    wb_seller_id: String(it.wb_seller_id ?? ''),
    connection_id: String(it.connection_id ?? ''),
    currency: String(it.currency ?? 'RUB'),
    current,
    for_withdraw: forWithdraw,
    as_of: it.as_of,
  };
}
