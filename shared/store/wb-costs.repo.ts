/**
 * A seller's per-day per-nmId costs from WB's other APIs (shared/marketplaces/wb/sources/costs.ts; docs/ARCHITECTURE.md «Data
 * model»): one item per kind, day and origin (`part`: a campaign, a report task), holding the day's
 * kopecks by nmId (and, for ads, the orders WB puts down to them). A fetch of [from, to] writes an item
 * for EVERY day of the range, an empty one where nothing was spent, so a refetch replaces what an
 * earlier one said and a day's presence tells that it was fetched.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { CostBatch } from '../marketplaces/wb/sources/costs';
import type { CostKind } from '../marketplaces/wb/sources/cost-kinds';
import { daysOf } from '../marketplaces/wb/sources/costs';
import { ddb, tableName } from './client';
import { backoff, sleep } from './dynamo-errors';
import { wbCostPartition, wbCostSort } from './keys';

const BATCH = 25;
const MAX_BATCH_ATTEMPTS = 12;

/** The items one batch writes: one per day of its range. */
export function costItems(
  userId: string,
  wbSellerId: string,
  kind: CostKind,
  batch: CostBatch,
  fetchedAt: string,
): Array<Record<string, unknown>> {
  const byDay = new Map<
    string,
    { costs: Record<string, number>; revenue: Record<string, number>; names: Record<string, string> }
  >();
  for (const d of daysOf(batch.from, batch.to)) byDay.set(d, { costs: {}, revenue: {}, names: {} });
  for (const c of batch.costs) {
    const day = byDay.get(c.date);
    if (!day) continue; // outside the fetched range: another fetch's business
    day.costs[c.nmId] = (day.costs[c.nmId] ?? 0) + c.kopecks;
    if (c.vendorCode) day.names[c.nmId] = c.vendorCode;
  }
  for (const r of batch.revenue ?? []) {
    const day = byDay.get(r.date);
    if (!day) continue;
    day.revenue[r.nmId] = (day.revenue[r.nmId] ?? 0) + r.kopecks;
  }
  return [...byDay].map(([date, v]) => ({
    pk: wbCostPartition(userId, wbSellerId),
    sk: wbCostSort(kind, date, batch.part),
    type: 'wb_cost',
    kind,
    date,
    part: batch.part,
    costs: v.costs,
    ...(batch.revenue ? { revenue: v.revenue } : {}),
    ...(Object.keys(v.names).length > 0 ? { names: v.names } : {}),
    fetched_at: fetchedAt,
  }));
}

/** Stores one call's costs (every day of its range, replacing that origin's days). */
export async function putCostBatch(
  userId: string,
  wbSellerId: string,
  kind: CostKind,
  batch: CostBatch,
  fetchedAt: string,
): Promise<void> {
  const items = costItems(userId, wbSellerId, kind, batch, fetchedAt);
  for (let i = 0; i < items.length; i += BATCH) {
    let pending: Array<{ PutRequest: { Item: Record<string, unknown> } }> = items
      .slice(i, i + BATCH)
      .map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} requests unprocessed`);
      if (attempt > 0) await sleep(backoff(attempt) * 2);
      const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (r.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
}

/** A kind's costs over a period, summed by nmId (kopecks), and the days that were fetched. */
export interface PeriodCosts {
  byNm: Record<string, number>;
  /** Orders WB puts down to the ads, by nmId (ads only). */
  revenueByNm: Record<string, number>;
  /** Days of the period with at least one stored item (fetched, even if nothing was spent). */
  days: string[];
  /** The cards' vendor codes where WB's answers gave them (paid storage), by nmId. */
  namesByNm?: Record<string, string>;
}

export async function readPeriodCosts(
  userId: string,
  wbSellerId: string,
  kind: CostKind,
  from: string,
  to: string,
): Promise<PeriodCosts> {
  const byNm: Record<string, number> = {};
  const revenueByNm: Record<string, number> = {};
  const days = new Set<string>();
  const namesByNm: Record<string, string> = {};
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
        ExpressionAttributeValues: {
          ':pk': wbCostPartition(userId, wbSellerId),
          ':a': `${kind}#${from}`,
          ':b': `${kind}#${to}#~`,
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of r.Items ?? []) {
      days.add(String(item.date));
      for (const [nm, k] of Object.entries((item.costs ?? {}) as Record<string, number>))
        byNm[nm] = (byNm[nm] ?? 0) + Number(k);
      for (const [nm, k] of Object.entries((item.revenue ?? {}) as Record<string, number>))
        revenueByNm[nm] = (revenueByNm[nm] ?? 0) + Number(k);
      for (const [nm, code] of Object.entries((item.names ?? {}) as Record<string, string>))
        namesByNm[nm] = String(code);
    }
    start = r.LastEvaluatedKey;
  } while (start);
  return {
    byNm,
    revenueByNm,
    days: [...days].sort(),
    ...(Object.keys(namesByNm).length > 0 ? { namesByNm } : {}),
  };
}
