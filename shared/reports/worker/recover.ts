/**
 * Reports whose processing cannot finish, and undoing charged uploads.
 *
 * Worker-built reports (status `processing`, shared/reports/worker/worker.ts) carry a lease their worker
 * renews; when it runs out (the worker died, or its invoke was lost) the scheduled sweep
 * (sweepPendingReports: functions/reports/sweep.handler.ts every 5 minutes; locally on an interval of
 * the stack) picks the report up, and so does the user's next upload for their own reports
 * (recoverAbandonedUploads, so a refund counts for that upload): it is handed to a new worker while
 * attempts remain, else an upload is failed and refunded (failUpload: one transaction, once ever) and a
 * rebuild ends with the report as it was. What to do with a report is lifecycle.ts recoveryStep.
 * A ready upload whose catalog follow-up (lifecycle.ts) is pending past its lease — its worker died
 * mid-catalog, or the write failed or was throttled — is handed to a worker again the same way
 * (catalogStep).
 */
import { AppError } from '../../errors';
import { describeError, log } from '../../log';
import type { refundLimits } from '../../store/limits.repo';
import type { deleteItems } from '../../store/items.repo';
import type { failUploadUpdate, markUploadFailed } from '../../store/report-lifecycle.repo';
import { nowMs } from '../../deps';
import { catalogStep, recoveryStep } from '../domain/lifecycle';
import type { RecoverDeps, SweepResult } from '../ports';
import { giveUp } from './give-up';
import { type ReportFailure } from '../domain/lifecycle';
import { type ReportRecord } from '../../store/report-record';
import type { deleteObject } from '../../files/objects';
import type { deleteIdentity } from '../../store/report-identities.repo';
import type { removeSellerIfUnused } from '../../store/sellers.repo';

/** What undoing an upload talks to (failUpload, dropUnusedSeller); the compositions give the real stores. */
export interface UndoDeps {
  limits: { refundLimits: typeof refundLimits };
  items: { deleteItems: typeof deleteItems };
  lifecycle: { failUploadUpdate: typeof failUploadUpdate; markUploadFailed: typeof markUploadFailed };
  files: { deleteObject: typeof deleteObject };
  identities: { deleteIdentity: typeof deleteIdentity };
  sellers: { removeSellerIfUnused: typeof removeSellerIfUnused };
}

/** After an upload is undone: the seller it created on demand goes too when nothing else refers to it. */
export async function dropUnusedSeller(
  deps: Pick<UndoDeps, 'sellers'>,
  userId: string,
  sellerId: string | null | undefined,
): Promise<void> {
  if (!sellerId) return;
  try {
    await deps.sellers.removeSellerIfUnused(userId, sellerId);
  } catch (err) {
    // Harmless when it stays: an empty seller the user can still see and rename.
    log('warn', 'unused seller not removed', { user_id: userId, seller_id: sellerId, error: String(err) });
  }
}

/** Undone per sweep at most, so a listing never waits long; the rest is left to the next sweep. */
export const MAX_RECOVERIES_PER_SWEEP = 10;

/**
 * Fails a processing upload and refunds its charge in ONE transaction (so it is refunded exactly once
 * and never `failed` without its refund), then deletes what its worker wrote and the stored source.
 * Returns the rows given back (0 when another worker or recovery ended it first). Throws only when
 * the store is unreachable.
 */
export async function failUpload(deps: UndoDeps, record: ReportRecord, failure: ReportFailure): Promise<number> {
  const { user_id: userId, id: reportId, rows } = record;
  // What the worker left goes first (invisible while processing), so that once the report reads
  // `failed` nothing of it is left; if this process dies here, recovery ends it the same way.
  await Promise.all([
    deps.items
      .deleteItems(userId, reportId)
      .catch((e: unknown) =>
        log('error', 'failed upload cleanup', { report_id: reportId, step: 'items', ...describeError(e) }),
      ),
    record.source_path
      ? deps.files
          .deleteObject(record.source_path)
          .catch((e: unknown) =>
            log('error', 'failed upload cleanup', { report_id: reportId, step: 'source', ...describeError(e) }),
          )
      : Promise.resolve(),
    // The same file may be uploaded again: a failed report is no duplicate.
    record.identity
      ? deps.identities
          .deleteIdentity(userId, record.identity, reportId)
          .catch((e: unknown) =>
            log('error', 'failed upload cleanup', { report_id: reportId, step: 'identity', ...describeError(e) }),
          )
      : Promise.resolve(),
  ]);
  let refunded = 0;
  try {
    const r = await deps.limits.refundLimits({
      userId,
      rows,
      reportId,
      extraItems: [deps.lifecycle.failUploadUpdate(userId, reportId, failure, rows)],
    });
    refunded = r ? rows : 0;
    // Its refund was given before (a report id is refunded once, ever): it still has to end failed.
    if (!r) await deps.lifecycle.markUploadFailed(userId, reportId, failure, rows);
  } catch (e) {
    if (e instanceof AppError && e.code === 'transaction_conflict') return 0;
    throw e;
  }
  log('warn', 'upload failed and refunded', { user_id: userId, report_id: reportId, rows, code: failure.code });
  return refunded;
}

const STUCK_UPLOAD: ReportFailure = {
  code: 'processing_failed',
  message: 'Не удалось обработать отчёт из-за сбоя на сервере. Лимиты возвращены; загрузите файл ещё раз.',
};
const STUCK_REBUILD: ReportFailure = {
  code: 'processing_failed',
  message: 'Не удалось пересчитать отчёт из-за сбоя на сервере; отчёт остался прежним.',
};

/**
 * Recovers one pending report as lifecycle.ts recoveryStep says; adds what it did to `result`. Returns
 * whether it acted (a report still within its lease, or ended meanwhile, is left alone).
 */
async function recoverOne(
  deps: RecoverDeps,
  pending: ReportRecord,
  now: number,
  result: SweepResult,
): Promise<boolean> {
  const c = deps.config();
  const userId = pending.user_id;
  if (catalogStep(pending, now) !== 'none') return resumeCatalog(deps, pending, now, result);
  if (recoveryStep(pending, now, c.workerMaxAttempts) === 'wait') return false;
  // The index is eventually consistent: decide on the record itself.
  const record = await deps.reports.getReportAnyStatus(userId, pending.id);
  if (!record) return false;
  const step = recoveryStep(record, now, c.workerMaxAttempts);
  if (step === 'wait') return false;
  if (step === 'fail_upload' || step === 'end_rebuild') {
    const before = result.refunded_rows;
    if (step === 'fail_upload') result.refunded_rows += await deps.failUpload(record, STUCK_UPLOAD);
    else await giveUp(deps, record, null, STUCK_REBUILD);
    result.recovered += 1;
    log('warn', 'stuck report ended', {
      user_id: userId,
      report_id: record.id,
      task: record.task,
      attempts: record.attempts,
      refunded_rows: result.refunded_rows - before,
    });
    return true;
  }
  if (await deps.lifecycle.releaseReportTask(userId, record.id, null, c.workerLeaseMs, now)) {
    log('warn', 'stuck report handed to a new worker', {
      user_id: userId,
      report_id: record.id,
      task: record.task,
      attempts: record.attempts,
    });
    await deps.invoker.invoke({ kind: 'report', user_id: userId, report_id: record.id, task_id: record.task_id ?? '' });
    result.recovered += 1;
  }
  return true;
}

/** A ready report's catalog follow-up past its lease goes to a worker again (it claims and counts the attempt). */
async function resumeCatalog(
  deps: RecoverDeps,
  pending: ReportRecord,
  now: number,
  result: SweepResult,
): Promise<boolean> {
  if (catalogStep(pending, now) !== 'resume') return false;
  const record = await deps.reports.getReportAnyStatus(pending.user_id, pending.id);
  if (!record?.catalog_task || catalogStep(record, now) !== 'resume') return false;
  // Given back first (on this clock), so the worker claims it at once.
  if (!(await deps.lifecycle.releaseCatalogTask(record.user_id, record.id, record.catalog_task.task_id, now)))
    return false;
  log('warn', 'catalog follow-up handed to a new worker', {
    user_id: record.user_id,
    report_id: record.id,
    attempts: record.catalog_task.attempts,
  });
  await deps.invoker.invoke({
    kind: 'report',
    user_id: record.user_id,
    report_id: record.id,
    task_id: record.catalog_task.task_id,
  });
  result.recovered += 1;
  return true;
}

/**
 * Picks up the user's reports whose processing stopped (see the file comment), at most
 * MAX_RECOVERIES_PER_SWEEP of them; an upload runs it first, so a refund they get counts for it. Never
 * throws: an upload must not fail because recovery did; whatever is left is retried next time.
 */
export async function recoverAbandonedUploads(deps: RecoverDeps, userId: string): Promise<SweepResult> {
  const result: SweepResult = { recovered: 0, refunded_rows: 0 };
  const now = nowMs(deps.clock);
  try {
    let handled = 0;
    for (const pending of await deps.pending.listPendingReports(userId, 50)) {
      if (handled >= MAX_RECOVERIES_PER_SWEEP) break;
      if (await recoverOne(deps, pending, now, result)) handled++;
    }
  } catch (err) {
    log('error', 'abandoned upload sweep failed', { user_id: userId, error: String(err) });
  }
  return result;
}

/** Pending reports read per page of the scheduled sweep. */
const SWEEP_PAGE = 100;

export interface ScheduledSweepResult extends SweepResult {
  /** Pending reports looked at (most are still within their lease). */
  examined: number;
  /** Reports whose recovery threw (logged; the next sweep tries again). */
  errors: number;
}

/**
 * The scheduled sweep (functions/reports/sweep.handler.ts every few minutes; locally the stack runs it
 * on an interval): every user's pending reports, at most `maxReports` of them per run. A report left
 * behind by a crashed run is handed to a new worker while attempts remain, else failed and refunded
 * (once: failUpload's transaction) or, for a rebuild, ended as it was. Never throws for one report's
 * failure; a store outage while listing throws (the schedule runs it again).
 */
export async function sweepPendingReports(
  deps: RecoverDeps,
  opts: { maxReports?: number } = {},
): Promise<ScheduledSweepResult> {
  const max = opts.maxReports ?? 1_000;
  const now = nowMs(deps.clock);
  const result: ScheduledSweepResult = { recovered: 0, refunded_rows: 0, examined: 0, errors: 0 };
  let start: Record<string, unknown> | null = null;
  do {
    const page = await deps.pending.scanPendingReports(start, Math.min(SWEEP_PAGE, max - result.examined));
    for (const pending of page.items) {
      result.examined += 1;
      try {
        await recoverOne(deps, pending, now, result);
      } catch (err) {
        result.errors += 1;
        log('error', 'sweep could not recover a report', {
          user_id: pending.user_id,
          report_id: pending.id,
          ...describeError(err),
        });
      }
    }
    start = page.next;
  } while (start && result.examined < max);
  return result;
}
