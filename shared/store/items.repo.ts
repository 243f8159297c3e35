/**
 * Items of a report (keys.ts: pk `ITEMS#<userId>#<reportId>`, sk `ITEM#<seq>`; item id `<reportId>.<seq>`).
 *
 * Generations: a rebuild must never leave a report half-replaced, so its new items are written beside
 * the old ones and the report record's `items_gen` is switched in one conditional update afterwards
 * (reports.repo.ts). The generation lives in the sequence number: seq = gen · 1 000 000 + index
 * (index 1…999 999), so generation g occupies one contiguous sort-key range and an item id stays
 * `<reportId>.<digits>` as keys.ts expects. Values are stored as ItemValues (integer kopecks).
 */
import { BatchWriteCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ComputedItem, ItemValues, ManualValues } from '../report/types';
import { ddb, tableName } from './client';
import { backoff, sleep } from './dynamo-errors';
import { ITEM_PREFIX, itemKey, itemsPartition, reportKey, type Key } from './keys';

/** A stored item: the engine's ComputedItem plus its id (money in kopecks) and its revision (bumped by every correction). */
export type StoredItem = ComputedItem & { item_id: string; rev?: number };

export const GEN_SPAN = 1_000_000;
export const MAX_ITEMS_PER_REPORT = GEN_SPAN - 1;
/** Items written by one BatchWriteItem (DynamoDB's maximum). */
const BATCH = 25;
/** BatchWriteItem calls in flight at once: enough to hide latency, few enough not to be throttled into retries. */
const CONCURRENCY = 8;
const MAX_BATCH_ATTEMPTS = 12;

export const itemSeq = (gen: number, index: number): number => gen * GEN_SPAN + index;
export const genOfSeq = (seq: number): number => Math.floor(seq / GEN_SPAN);

function seqSk(seq: number): string {
  return `${ITEM_PREFIX}${String(seq).padStart(6, '0')}`;
}

function itemIdOf(reportId: string, seq: number): string {
  return `${reportId}.${String(seq).padStart(6, '0')}`;
}

function toStored(row: Record<string, unknown>): StoredItem {
  return {
    item_id: String(row.item_id),
    article: String(row.article ?? ''),
    category: String(row.category ?? ''),
    nm_id: String(row.nm_id ?? ''),
    brand: String(row.brand ?? ''),
    computed: row.computed as ItemValues,
    manual_values: (row.manual_values ?? {}) as ManualValues,
    effective: row.effective as ItemValues,
    rev: Number(row.rev ?? 0),
  };
}

/** Runs `tasks` with at most `limit` in flight; rejects with the first failure after all settled. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < tasks.length && failure === null) {
      const i = next++;
      try {
        out[i] = await tasks[i]();
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  if (failure !== null) throw failure;
  return out;
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/** One BatchWriteItem of ≤ 25 requests, retrying whatever DynamoDB leaves unprocessed (throttling). */
async function batchWrite(requests: WriteRequest[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} requests unprocessed`);
    if (attempt > 0) await sleep(backoff(attempt) * 2);
    const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
    pending = (r.UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
  }
}

async function writeAll(requests: WriteRequest[]): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH) chunks.push(requests.slice(i, i + BATCH));
  await pool(
    chunks.map((c) => () => batchWrite(c)),
    CONCURRENCY,
  );
}

/**
 * Writes `items` as generation `gen` of the report, in order (seq 1…n), with parallel BatchWrite
 * chunks. Returns them with their ids. Throws when the report has more items than a generation holds.
 */
export async function writeItems(
  userId: string,
  reportId: string,
  gen: number,
  items: ReadonlyArray<ComputedItem>,
): Promise<StoredItem[]> {
  if (items.length > MAX_ITEMS_PER_REPORT) throw new Error(`A report holds at most ${MAX_ITEMS_PER_REPORT} items`);
  const pk = itemsPartition(userId, reportId);
  const stored: StoredItem[] = items.map((it, i) => ({
    item_id: itemIdOf(reportId, itemSeq(gen, i + 1)),
    article: it.article,
    category: it.category,
    nm_id: it.nm_id,
    brand: it.brand,
    computed: it.computed,
    manual_values: it.manual_values,
    effective: it.effective,
  }));
  await writeAll(
    stored.map((it, i) => ({
      PutRequest: { Item: { pk, sk: seqSk(itemSeq(gen, i + 1)), type: 'item', report_id: reportId, ...it } },
    })),
  );
  return stored;
}

async function queryAll(input: QueryCommandInput): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    out.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

function genRange(gen: number): { from: string; to: string } {
  return { from: seqSk(itemSeq(gen, 0)), to: seqSk(itemSeq(gen, MAX_ITEMS_PER_REPORT)) };
}

function seqOfSk(sk: unknown): number {
  return typeof sk === 'string' ? Number(sk.slice(ITEM_PREFIX.length)) : NaN;
}

/** Items of one generation, in seq order (strongly consistent). */
export async function getItemsOfGen(userId: string, reportId: string, gen: number): Promise<StoredItem[]> {
  const { from, to } = genRange(gen);
  const rows = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': itemsPartition(userId, reportId), ':from': from, ':to': to },
    ConsistentRead: true,
  });
  // The sort-key range is exact for neighbouring generations; the check guards against leftovers of others.
  return rows.filter((r) => genOfSeq(seqOfSk(r.sk)) === gen).map(toStored);
}

/** The current generation of a report (1 when the record predates generations), or null when there is no report. */
async function currentGen(userId: string, reportId: string): Promise<number | null> {
  const r = await ddb().send(
    new GetCommand({
      TableName: tableName(),
      Key: reportKey(userId, reportId),
      ConsistentRead: true,
      ProjectionExpression: 'items_gen',
    }),
  );
  if (!r.Item) return null;
  return Number(r.Item.items_gen ?? 1);
}

/**
 * The items of the caller's report, in seq order; [] when the report does not exist (or is another
 * user's: the partition embeds the caller's id).
 */
export async function getItems(userId: string, reportId: string, gen?: number): Promise<StoredItem[]> {
  const g = gen ?? (await currentGen(userId, reportId));
  if (g === null) return [];
  return getItemsOfGen(userId, reportId, g);
}

/** The report id an item id belongs to, or null when the id has the wrong shape. */
export function reportIdOfItem(itemId: string): string | null {
  const m = /^([0-9A-Za-z]+)\.(\d{6,})$/.exec(itemId);
  return m ? m[1] : null;
}

/** One item of the caller by id; null for a malformed id, a missing item or another user's. */
export async function getItem(userId: string, itemId: string): Promise<StoredItem | null> {
  const key = itemKey(userId, itemId);
  if (!key) return null;
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return r.Item ? toStored(r.Item) : null;
}

/** The generation an item id belongs to (null for a malformed id). */
export function genOfItemId(itemId: string): number | null {
  const m = /^[0-9A-Za-z]+\.(\d{6,})$/.exec(itemId);
  return m ? genOfSeq(Number(m[1])) : null;
}

/** Deletes the report's items: one generation, or every item of the report when `gen` is omitted. */
export async function deleteItems(userId: string, reportId: string, gen?: number): Promise<number> {
  const pk = itemsPartition(userId, reportId);
  const range = gen === undefined ? null : genRange(gen);
  const rows = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: range ? 'pk = :pk AND sk BETWEEN :from AND :to' : 'pk = :pk',
    ExpressionAttributeValues: range ? { ':pk': pk, ':from': range.from, ':to': range.to } : { ':pk': pk },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
  });
  const keys = rows.filter((r) => gen === undefined || genOfSeq(seqOfSk(r.sk)) === gen);
  await writeAll(keys.map((k) => ({ DeleteRequest: { Key: { pk: String(k.pk), sk: String(k.sk) } } })));
  return keys.length;
}
