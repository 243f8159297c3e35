/**
 * The conditional writes of a report's life, one per transition of shared/reports/domain/lifecycle.ts
 * (TRANSITIONS), each with the condition that table states. A processing report is listed in gsi2 (the
 * pending index: keys.ts reportBuildingIndex) so recovery finds it when its worker died; every
 * transition is a conditional update, so two workers (an async event delivered twice, a retry racing a
 * recovery) can never both own a report, and a finished or failed report never goes back to
 * processing.
 */
import {
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { LastRebuild, ReportFailure, ReportProgress } from '../reports/domain/lifecycle';
import { queuedProgress, MAX_DROPPED_KEPT } from '../reports/domain/lifecycle';
import type { CatalogTask } from '../reports/domain/lifecycle';
import { ddb, putNew, tableName, type DocTransactItem } from './client';
import { GSI2 } from './table';
import { cancellationCodes, conditionHeld } from './dynamo-errors';
import { reportBuildingIndex, reportKey, reportSellerIndex } from './keys';
import { fromItem, MAX_CATEGORIES, MAX_WARNINGS, toItem, updateReportIf, type ReportRecord } from './report-record';

const PROCESSING_CLEANUP = 'REMOVE gsi2pk, gsi2sk, lease_owner, lease_until, progress, task';
/** The same, keeping the report in gsi2 (a catalog follow-up is pending). */
const LEASE_CLEANUP = 'REMOVE lease_owner, lease_until, progress, task';

/** An UpdateItem of one report record; every transition below is one. */
type Transition = UpdateCommandInput &
  Required<Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeValues'>>;

/**
 * The UpdateItem of a transition: `update` of the report `userId`/`reportId` on the condition `condition`
 * (lifecycle.ts TRANSITIONS), `#s` naming its status and `:processing` its processing state; `values`
 * (and `names`) give the rest.
 */
function transition(
  userId: string,
  reportId: string,
  update: string,
  condition: string,
  values: Record<string, unknown>,
  names: Record<string, string> = {},
): Transition {
  return {
    TableName: tableName(),
    Key: reportKey(userId, reportId),
    UpdateExpression: update,
    ConditionExpression: condition,
    ExpressionAttributeNames: { '#s': 'status', ...names },
    ExpressionAttributeValues: { ':processing': 'processing', ...values },
  };
}

/** Sends a transition; false when its condition failed. */
const held = (t: Transition): Promise<boolean> => conditionHeld(ddb().send(new UpdateCommand(t)));

/**
 * The Put of a new uploaded report for the charge's transaction: `processing` (task upload), listed in
 * gsi2, with a lease that expires `leaseMs` from now unless a worker claims it first (so an invoke
 * that was lost is noticed by recovery), on the condition that the id is new.
 */
export function processingReportPut(
  record: ReportRecord,
  taskId: string,
  leaseMs: number,
  now = Date.now(),
): DocTransactItem {
  return putNew({
    ...toItem({
      ...record,
      status: 'processing',
      task: 'upload',
      task_id: taskId,
      progress: queuedProgress(record.rows),
      lease_until: now + leaseMs,
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
  nowMs = Date.now(),
): Promise<ReportRecord | null> {
  const now = new Date(nowMs).toISOString();
  return updateReportIf(
    transition(
      userId,
      reportId,
      'SET #s = :processing, task = :rebuild, task_id = :task, progress = :progress, lease_until = :until, attempts = :zero, gsi2pk = :g2pk, gsi2sk = :g2sk REMOVE lease_owner, rebuild_again',
      'attribute_exists(pk) AND #s = :ready',
      {
        ':ready': 'ready',
        ':rebuild': 'rebuild',
        ':task': taskId,
        ':progress': queuedProgress(0),
        ':until': nowMs + leaseMs,
        ':zero': 0,
        ':g2pk': reportBuildingIndex(userId, now).gsi2pk,
        ':g2sk': now,
      },
    ),
  );
}

/**
 * A report being built or rebuilt when a setting it reads changed (own per-unit costs): marked to be
 * rebuilt again once its task ends (shared/reports/rebuild/rebuild-covered.ts). False when it is not
 * processing (it is ready: start its rebuild instead; failed or gone: nothing to do).
 */
export async function markRebuildAgain(userId: string, reportId: string): Promise<boolean> {
  return held(
    transition(userId, reportId, 'SET rebuild_again = :yes', 'attribute_exists(pk) AND #s = :processing', {
      ':yes': true,
    }),
  );
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
  return updateReportIf(
    transition(
      userId,
      reportId,
      'SET lease_owner = :owner, lease_until = :until, attempts = if_not_exists(attempts, :zero) + :one',
      '#s = :processing AND (attribute_not_exists(lease_owner) OR lease_until < :now)',
      { ':owner': owner, ':until': now + leaseMs, ':now': now, ':zero': 0, ':one': 1 },
    ),
  );
}

/** Renews the lease of `owner` and saves its progress. False when the lease was lost (another worker took over). */
export async function renewReportTask(
  userId: string,
  reportId: string,
  owner: string,
  leaseMs: number,
  progress: ReportProgress,
  now = Date.now(),
): Promise<boolean> {
  return held(
    transition(
      userId,
      reportId,
      'SET lease_until = :until, progress = :progress',
      '#s = :processing AND lease_owner = :owner',
      { ':owner': owner, ':until': now + leaseMs, ':progress': progress },
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
  return held(
    transition(
      userId,
      reportId,
      'SET lease_until = :until REMOVE lease_owner',
      owner === null ? '#s = :processing AND lease_until < :now' : '#s = :processing AND lease_owner = :owner',
      { ':until': now + leaseMs, ...(owner === null ? { ':now': now } : { ':owner': owner }) },
    ),
  );
}

/** The fields of an uploaded report the worker learns by reading the file. */
export type BuiltUpload = Pick<
  ReportRecord,
  | 'title'
  | 'allocation'
  | 'cost_attribution'
  | 'report_number'
  | 'seller_id'
  | 'period_from'
  | 'period_to'
  | 'tax_profile'
  | 'totals'
  | 'commission_by_category'
  | 'warnings'
  | 'item_count'
  | 'wb_report_id'
  | 'content_fingerprint'
  | 'content_days'
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
  catalog?: CatalogTask,
): Promise<ReportRecord | null> {
  const capped = {
    ...built,
    warnings: built.warnings.slice(0, MAX_WARNINGS),
    commission_by_category: built.commission_by_category.slice(0, MAX_CATEGORIES),
  };
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':ready': 'ready', ':owner': owner };
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
  if (catalog) {
    // The catalog follow-up (lifecycle.ts): the report stays in gsi2 until it ends.
    values[':catalog_task'] = catalog;
    sets.push('catalog_task = :catalog_task');
  }
  return updateReportIf(
    transition(
      userId,
      reportId,
      `SET ${sets.join(', ')} ${catalog ? LEASE_CLEANUP : PROCESSING_CLEANUP}`,
      '#s = :processing AND lease_owner = :owner',
      values,
      names,
    ),
  );
}

/**
 * A worker takes a ready report's catalog follow-up `taskId` (lifecycle.ts) whose lease ran out, for
 * `leaseMs`; counts the attempt. Null when the follow-up ended, is another one, or is held.
 */
export async function claimCatalogTask(
  userId: string,
  reportId: string,
  taskId: string,
  leaseMs: number,
  now = Date.now(),
): Promise<ReportRecord | null> {
  return updateReportIf({
    Key: reportKey(userId, reportId),
    UpdateExpression: 'SET catalog_task.#until = :until, catalog_task.attempts = catalog_task.attempts + :one',
    ConditionExpression: '#s = :ready AND catalog_task.task_id = :task AND catalog_task.#until < :now',
    ExpressionAttributeNames: { '#s': 'status', '#until': 'until' },
    ExpressionAttributeValues: { ':ready': 'ready', ':task': taskId, ':until': now + leaseMs, ':now': now, ':one': 1 },
  });
}

/**
 * Recovery gives a catalog follow-up whose lease ran out at `now` (its clock) back, so that the worker it
 * invokes claims it at once. False when it ended, or someone claimed it meanwhile.
 */
export async function releaseCatalogTask(
  userId: string,
  reportId: string,
  taskId: string,
  now: number,
): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(userId, reportId),
        UpdateExpression: 'SET catalog_task.#until = :zero',
        ConditionExpression: '#s = :ready AND catalog_task.task_id = :task AND catalog_task.#until < :now',
        ExpressionAttributeNames: { '#s': 'status', '#until': 'until' },
        ExpressionAttributeValues: { ':ready': 'ready', ':task': taskId, ':now': now, ':zero': 0 },
      }),
    ),
  );
}

/** Ends a catalog follow-up (written, or dropped after its last attempt): out of gsi2. False when it ended before. */
export async function finishCatalogTask(userId: string, reportId: string, taskId: string): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(userId, reportId),
        UpdateExpression: 'REMOVE catalog_task, gsi2pk, gsi2sk',
        ConditionExpression: '#s = :ready AND catalog_task.task_id = :task',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':ready': 'ready', ':task': taskId },
      }),
    ),
  );
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
  return held(
    transition(
      userId,
      reportId,
      `SET #s = :ready, last_rebuild = :last ${PROCESSING_CLEANUP}`,
      owner === null
        ? '#s = :processing AND task = :rebuild AND task_id = :task'
        : '#s = :processing AND task = :rebuild AND task_id = :task AND lease_owner = :owner',
      {
        ':ready': 'ready',
        ':rebuild': 'rebuild',
        ':task': last.task_id,
        ':last': { ...last, dropped: last.dropped.slice(0, MAX_DROPPED_KEPT) },
        ...(owner === null ? {} : { ':owner': owner }),
      },
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
    Update: transition(
      userId,
      reportId,
      `SET #s = :failed, #e = :error, refunded_rows = :rows ${PROCESSING_CLEANUP}`,
      '#s = :processing AND task = :upload',
      { ':failed': 'failed', ':upload': 'upload', ':error': failure, ':rows': refundedRows },
      { '#e': 'error' },
    ),
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
 * The caller's processing reports (gsi2), oldest first, at most
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

/** A page of the pending index across all users (the scheduled sweep), and where the next one starts. */
export interface PendingPage {
  items: ReportRecord[];
  next: Record<string, unknown> | null;
}

/**
 * Every user's processing reports (gsi2), a page of at most `limit`
 * from `start`. The index is sparse (only pending reports are in it), so the scan reads next to nothing
 * when all is well; eventually consistent: act on them only through the conditional transitions above.
 */
export async function scanPendingReports(start: Record<string, unknown> | null, limit: number): Promise<PendingPage> {
  const r = await ddb().send(
    new ScanCommand({ TableName: tableName(), IndexName: GSI2, Limit: limit, ExclusiveStartKey: start ?? undefined }),
  );
  return { items: (r.Items ?? []).map(fromItem), next: r.LastEvaluatedKey ?? null };
}
