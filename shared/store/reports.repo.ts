/**
 * Reading, renaming and deleting report records (report-record.ts has their shape). A record's numbers
 * change through report-numbers.repo.ts, its state through report-lifecycle.repo.ts.
 */
import { BatchGetCommand, DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { hasItems } from '../reports/domain/lifecycle';
import { ddb, tableName } from './client';
import { backoff, sleep } from './dynamo-errors';
import { deleteItems, getItemsOfGen, type StoredItem } from './items.repo';
import { REPORT_PREFIX, reportKey, reportSellerIndex } from './keys';
import { decodeCursor, encodeCursor } from './cursor';
import { fromItem, isReportId, updateReportIf, type ReportRecord } from './report-record';

/**
 * The caller's report with complete items, or null when missing, another user's, malformed id, still
 * being built by its upload, or failed.
 */
export async function getReport(userId: string, reportId: string): Promise<ReportRecord | null> {
  const r = await getReportAnyStatus(userId, reportId);
  return r && hasItems(r) ? r : null;
}

/** Like getReport but also returns a report whose upload is still writing its items. */
export async function getReportAnyStatus(userId: string, reportId: string): Promise<ReportRecord | null> {
  if (!isReportId(reportId)) return null;
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: reportKey(userId, reportId), ConsistentRead: true }),
  );
  return r.Item ? fromItem(r.Item) : null;
}

/**
 * Titles of the caller's reports among `reportIds` (at most 100, one BatchGetItem with retries of the
 * unprocessed keys), by id. An id missing from the answer has no report any more (deleted, undone).
 */
export async function getReportTitles(userId: string, reportIds: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(reportIds.filter(isReportId))].slice(0, 100);
  const out = new Map<string, string>();
  let pending: Record<string, unknown>[] = wanted.map(
    (id) => reportKey(userId, id) as unknown as Record<string, unknown>,
  );
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 12) throw new Error('reports: BatchGet kept returning unprocessed keys');
    if (attempt > 0) await sleep(backoff(attempt));
    const r = await ddb().send(
      new BatchGetCommand({
        RequestItems: {
          [tableName()]: {
            Keys: pending,
            ProjectionExpression: 'id, title',
          },
        },
      }),
    );
    for (const item of r.Responses?.[tableName()] ?? []) out.set(String(item.id), String(item.title ?? ''));
    pending = (r.UnprocessedKeys?.[tableName()]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  return out;
}

export interface ReportPage {
  items: ReportRecord[];
  next_cursor: string | null;
}

export const REPORTS_PAGE_SIZE = 50;

/**
 * The caller's reports, newest first (report ids sort by time), optionally of one seller (gsi1):
 * processing and failed ones too (`ready: true` lists only reports with complete items).
 * The cursor is opaque and carries only a report id: the partition is always the caller's.
 * Malformed cursor → 400 `invalid_cursor`.
 */
export async function listReports(
  userId: string,
  opts: { sellerId?: string; cursor?: string | null; limit?: number; ready?: boolean } = {},
): Promise<ReportPage> {
  const limit = opts.limit ?? REPORTS_PAGE_SIZE;
  const after = opts.cursor ? decodeCursor(opts.cursor, isReportId) : null;
  const base = reportKey(userId, after ?? 'x');
  const bySeller = opts.sellerId !== undefined;
  const items: ReportRecord[] = [];
  let start: Record<string, unknown> | undefined;
  if (after) {
    start = { pk: base.pk, sk: base.sk };
    if (bySeller) Object.assign(start, reportSellerIndex(userId, opts.sellerId as string, after));
  }
  // With `ready`, reports are filtered after the read, so a page may need more than one query.
  let last: string | null = null;
  for (;;) {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        ...(bySeller
          ? {
              IndexName: 'gsi1',
              KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
              ExpressionAttributeValues: {
                ':pk': reportSellerIndex(userId, opts.sellerId as string, 'x').gsi1pk,
                ':prefix': REPORT_PREFIX,
              },
            }
          : {
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
              ExpressionAttributeValues: { ':pk': base.pk, ':prefix': REPORT_PREFIX },
              ConsistentRead: true,
            }),
        ScanIndexForward: false,
        Limit: limit - items.length,
        ExclusiveStartKey: start,
      }),
    );
    for (const row of r.Items ?? []) {
      const rec = fromItem(row);
      last = rec.id;
      if (!opts.ready || hasItems(rec)) items.push(rec);
    }
    start = r.LastEvaluatedKey;
    if (!start || items.length >= limit) break;
  }
  return { items, next_cursor: start && last ? encodeCursor(last) : null };
}

/** Every ready report of the caller (all pages). */
export async function listAllReports(userId: string): Promise<ReportRecord[]> {
  const out: ReportRecord[] = [];
  let cursor: string | null = null;
  do {
    const page: ReportPage = await listReports(userId, { cursor, limit: 200, ready: true });
    out.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** The items of a report's current generation. */
export async function getReportItems(record: ReportRecord): Promise<StoredItem[]> {
  return getItemsOfGen(record.user_id, record.id, record.items_gen ?? 1);
}

/**
 * Renames a report and/or links it to a seller (`seller_id` null unlinks). Numbers are untouched, so
 * `version` is not bumped (a combined report of it does not go stale). The gsi1 attributes (reports by
 * seller) follow the link. Returns the new record, or null when the report is gone or not ready.
 */
export async function updateReportMeta(
  userId: string,
  reportId: string,
  patch: { title?: string; seller_id?: string | null },
): Promise<ReportRecord | null> {
  if (!isReportId(reportId)) return null;
  const sets: string[] = [];
  const removes: string[] = [];
  const names: Record<string, string> = { '#s': 'status' };
  const values: Record<string, unknown> = { ':ready': 'ready' };
  if (patch.title !== undefined) {
    names['#title'] = 'title';
    values[':title'] = patch.title;
    sets.push('#title = :title');
  }
  if (patch.seller_id !== undefined) {
    names['#seller'] = 'seller_id';
    values[':seller'] = patch.seller_id;
    sets.push('#seller = :seller');
    if (patch.seller_id === null) removes.push('gsi1pk', 'gsi1sk');
    else {
      const g = reportSellerIndex(userId, patch.seller_id, reportId);
      values[':g1'] = g.gsi1pk;
      values[':g2'] = g.gsi1sk;
      sets.push('gsi1pk = :g1', 'gsi1sk = :g2');
    }
  }
  if (sets.length === 0) return getReport(userId, reportId);
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: 'attribute_exists(pk) AND (#s = :ready OR attribute_not_exists(#s))',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/**
 * WB's per-article costs are no longer awaited for the report (shared/marketplaces/wb/sync/costs-step.ts):
 * its `costs_pending` removed, whatever its status; nothing when the report is gone. Numbers are untouched.
 */
export async function settleCostsPending(userId: string, reportId: string): Promise<void> {
  if (!isReportId(reportId)) return;
  await updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression: 'REMOVE costs_pending',
    ConditionExpression: 'attribute_exists(pk)',
  });
}

/**
 * Deletes the caller's report: its items (every generation), then the record. Returns the deleted
 * record (for its source file), or null when there was none. The source file is the caller's to delete.
 */
export async function deleteReport(userId: string, reportId: string): Promise<ReportRecord | null> {
  const record = await getReportAnyStatus(userId, reportId);
  if (!record) return null;
  await deleteItems(userId, reportId);
  await ddb().send(new DeleteCommand({ TableName: tableName(), Key: reportKey(userId, reportId) }));
  // A correction committed between the two steps above created its record after the sweep.
  await deleteItems(userId, reportId);
  return record;
}
