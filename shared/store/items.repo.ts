/**
 * Items of a report, in the report's own partition (keys.ts: pk `ITEMS#<userId>#<reportId>`; item id
 * `<reportId>.<seq>`). The computed items are stored as a few compressed chunks (sk `CHUNK#<first seq>`,
 * format in item-chunks.ts), so a 5,000-article report takes a handful of records instead of 5,000; a
 * manual value is a small record of its own at sk `ITEM#<seq>` (manual_values, effective, rev) laid
 * over the chunk on every read, so a correction stays one small conditional write. (Reports stored
 * before chunks, one whole item per `ITEM#<seq>` record, are rewritten by `npm run migrate`; such a
 * record read here is an error naming its key.)
 *
 * Generations: a rebuild must never leave a report half-replaced, so its new items are written beside
 * the old ones and the report record's `items_gen` is switched in one conditional update afterwards
 * (reports.repo.ts). The generation lives in the sequence number: seq = gen · 1 000 000 + index
 * (index 1…999 999), so generation g occupies one contiguous sort-key range (of chunks and of
 * corrections) and an item id stays `<reportId>.<digits>` as keys.ts expects. Values are stored as
 * ItemValues (integer kopecks).
 */
import { BatchWriteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ComputedItem, ItemValues, ManualValues } from '../engine/types';
import { ddb, queryAll, tableName } from './client';
import { backoff, sleep } from './dynamo-errors';
import { decodeChunk, encodeChunks } from './item-chunks';
import { ITEM_CHUNK_PREFIX, ITEM_PREFIX, itemKey, itemsPartition, reportKey, type Key } from './keys';

/** A stored item: the engine's ComputedItem plus its id (money in kopecks) and its revision (bumped by every correction). */
export type StoredItem = ComputedItem & { item_id: string; rev?: number };

export const GEN_SPAN = 1_000_000;
export const MAX_ITEMS_PER_REPORT = GEN_SPAN - 1;
/** Records deleted by one BatchWriteItem (DynamoDB's maximum). */
const BATCH = 25;
/** Chunks put by one BatchWriteItem (each ≤ 340 KB; a request carries ≤ 16 MB, and small ones retry cheaply). */
const CHUNK_BATCH = 4;
/** BatchWriteItem calls in flight at once: enough to hide latency, few enough not to be throttled into retries. */
const CONCURRENCY = 8;
const MAX_BATCH_ATTEMPTS = 12;

export const itemSeq = (gen: number, index: number): number => gen * GEN_SPAN + index;
export const genOfSeq = (seq: number): number => Math.floor(seq / GEN_SPAN);

function seqSk(seq: number): string {
  return `${ITEM_PREFIX}${String(seq).padStart(6, '0')}`;
}

/** Chunk sort keys carry the chunk's first seq padded to 15 digits, so every generation sorts in order. */
function chunkSk(seq: number): string {
  return `${ITEM_CHUNK_PREFIX}${String(seq).padStart(15, '0')}`;
}

function itemIdOf(reportId: string, seq: number): string {
  return `${reportId}.${String(seq).padStart(6, '0')}`;
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
        out[i] = await tasks[i]!();
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

/** One BatchWriteItem, retrying whatever DynamoDB leaves unprocessed (throttling). */
async function batchWrite(requests: WriteRequest[]): Promise<void> {
  let pending = requests;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error(`BatchWriteItem left ${pending.length} requests unprocessed`);
    if (attempt > 0) await sleep(backoff(attempt) * 2);
    const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
    pending = (r.UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
  }
}

async function writeAll(requests: WriteRequest[], size: number): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += size) chunks.push(requests.slice(i, i + size));
  await pool(
    chunks.map((c) => () => batchWrite(c)),
    CONCURRENCY,
  );
}

/**
 * Writes `items` as generation `gen` of the report, in order (seq 1…n): a few compressed chunks
 * (item-chunks.ts) put with BatchWriteItem. Returns them with their ids. Throws when the report has
 * more items than a generation holds. Writing the same items again puts the same chunks (idempotent).
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
    encodeChunks(items).map((c) => ({
      PutRequest: {
        Item: {
          pk,
          sk: chunkSk(itemSeq(gen, c.first)),
          type: 'item_chunk',
          report_id: reportId,
          first: c.first,
          count: c.count,
          data: c.data,
        },
      },
    })),
    CHUNK_BATCH,
  );
  return stored;
}

/** Sort keys of a generation's correction records. */
function genRange(gen: number): { from: string; to: string } {
  return { from: seqSk(itemSeq(gen, 0)), to: seqSk(itemSeq(gen, MAX_ITEMS_PER_REPORT)) };
}

/** Sort keys of a generation's chunks. */
function chunkRange(gen: number): { from: string; to: string } {
  return { from: chunkSk(itemSeq(gen, 0)), to: chunkSk(itemSeq(gen, MAX_ITEMS_PER_REPORT)) };
}

function seqOfSk(sk: unknown): number {
  if (typeof sk !== 'string') return NaN;
  if (sk.startsWith(ITEM_PREFIX)) return Number(sk.slice(ITEM_PREFIX.length));
  if (sk.startsWith(ITEM_CHUNK_PREFIX)) return Number(sk.slice(ITEM_CHUNK_PREFIX.length));
  return NaN;
}

function bytesOf(row: Record<string, unknown>): Uint8Array {
  if (row.data instanceof Uint8Array) return row.data;
  throw new Error(`Item chunk ${String(row.pk)} / ${String(row.sk)} has no data`);
}

/**
 * A generation's items from its chunk records and its correction records: chunks decoded in order,
 * each item's correction (manual_values, effective, rev) laid over it. A record of the format before
 * chunks is an error naming its key (`npm run migrate` rewrites that format). Exported for the unit tests of the format.
 */
export function assembleItems(
  reportId: string,
  gen: number,
  chunkRows: ReadonlyArray<Record<string, unknown>>,
  itemRows: ReadonlyArray<Record<string, unknown>>,
): StoredItem[] {
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const r of itemRows) {
    if (r.computed !== undefined)
      throw new Error(`Item record ${String(r.pk)} / ${String(r.sk)} is of the format before chunks (npm run migrate)`);
    const seq = seqOfSk(r.sk);
    if (genOfSeq(seq) === gen) byIndex.set(seq - gen * GEN_SPAN, r);
  }
  const out: StoredItem[] = [];
  const chunks = chunkRows
    .filter((r) => genOfSeq(seqOfSk(r.sk)) === gen)
    .sort((a, b) => Number(a.first) - Number(b.first));
  for (const c of chunks) {
    const first = Number(c.first);
    let decoded: ComputedItem[];
    try {
      decoded = decodeChunk(bytesOf(c));
    } catch (e) {
      throw new Error(`Item chunk ${String(c.pk)} / ${String(c.sk)} does not decode: ${String(e)}`);
    }
    decoded.forEach((it, k) => {
      const index = first + k;
      const item: StoredItem = { ...it, item_id: itemIdOf(reportId, itemSeq(gen, index)), rev: 0 };
      const row = byIndex.get(index);
      if (!row) {
        out.push(item);
        return;
      }
      byIndex.delete(index);
      out.push({
        ...item,
        manual_values: (row.manual_values ?? item.manual_values) as ManualValues,
        effective: (row.effective ?? item.effective) as ItemValues,
        rev: Number(row.rev ?? 0),
      });
    });
  }
  return out;
}

/** Items of one generation, in seq order (strongly consistent): its chunks with its corrections laid over. */
export async function getItemsOfGen(userId: string, reportId: string, gen: number): Promise<StoredItem[]> {
  const pk = itemsPartition(userId, reportId);
  const [chunkRows, itemRows] = await Promise.all(
    [chunkRange(gen), genRange(gen)].map(({ from, to }) =>
      queryAll({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
        ConsistentRead: true,
      }),
    ),
  );
  return assembleItems(reportId, gen, chunkRows!, itemRows!);
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
  return m ? m[1]! : null;
}

/**
 * One item of the caller by id (its chunk decoded, its correction laid over); null for a malformed
 * id, a missing item or another user's.
 */
export async function getItem(userId: string, itemId: string): Promise<StoredItem | null> {
  const key = itemKey(userId, itemId);
  const reportId = reportIdOfItem(itemId);
  if (!key || reportId === null) return null;
  const seq = seqOfSk(key.sk);
  const gen = genOfSeq(seq);
  const [own, chunk] = await Promise.all([
    ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true })),
    // The chunk holding seq is the one with the greatest first seq ≤ seq within the generation.
    ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': key.pk, ':from': chunkRange(gen).from, ':to': chunkSk(seq) },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    ),
  ]);
  const items = assembleItems(reportId, gen, chunk.Items ?? [], own.Item ? [own.Item] : []);
  return items.find((i) => i.item_id === itemId) ?? null;
}

/** The generation an item id belongs to (null for a malformed id). */
export function genOfItemId(itemId: string): number | null {
  const m = /^[0-9A-Za-z]+\.(\d{6,})$/.exec(itemId);
  return m ? genOfSeq(Number(m[1])) : null;
}

/** Deletes the report's items (chunks and corrections): one generation, or all of the report when `gen` is omitted. */
export async function deleteItems(userId: string, reportId: string, gen?: number): Promise<number> {
  const pk = itemsPartition(userId, reportId);
  const ranges = gen === undefined ? [null] : [genRange(gen), chunkRange(gen)];
  const found = await Promise.all(
    ranges.map((range) =>
      queryAll({
        TableName: tableName(),
        KeyConditionExpression: range ? 'pk = :pk AND sk BETWEEN :from AND :to' : 'pk = :pk',
        ExpressionAttributeValues: range ? { ':pk': pk, ':from': range.from, ':to': range.to } : { ':pk': pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      }),
    ),
  );
  const keys = found.flat().filter((r) => gen === undefined || genOfSeq(seqOfSk(r.sk)) === gen);
  await writeAll(
    keys.map((k) => ({ DeleteRequest: { Key: { pk: String(k.pk), sk: String(k.sk) } } })),
    BATCH,
  );
  return keys.length;
}
