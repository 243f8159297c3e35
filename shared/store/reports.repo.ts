/**
 * Report records (keys.ts: pk `USER#<userId>`, sk `REPORT#<reportId>`, gsi1 by seller). A record holds
 * the report's metadata, snapshot settings and its report-level numbers (totals, commission by
 * category, warnings: kopecks); its items live in their own partition (items.repo.ts).
 *
 * Lifecycle: an upload puts the record with `status: 'building'` inside the limits transaction, writes
 * the items, then marks it `ready`; reads treat a building report as not there yet. A building record
 * is also listed in the sparse gsi2 (keys.ts) until it is ready, so an upload whose process died can be
 * found and undone (shared/reports/recover.ts): the undo first claims the record (`recovering_at`),
 * after which it can never become ready, and deletes it last, so it stays the durable to-do until the
 * refund and the cleanup are done. A report built
 * without a charge (combine) is written items first, record last, so it appears complete or not at all.
 * Every change of totals or items goes through `version` (optimistic concurrency): a correction and a
 * rebuild of the same report never overwrite each other's numbers silently.
 */
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { AllocationSummary } from '../engine/allocation';
import type {
  CategoryCommission,
  ComputedItem,
  ItemValues,
  ReportFormat,
  ReportWarning,
  TaxProfile,
} from '../engine/types';
import { ddb, putNew, tableName, type DocTransactItem } from './client';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { GSI2 } from './table';
import {
  backoff,
  cancellationCodes,
  conditionHeld,
  isConditionFailed,
  isTransactionConflict,
  sleep,
} from './dynamo-errors';
import { deleteItems, getItemsOfGen, writeItems, type StoredItem } from './items.repo';
import { REPORT_PREFIX, itemKey, newId, reportBuildingIndex, reportKey, reportSellerIndex } from './keys';
import { decodeCursor, encodeCursor } from './cursor';

export type { StoredItem } from './items.repo';

/**
 * `processing`: charged, being built by the worker (upload) or re-built (rebuild: its items of the
 * current generation stay readable); `ready`; `failed`: the upload could not be built and was refunded.
 * `building` is the state of uploads made before the worker existed (recover.ts undoes them).
 */
export type ReportStatus = 'building' | 'processing' | 'ready' | 'failed';

/** What the worker is doing to a `processing` report. */
export type ReportTask = 'upload' | 'rebuild';

/** Progress of a processing report, as the worker last saved it (heartbeat). */
export interface ReportProgress {
  step: 'queued' | 'reading' | 'pricing' | 'writing' | 'finishing';
  rows_read: number;
  rows_total: number;
  items_written: number;
  items_total: number;
}

export interface ReportFailure {
  code: string;
  message: string;
}

/** The outcome of the last rebuild done by the worker (the report stays `ready` when it fails). */
export interface LastRebuild {
  task_id: string;
  finished_at: string;
  /** Corrections whose article is gone (storage units), at most MAX_DROPPED_KEPT. */
  dropped: Array<{ article: string; field: string; value: number }>;
  error?: ReportFailure;
}

/** A stored report (money in kopecks). */
export interface ReportRecord {
  id: string;
  user_id: string;
  title: string;
  report_number: string | null;
  seller_id: string | null;
  period_from: string | null;
  period_to: string | null;
  rows: number;
  /** null for a combined report (no file). */
  format: ReportFormat | null;
  is_combined: boolean;
  source_report_ids?: string[];
  /** An uploaded report's identity (shared/reports/report-identity.ts); absent on combined and older reports. */
  identity?: string | null;
  /** A combined report: each source as it was combined (its `version` and `rebuilt_at` then). */
  sources?: CombinedSource[];
  /** A combined report: what it covers, nested combined reports flattened (report-identity.ts coverOf). */
  covers?: string[];
  /** S3 key of the stored source file (`sources/<user_id>/<report_id>/<name>`), null without one. */
  source_path: string | null;
  source_name: string | null;
  source_size: number | null;
  created_at: string;
  rebuilt_at?: string;
  tax_profile: TaxProfile;
  /** How the «Без артикула» costs were spread (kopecks); absent on reports built before allocation existed. */
  allocation?: AllocationSummary;
  totals: ItemValues;
  commission_by_category: CategoryCommission[];
  warnings: ReportWarning[];
  item_count: number;
  /** Current item generation (items.repo.ts); set by this repository. */
  items_gen?: number;
  /** Bumped by every change of items or totals; set by this repository. */
  version?: number;
  status?: ReportStatus;
  /** While `processing`: what the worker does, its progress, its lease (epoch ms) and attempts so far. */
  task?: ReportTask;
  task_id?: string;
  progress?: ReportProgress;
  lease_owner?: string;
  lease_until?: number;
  attempts?: number;
  /** When `failed`: why (code and Russian message), and the rows given back. */
  error?: ReportFailure;
  refunded_rows?: number;
  last_rebuild?: LastRebuild;
}

/** A source of a combined report as it was read when the combined report was (re)built. */
export interface CombinedSource {
  id: string;
  version: number;
  rebuilt_at: string | null;
}

/** Warnings kept on the record: a hostile file must not push the record past DynamoDB's 400 KB. */
export const MAX_WARNINGS = 50;
/** Categories kept on the record, biggest realization first (the list arrives sorted). */
export const MAX_CATEGORIES = 500;

/** Report ids are newId() strings; anything else is not a report of anyone (→ 404 at the route). */
export function isReportId(id: unknown): id is string {
  return typeof id === 'string' && /^[0-9A-Za-z]{1,64}$/.test(id);
}

export const newReportId = (): string => newId();

function capped(record: ReportRecord): ReportRecord {
  return {
    ...record,
    warnings: record.warnings.slice(0, MAX_WARNINGS),
    commission_by_category: record.commission_by_category.slice(0, MAX_CATEGORIES),
  };
}

function toItem(record: ReportRecord): Record<string, unknown> {
  const r = capped(record);
  return {
    ...reportKey(r.user_id, r.id),
    ...(r.seller_id ? reportSellerIndex(r.user_id, r.seller_id, r.id) : {}),
    type: 'report',
    ...r,
    items_gen: r.items_gen ?? 1,
    version: r.version ?? 1,
    status: r.status ?? 'ready',
  };
}

function fromItem(item: Record<string, unknown>): ReportRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _g3, gsi2sk: _g4, type: _t, ...rest } = item;
  const r = rest as unknown as ReportRecord;
  return { ...r, items_gen: Number(r.items_gen ?? 1), version: Number(r.version ?? 1), status: r.status ?? 'ready' };
}

/** A conditional update of one report record: the record after it, or null when its condition failed. */
async function updateReportIf(
  input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>,
): Promise<ReportRecord | null> {
  try {
    const r = await ddb().send(new UpdateCommand({ TableName: tableName(), ...input, ReturnValues: 'ALL_NEW' }));
    return r.Attributes ? fromItem(r.Attributes) : null;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/** Whether a report has complete items: ready, or being rebuilt (its current generation stays readable). */
export function hasItems(r: ReportRecord): boolean {
  return r.status === 'ready' || (r.status === 'processing' && r.task === 'rebuild');
}

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
 * processing and failed ones too (`building`, the pre-worker state, is hidden; `ready: true` lists only
 * reports with complete items).
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
  // Building reports are filtered out after the read, so a page may need more than one query.
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
      if (opts.ready ? hasItems(rec) : rec.status !== 'building') items.push(rec);
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

/**
 * The Put of a new report record for a caller's transaction (chargeLimits' extraItems): the record in
 * state `building` (listed in gsi2 by its created_at), on the condition that the id is new.
 */
export function reportPutTransactItem(record: ReportRecord): DocTransactItem {
  return putNew({
    ...toItem({ ...record, status: 'building', items_gen: 1, version: 1 }),
    ...reportBuildingIndex(record.user_id, record.created_at),
  });
}

/**
 * Marks a building report ready (its items are all written) and takes it out of gsi2. Refused
 * (ConditionalCheckFailedException) when the record is gone or an undo has claimed it.
 */
export async function markReportReady(userId: string, reportId: string): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: reportKey(userId, reportId),
      UpdateExpression: 'SET #s = :ready REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(recovering_at)',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':ready': 'ready' },
    }),
  );
}

/** What undoing an unfinished upload needs to know of its record. */
export interface BuildingReport {
  id: string;
  rows: number;
  source_path: string | null;
  created_at: string;
}

/**
 * The caller's reports still `building` that were created before `before` (ISO time), oldest first,
 * at most `limit`. Read from the sparse gsi2, so it costs next to nothing when there are none; the
 * index is eventually consistent, so a listed report may be ready or gone by now: act on it only
 * through claimBuildingReport.
 */
export async function listBuildingReports(userId: string, before: string, limit: number): Promise<BuildingReport[]> {
  const index = reportBuildingIndex(userId, before);
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: GSI2,
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
      ExpressionAttributeValues: { ':pk': index.gsi2pk, ':before': index.gsi2sk },
      ProjectionExpression: 'id, #rows, source_path, created_at',
      ExpressionAttributeNames: { '#rows': 'rows' },
      Limit: limit,
    }),
  );
  return (r.Items ?? []).map((i) => ({
    id: String(i.id),
    rows: Number(i.rows),
    source_path: typeof i.source_path === 'string' ? i.source_path : null,
    created_at: String(i.created_at),
  }));
}

/**
 * Claims a building report for undoing: sets `recovering_at`, after which markReportReady refuses it.
 * Claiming again (a second undo, or one resuming an interrupted undo) succeeds too. Returns the record
 * (consistent), or null when it is not building: ready, or gone.
 */
export async function claimBuildingReport(
  userId: string,
  reportId: string,
  now = new Date(),
): Promise<ReportRecord | null> {
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression: 'SET recovering_at = if_not_exists(recovering_at, :now)',
    ConditionExpression: 'attribute_exists(pk) AND #s = :building',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: { ':now': now.toISOString(), ':building': 'building' },
  });
}

/**
 * Deletes the record of a building report, the last step of an undo (its items, charge and source are
 * the caller's to undo before). False when it is not building anymore or already gone.
 */
export async function deleteBuildingReport(userId: string, reportId: string): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: reportKey(userId, reportId),
        ConditionExpression: '#s = :building',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':building': 'building' },
      }),
    ),
  );
}

/**
 * Creates a complete report without a charge (e.g. a combined report: is_combined, source_report_ids,
 * no source): items first, then the record, so readers see all of it or nothing. If the record put
 * fails, the written items are deleted. Returns the stored record and items.
 */
export async function createReport(
  record: ReportRecord,
  items: ReadonlyArray<ComputedItem>,
): Promise<{ record: ReportRecord; items: StoredItem[] }> {
  const stored = await writeItems(record.user_id, record.id, 1, items);
  const full: ReportRecord = { ...record, item_count: items.length, items_gen: 1, version: 1, status: 'ready' };
  try {
    await ddb().send(
      new PutCommand({ TableName: tableName(), Item: toItem(full), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (e) {
    await deleteItems(record.user_id, record.id, 1).catch(() => undefined);
    throw e;
  }
  return { record: capped(full), items: stored };
}

/** Fields of a report that may change after it is created. */
export type ReportPatch = Partial<
  Pick<
    ReportRecord,
    | 'title'
    | 'totals'
    | 'commission_by_category'
    | 'warnings'
    | 'tax_profile'
    | 'allocation'
    | 'rebuilt_at'
    | 'item_count'
    | 'rows'
    | 'period_from'
    | 'period_to'
    | 'report_number'
    | 'format'
    | 'source_report_ids'
    | 'sources'
    | 'covers'
  >
>;

/**
 * Applies `patch` when the record still has `expectedVersion` (and bumps it). Returns the new record,
 * or null when the report is gone or changed meanwhile (the caller re-reads and retries).
 */
export async function updateReport(
  userId: string,
  reportId: string,
  expectedVersion: number,
  patch: ReportPatch,
): Promise<ReportRecord | null> {
  const sets: string[] = ['#version = :next'];
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':next': expectedVersion + 1, ':expected': expectedVersion };
  const capPatch: ReportPatch = { ...patch };
  if (capPatch.warnings) capPatch.warnings = capPatch.warnings.slice(0, MAX_WARNINGS);
  if (capPatch.commission_by_category)
    capPatch.commission_by_category = capPatch.commission_by_category.slice(0, MAX_CATEGORIES);
  for (const [k, v] of Object.entries(capPatch)) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression:
      'attribute_exists(pk) AND (#version = :expected OR (attribute_not_exists(#version) AND :expected = :one))',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...values, ':one': 1 },
  });
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

export interface ItemCorrection {
  userId: string;
  reportId: string;
  itemId: string;
  manual: Record<string, number>;
  effective: Record<string, number | null>;
  /** The item's `rev` and the report's `version` this correction was computed from. */
  expectedRev: number;
  expectedVersion: number;
  /** The report's recomputed totals and commission by category, with the corrected item in them. */
  patch: Pick<ReportPatch, 'totals' | 'commission_by_category'>;
}

/**
 * A manual value and the report's new totals in ONE transaction: both are written or neither, so the
 * report's totals always equal the sum of its items. 'item_changed' / 'report_changed' when the item's
 * rev or the report's version moved meanwhile (the caller recomputes and tries again); 'missing' when
 * the report is gone. The item write is the item's small correction record, never its chunk.
 */
export async function saveItemCorrection(
  c: ItemCorrection,
): Promise<'ok' | 'item_changed' | 'report_changed' | 'missing'> {
  const key = itemKey(c.userId, c.itemId);
  if (!key) return 'missing';
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: key,
              // The item's correction record (items.repo.ts), created by its first correction. That the item
              // exists in the report's current generation is the caller's check; the report's version
              // below guarantees the generation has not changed since.
              UpdateExpression:
                'SET manual_values = :m, effective = :e, rev = :next, #type = if_not_exists(#type, :type), report_id = :r',
              ConditionExpression: 'rev = :rev OR (attribute_not_exists(rev) AND :rev = :zero)',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: {
                ':m': c.manual,
                ':e': c.effective,
                ':rev': c.expectedRev,
                ':next': c.expectedRev + 1,
                ':zero': 0,
                ':type': 'item_correction',
                ':r': c.reportId,
              },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: reportKey(c.userId, c.reportId),
              UpdateExpression: 'SET #version = :next, totals = :t, commission_by_category = :c',
              ConditionExpression:
                'attribute_exists(pk) AND (#version = :expected OR (attribute_not_exists(#version) AND :expected = :one))',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: {
                ':next': c.expectedVersion + 1,
                ':expected': c.expectedVersion,
                ':one': 1,
                ':t': c.patch.totals,
                ':c': (c.patch.commission_by_category ?? []).slice(0, MAX_CATEGORIES),
              },
            },
          },
        ],
      }),
    );
    return 'ok';
  } catch (e) {
    if (isTransactionConflict(e)) return 'report_changed';
    const codes = cancellationCodes(e);
    if (codes === null) throw e;
    const [item, report] = [codes[0] === 'ConditionalCheckFailed', codes[1] === 'ConditionalCheckFailed'];
    if (!item && !report) throw e;
    const stillReport = await ddb().send(
      new GetCommand({
        TableName: tableName(),
        Key: reportKey(c.userId, c.reportId),
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    if (!stillReport.Item) return 'missing';
    return item ? 'item_changed' : 'report_changed';
  }
}

/**
 * Replaces a report's items (rebuild): writes them as the next generation, then switches the record to
 * it together with `patch`, on the condition that the record still has `expectedVersion`; the old
 * generation is deleted afterwards. When the switch fails (the report changed or went away), the new
 * items are deleted and null is returned: the report is exactly as before.
 */
export async function replaceItems(
  record: ReportRecord,
  items: ReadonlyArray<ComputedItem>,
  patch: ReportPatch,
): Promise<{ record: ReportRecord; items: StoredItem[] } | null> {
  const oldGen = record.items_gen ?? 1;
  const gen = oldGen + 1;
  // Leftovers of an interrupted earlier attempt at this generation would mix into it.
  await deleteItems(record.user_id, record.id, gen);
  let stored: StoredItem[];
  try {
    stored = await writeItems(record.user_id, record.id, gen, items);
  } catch (e) {
    await deleteItems(record.user_id, record.id, gen).catch(() => undefined);
    throw e;
  }
  const expected = record.version ?? 1;
  const names: Record<string, string> = { '#version': 'version', '#gen': 'items_gen', '#count': 'item_count' };
  const values: Record<string, unknown> = {
    ':next': expected + 1,
    ':expected': expected,
    ':gen': gen,
    ':count': items.length,
    ':one': 1,
  };
  const sets = ['#version = :next', '#gen = :gen', '#count = :count'];
  const capPatch: ReportPatch = { ...patch };
  if (capPatch.warnings) capPatch.warnings = capPatch.warnings.slice(0, MAX_WARNINGS);
  if (capPatch.commission_by_category)
    capPatch.commission_by_category = capPatch.commission_by_category.slice(0, MAX_CATEGORIES);
  delete capPatch.item_count;
  for (const [k, v] of Object.entries(capPatch)) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  let updated: ReportRecord;
  try {
    const r = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(record.user_id, record.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression:
          'attribute_exists(pk) AND (#version = :expected OR (attribute_not_exists(#version) AND :expected = :one))',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    updated = fromItem(r.Attributes ?? {});
  } catch (e) {
    await deleteItems(record.user_id, record.id, gen).catch(() => undefined);
    if (isConditionFailed(e)) return null;
    throw e;
  }
  await deleteItems(record.user_id, record.id, oldGen);
  return { record: updated, items: stored };
}

/** The items of a report's current generation. */
export async function getReportItems(record: ReportRecord): Promise<StoredItem[]> {
  return getItemsOfGen(record.user_id, record.id, record.items_gen ?? 1);
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

// ---------------------------------------------------------------------------------------------
// Work state of the report worker (shared/reports/worker.ts). A processing report is listed in gsi2
// (like `building` ones) so recover.ts finds it when its worker died; every transition is a
// conditional update, so two workers (an async event delivered twice, a retry racing a recovery) can
// never both own a report, and a finished or failed report never goes back to processing.

/** Corrections dropped by a rebuild kept on the record (a hostile rebuild must not grow it past 400 KB). */
export const MAX_DROPPED_KEPT = 200;

const PROCESSING_CLEANUP = 'REMOVE gsi2pk, gsi2sk, lease_owner, lease_until, progress, task';

export function queuedProgress(rowsTotal: number): ReportProgress {
  return { step: 'queued', rows_read: 0, rows_total: rowsTotal, items_written: 0, items_total: 0 };
}

/**
 * The Put of a new uploaded report for the charge's transaction: `processing` (task upload), listed in
 * gsi2, with a lease that expires `leaseMs` from now unless a worker claims it first (so an invoke
 * that was lost is noticed by recovery), on the condition that the id is new.
 */
export function processingReportPut(record: ReportRecord, taskId: string, leaseMs: number): DocTransactItem {
  return putNew({
    ...toItem({
      ...record,
      status: 'processing',
      task: 'upload',
      task_id: taskId,
      progress: queuedProgress(record.rows),
      lease_until: Date.now() + leaseMs,
      attempts: 0,
      items_gen: 1,
      version: 1,
    }),
    ...reportBuildingIndex(record.user_id, record.created_at),
  });
}

/**
 * Puts a ready report into `processing` for a rebuild (its items stay readable). Null when it is not
 * ready (already processing: the caller shows that one; failed or gone: not rebuildable).
 */
export async function startRebuildTask(
  userId: string,
  reportId: string,
  taskId: string,
  leaseMs: number,
): Promise<ReportRecord | null> {
  const now = new Date().toISOString();
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression:
      'SET #s = :processing, task = :rebuild, task_id = :task, progress = :progress, lease_until = :until, attempts = :zero, gsi2pk = :g2pk, gsi2sk = :g2sk REMOVE lease_owner',
    ConditionExpression: 'attribute_exists(pk) AND #s = :ready',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':processing': 'processing',
      ':ready': 'ready',
      ':rebuild': 'rebuild',
      ':task': taskId,
      ':progress': queuedProgress(0),
      ':until': Date.now() + leaseMs,
      ':zero': 0,
      ':g2pk': reportBuildingIndex(userId, now).gsi2pk,
      ':g2sk': now,
    },
  });
}

/**
 * A worker takes a processing report: nobody holds it (never claimed, or released), or its holder's
 * lease ran out. Counts the attempt. Null when the report is not processing (done, failed, gone) or
 * another worker holds a live lease.
 */
export async function claimReportTask(
  userId: string,
  reportId: string,
  owner: string,
  leaseMs: number,
  now = Date.now(),
): Promise<ReportRecord | null> {
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression:
      'SET lease_owner = :owner, lease_until = :until, attempts = if_not_exists(attempts, :zero) + :one',
    ConditionExpression: '#s = :processing AND (attribute_not_exists(lease_owner) OR lease_until < :now)',
    ExpressionAttributeNames: { '#s': 'status' },
    ExpressionAttributeValues: {
      ':processing': 'processing',
      ':owner': owner,
      ':until': now + leaseMs,
      ':now': now,
      ':zero': 0,
      ':one': 1,
    },
  });
}

/** Renews the lease of `owner` and saves its progress. False when the lease was lost (another worker took over). */
export async function renewReportTask(
  userId: string,
  reportId: string,
  owner: string,
  leaseMs: number,
  progress: ReportProgress,
): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(userId, reportId),
        UpdateExpression: 'SET lease_until = :until, progress = :progress',
        ConditionExpression: '#s = :processing AND lease_owner = :owner',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':owner': owner,
          ':until': Date.now() + leaseMs,
          ':progress': progress,
        },
      }),
    ),
  );
}

/**
 * Gives a held (or expired) task back so that the next attempt can claim it at once (the claim takes a
 * report without an owner whatever its lease): the worker's own retry, or recovery re-invoking a
 * worker. The lease is set `leaseMs` ahead, so recovery does not invoke again before that attempt had
 * its chance. `owner` null: whoever held it, only when its lease ran out (recovery). False when the
 * report is not processing anymore or another worker holds it.
 */
export async function releaseReportTask(
  userId: string,
  reportId: string,
  owner: string | null,
  leaseMs: number,
  now = Date.now(),
): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(userId, reportId),
        UpdateExpression: 'SET lease_until = :until REMOVE lease_owner',
        ConditionExpression:
          owner === null ? '#s = :processing AND lease_until < :now' : '#s = :processing AND lease_owner = :owner',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':until': now + leaseMs,
          ...(owner === null ? { ':now': now } : { ':owner': owner }),
        },
      }),
    ),
  );
}

/** The fields of an uploaded report the worker learns by reading the file. */
export type BuiltUpload = Pick<
  ReportRecord,
  | 'title'
  | 'allocation'
  | 'report_number'
  | 'seller_id'
  | 'period_from'
  | 'period_to'
  | 'tax_profile'
  | 'totals'
  | 'commission_by_category'
  | 'warnings'
  | 'item_count'
>;

/**
 * Marks an uploaded report ready with what its worker built (items already written as generation 1),
 * links it to its seller (gsi1) and takes it out of gsi2. Null when `owner` no longer holds it.
 */
export async function finishUploadTask(
  userId: string,
  reportId: string,
  owner: string,
  built: BuiltUpload,
): Promise<ReportRecord | null> {
  const capped = {
    ...built,
    warnings: built.warnings.slice(0, MAX_WARNINGS),
    commission_by_category: built.commission_by_category.slice(0, MAX_CATEGORIES),
  };
  const names: Record<string, string> = { '#s': 'status' };
  const values: Record<string, unknown> = { ':processing': 'processing', ':ready': 'ready', ':owner': owner };
  const sets = ['#s = :ready'];
  for (const [k, v] of Object.entries(capped)) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  if (built.seller_id) {
    const g = reportSellerIndex(userId, built.seller_id, reportId);
    values[':g1pk'] = g.gsi1pk;
    values[':g1sk'] = g.gsi1sk;
    sets.push('gsi1pk = :g1pk', 'gsi1sk = :g1sk');
  }
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression: `SET ${sets.join(', ')} ${PROCESSING_CLEANUP}`,
    ConditionExpression: '#s = :processing AND lease_owner = :owner',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/**
 * Ends a rebuild task: the report is `ready` again (with the rebuilt items when it succeeded, or its old
 * ones when it failed: `last_rebuild.error`). `owner` null: whoever held it (recovery, after the last
 * attempt). False when it is not this task anymore.
 */
export async function finishRebuildTask(
  userId: string,
  reportId: string,
  owner: string | null,
  last: LastRebuild,
): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(userId, reportId),
        UpdateExpression: `SET #s = :ready, last_rebuild = :last ${PROCESSING_CLEANUP}`,
        ConditionExpression:
          owner === null
            ? '#s = :processing AND task = :rebuild AND task_id = :task'
            : '#s = :processing AND task = :rebuild AND task_id = :task AND lease_owner = :owner',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':ready': 'ready',
          ':processing': 'processing',
          ':rebuild': 'rebuild',
          ':task': last.task_id,
          ':last': { ...last, dropped: last.dropped.slice(0, MAX_DROPPED_KEPT) },
          ...(owner === null ? {} : { ':owner': owner }),
        },
      }),
    ),
  );
}

/**
 * The Update that fails a processing upload, for the refund's transaction (limits.repo.ts refundLimits):
 * `failed` with its reason and the rows given back, out of gsi2; on the condition that it is still a
 * processing upload (so a report is failed, and refunded, once).
 */
export function failUploadUpdate(
  userId: string,
  reportId: string,
  failure: ReportFailure,
  refundedRows: number,
): DocTransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: reportKey(userId, reportId),
      UpdateExpression: `SET #s = :failed, #e = :error, refunded_rows = :rows ${PROCESSING_CLEANUP}`,
      ConditionExpression: '#s = :processing AND task = :upload',
      ExpressionAttributeNames: { '#s': 'status', '#e': 'error' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':processing': 'processing',
        ':upload': 'upload',
        ':error': failure,
        ':rows': refundedRows,
      },
    },
  };
}

/** failUploadUpdate on its own (its refund was given before). False when it is not a processing upload. */
export async function markUploadFailed(
  userId: string,
  reportId: string,
  failure: ReportFailure,
  refundedRows: number,
): Promise<boolean> {
  try {
    await ddb().send(
      new TransactWriteCommand({ TransactItems: [failUploadUpdate(userId, reportId, failure, refundedRows)] }),
    );
    return true;
  } catch (e) {
    if (cancellationCodes(e)?.[0] === 'ConditionalCheckFailed') return false;
    throw e;
  }
}

/**
 * The caller's reports in gsi2 (processing, and pre-worker `building` ones), oldest first, at most
 * `limit`. Eventually consistent: act on them only through the conditional transitions above.
 */
export async function listPendingReports(userId: string, limit: number): Promise<ReportRecord[]> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: GSI2,
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': reportBuildingIndex(userId, '').gsi2pk },
      Limit: limit,
    }),
  );
  return (r.Items ?? []).map(fromItem);
}
