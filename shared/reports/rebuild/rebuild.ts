/**
 * Rebuilding reports (docs/API.md: POST /api/reports/{id}/rebuild and POST /api/reports/rebuild).
 * Input: the caller and a report id. Output: the rebuilt report and the corrections whose article is
 * gone. Steps: the stored source (409 `source_missing` without one) → re-parse → CURRENT catalog cost
 * prices and tax profile → the old items' manual values re-applied by article → the new items written
 * as the next generation and switched to in one conditional update (reports.repo.ts replaceItems), so
 * a failure leaves the report as it was. Charges no limits.
 */
import type { RebuildManyResult } from '../../contract/shapes';
import { AppError, conflict, notFound, toAppError } from '../../errors';
import { commissionByCategory, computeTotals, type DroppedManualValue, type ManualValues } from '../../engine';
import { describeError, log } from '../../log';
import { contentIdentity, rowIdentity } from '../upload/report-identity';
import { isReportId, type ReportRecord } from '../../store/report-record';
import { type ReportProgress } from '../domain/lifecycle';
import type { StoredItem } from '../../store/items.repo';
import type { SellerRecord } from '../../store/sellers.repo';
import type { LifecycleStore, RebuildResult, ReportDeps, TaskRoutePorts, WorkerDeps } from '../ports';
import { nowMs } from '../../deps';
import { failureError } from '../worker/failures';
import type { UserRecord } from '../../store/users.repo';
import { requireReport, sellerOf } from '../queries';
import { missingArticles, workerWaitMs } from '../upload/upload';
import { beforeDeadline, LATE, tryAgain } from '../deadline';

const MAX_ATTEMPTS = 3;

/** What starting and following a rebuild needs (the composition, deps.ts, gives the real ones). */
export type RebuildDeps = Pick<ReportDeps, 'clock' | 'config' | 'ids' | 'invoker'> & {
  lifecycle: Pick<LifecycleStore, 'startRebuildTask'>;
  reports: Pick<TaskRoutePorts['reports'], 'getReport' | 'getReportAnyStatus' | 'getReportItems' | 'listAllReports'>;
  sellers: Pick<TaskRoutePorts['sellers'], 'getSeller'>;
};

/** What rebuilding one report needs (the worker's body of a rebuild task). */
export type RebuildRunDeps = Pick<
  ReportDeps,
  'clock' | 'config' | 'settings' | 'summaries' | 'products' | 'numbers'
> & {
  reports: Pick<TaskRoutePorts['reports'], 'getReport' | 'getReportItems'>;
  sellers: Pick<TaskRoutePorts['sellers'], 'getSeller'>;
  files: Pick<WorkerDeps['files'], 'objectRanges'>;
  engine: Pick<WorkerDeps['engine'], 'readReport' | 'buildItems'>;
  duplicates: Pick<WorkerDeps['duplicates'], 'putIdentity' | 'deleteIdentity'>;
};

export const sourceMissing = () => conflict('source_missing', 'The report has no stored source file to rebuild from');

function manualByArticle(items: ReadonlyArray<StoredItem>): Record<string, ManualValues> {
  const out: Record<string, ManualValues> = {};
  for (const it of items) if (Object.keys(it.manual_values ?? {}).length > 0) out[it.article] = it.manual_values;
  return out;
}

/**
 * Rebuilds one report now (the worker's body for a rebuild task; see startRebuild for the route).
 * `onProgress` is told the step, rows read and items written as they happen.
 */
export async function rebuildReport(
  deps: RebuildRunDeps,
  user: UserRecord,
  reportId: string,
  onProgress: (p: Partial<ReportProgress>) => void = () => undefined,
): Promise<RebuildResult> {
  for (let attempt = 1; ; attempt++) {
    onProgress({ step: 'reading', rows_read: 0 });
    const record = await requireReport(deps, user.id, reportId);
    if (!record.source_path || record.is_combined) throw sourceMissing();
    const ranges = await deps.files.objectRanges(record.source_path);
    if (!ranges) throw sourceMissing();
    const parsed = await deps.engine.readReport(
      { ranges, filename: record.source_name ?? undefined },
      { maxCompressedBytes: deps.config().maxUploadBytes },
      {
        onRows: (rows) => {
          if (rows % 5_000 === 0) onProgress({ rows_read: rows });
        },
      },
    );
    if (parsed.rows > record.rows) {
      // The worker's row check of an upload, on a rebuild too: never price more rows than were charged
      // (a stored source is never rewritten, so this means the bytes are not the ones counted).
      throw new AppError(409, 'source_changed', `The stored file has ${parsed.rows} rows; ${record.rows} were charged`);
    }
    onProgress({ step: 'pricing', rows_read: parsed.rows, rows_total: parsed.rows });
    const articles = parsed.articles.map((a) => a.article);
    const [seller, oldItems] = await Promise.all([
      sellerOf(deps, user.id, record),
      deps.reports.getReportItems(record),
    ]);
    const resolved = await deps.settings.resolveReportSettings(
      user,
      seller,
      parsed,
      articles,
      undefined,
      record.costs_pending,
    );
    const tax = resolved.settings.tax;
    const { items, dropped, allocation, warnings, attribution } = deps.engine.buildItems(
      parsed,
      resolved.settings,
      manualByArticle(oldItems),
    );
    onProgress({ step: 'writing', items_total: items.length, items_written: 0 });
    const [, replaced] = await Promise.all([
      deps.products.ensureProducts(user.id, missingArticles(articles, resolved.known)),
      deps.numbers.replaceItems(record, items, {
        tax_profile: tax,
        allocation,
        cost_attribution: attribution ?? null,
        totals: computeTotals(items.map((i) => i.effective)),
        commission_by_category: commissionByCategory(items),
        warnings: [...resolved.warnings, ...warnings, ...parsed.warnings],
        rows: parsed.rows,
        period_from: parsed.period_from,
        period_to: parsed.period_to,
        report_number: parsed.report_number,
        format: parsed.format,
        rebuilt_at: deps.clock.now().toISOString(),
        // Older reports get their content fingerprint here (docs/METRICS.md, One week is one report).
        content_fingerprint: parsed.content?.value ?? null,
        content_days: parsed.content?.days ?? null,
      }),
    ]);
    if (replaced) {
      // Found by WB's ids of its rows from now on (a report built before they were read gets them here).
      for (const rowId of parsed.content?.row_ids ?? [])
        await deps.duplicates.putIdentity(user.id, rowIdentity(rowId), record.id, record.created_at);
      if (parsed.content && parsed.content.value !== record.content_fingerprint) {
        await deps.duplicates.putIdentity(user.id, contentIdentity(parsed.content.value), record.id, record.created_at);
        if (record.content_fingerprint)
          await deps.duplicates
            .deleteIdentity(user.id, contentIdentity(record.content_fingerprint), record.id)
            .catch(() => undefined);
      }
      await deps.summaries.writeReportSummary(replaced.record, replaced.items);
      onProgress({ step: 'finishing', items_written: items.length });
      return { record: replaced.record, items: replaced.items, seller, dropped };
    }
    // A correction or another rebuild changed the report meanwhile: start over from its new state.
    if (attempt >= MAX_ATTEMPTS)
      throw conflict('report_busy', 'The report is being changed by another request; try again');
  }
}

export interface StartedRebuild {
  record: ReportRecord;
  /** With the rebuilt items when it finished within the wait. */
  items: StoredItem[];
  seller: SellerRecord | null;
  dropped: DroppedManualValue[];
  /** False: still processing (the route answers 202). */
  done: boolean;
}

/**
 * POST /api/reports/{id}/rebuild: checks the report can be rebuilt (409 `source_missing` without a
 * stored source), puts it into `processing` (task rebuild; its current items stay readable), hands it
 * to the worker and waits for it as long as workerWaitMs (upload.ts) allows. A report already being rebuilt is not started twice:
 * that task is followed instead. A rebuild that failed within the wait answers its error (the report
 * stays as it was).
 */
export async function startRebuild(
  deps: RebuildDeps,
  user: UserRecord,
  reportId: string,
  waitMs?: number,
  budgetMs?: number,
): Promise<StartedRebuild> {
  const settled: { queued?: ReportRecord } = {};
  const work = (async () => {
    const record = await requireReport(deps, user.id, reportId);
    if (!record.source_path || record.is_combined) throw sourceMissing();
    const taskId = await queueRebuild(deps, user.id, record);
    settled.queued = { ...record, status: 'processing', task: 'rebuild', task_id: taskId };
    return awaitRebuild(deps, user.id, reportId, taskId, waitMs ?? workerWaitMs(deps.config(), record.rows));
  })();
  const r = await beforeDeadline(work, budgetMs, 'rebuild');
  if (r !== LATE) return r;
  // Out of time (deadline.ts): the started task is followed as the report's `last_rebuild`; a task not
  // started yet → 503 (one that starts late is joined by a repeat, or picked up by recovery).
  if (settled.queued) return { record: settled.queued, items: [], seller: null, dropped: [], done: false };
  throw tryAgain();
}

/** Starts (or joins) the rebuild task of a report with a source; its task id. */
export async function queueRebuild(deps: RebuildDeps, userId: string, record: ReportRecord): Promise<string> {
  if (record.status === 'processing' && record.task === 'rebuild' && record.task_id) return record.task_id;
  const taskId = deps.ids.newId();
  const started = await deps.lifecycle.startRebuildTask(
    userId,
    record.id,
    taskId,
    deps.config().workerLeaseMs,
    nowMs(deps.clock),
  );
  if (!started) {
    const now = await deps.reports.getReportAnyStatus(userId, record.id);
    if (now?.status === 'processing' && now.task === 'rebuild' && now.task_id) return now.task_id;
    throw conflict('report_busy', 'The report is being changed by another request; try again');
  }
  try {
    await deps.invoker.invoke({ kind: 'report', user_id: userId, report_id: record.id, task_id: taskId });
  } catch (e) {
    log('error', 'worker invoke failed', { report_id: record.id, ...describeError(e) });
  }
  return taskId;
}

const POLL_MS = 150;

async function awaitRebuild(
  deps: RebuildDeps,
  userId: string,
  reportId: string,
  taskId: string,
  waitMs: number,
): Promise<StartedRebuild> {
  const deadline = nowMs(deps.clock) + waitMs;
  for (;;) {
    const record = await deps.reports.getReportAnyStatus(userId, reportId);
    if (!record) throw notFound('Report not found', 'report_not_found');
    const running = record.status === 'processing' && record.task_id === taskId;
    if (!running || nowMs(deps.clock) >= deadline) {
      const seller = record.seller_id ? await deps.sellers.getSeller(userId, record.seller_id) : null;
      if (running) return { record, items: [], seller, dropped: [], done: false };
      const last = record.last_rebuild?.task_id === taskId ? record.last_rebuild : undefined;
      if (last?.error) throw failureError(last.error, { report_id: reportId });
      const items = await deps.reports.getReportItems(record);
      return { record, items, seller, dropped: last?.dropped ?? [], done: true };
    }
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - nowMs(deps.clock)))));
  }
}

export type { RebuildManyResult };

/**
 * Rebuilds the listed reports, or every report of the caller with a stored source when no ids are
 * given: each is handed to the worker as its own task (recover.ts picks up any that stop), then the
 * route waits for them together as long as workerWaitMs of their rows together allows. Unknown, malformed or foreign ids are skipped as
 * `not_found`, reports without a source (combined ones) as `source_missing`; a rebuild that failed
 * within the wait with its error code.
 */
export async function rebuildMany(
  deps: RebuildDeps,
  user: UserRecord,
  reportIds?: string[],
  waitMs?: number,
  budgetMs?: number,
): Promise<RebuildManyResult> {
  const progress: ManyProgress = { queued: [], skipped: [], asked: reportIds ? [...new Set(reportIds)] : null };
  const r = await beforeDeadline(rebuildManyNow(deps, user, progress, reportIds, waitMs), budgetMs, 'rebuild-many');
  if (r !== LATE) return r;
  // Out of time (deadline.ts): the started tasks are `processing`; the rest skipped as `time_limit`
  // (send them again). Nothing started at all → 503.
  if (progress.queued.length === 0) throw tryAgain();
  const settledIds = new Set([...progress.queued, ...progress.skipped.map((s) => s.id)]);
  return {
    rebuilt: [],
    processing: [...progress.queued],
    skipped: [
      ...progress.skipped,
      ...(progress.asked ?? []).filter((id) => !settledIds.has(id)).map((id) => ({ id, reason: 'time_limit' })),
    ],
  };
}

interface ManyProgress {
  /** Reports whose rebuild task is started. */
  queued: string[];
  skipped: RebuildManyResult['skipped'];
  /** The ids asked for (null: every report with a source). */
  asked: string[] | null;
}

async function rebuildManyNow(
  deps: RebuildDeps,
  user: UserRecord,
  progress: ManyProgress,
  reportIds?: string[],
  waitMs?: number,
): Promise<RebuildManyResult> {
  const records = reportIds
    ? await Promise.all(
        [...new Set(reportIds)].map(async (id) => ({
          id,
          record: isReportId(id) ? await deps.reports.getReport(user.id, id) : null,
        })),
      )
    : (await deps.reports.listAllReports(user.id))
        .filter((r) => r.source_path && !r.is_combined)
        .map((r) => ({ id: r.id, record: r }));
  progress.asked = records.map((r) => r.id);
  const result: RebuildManyResult = { rebuilt: [], processing: [], skipped: progress.skipped };
  const tasks: Array<{ id: string; taskId: string }> = [];
  let rows = 0;
  for (const { id, record } of records) {
    if (!record) {
      result.skipped.push({ id, reason: 'not_found' });
      continue;
    }
    if (!record.source_path || record.is_combined) {
      result.skipped.push({ id, reason: 'source_missing' });
      continue;
    }
    try {
      tasks.push({ id, taskId: await queueRebuild(deps, user.id, record) });
      progress.queued.push(id);
      rows += record.rows;
    } catch (e) {
      const err = toAppError(e);
      if (err.status === 500) log('error', 'rebuild failed to start', { report_id: id, ...describeError(e) });
      result.skipped.push({ id, reason: e instanceof AppError ? err.code : 'internal_error' });
    }
  }
  const deadline = nowMs(deps.clock) + (waitMs ?? workerWaitMs(deps.config(), rows));
  await Promise.all(
    tasks.map(async ({ id, taskId }) => {
      try {
        const r = await awaitRebuild(deps, user.id, id, taskId, Math.max(0, deadline - nowMs(deps.clock)));
        (r.done ? result.rebuilt : result.processing).push(id);
      } catch (e) {
        result.skipped.push({ id, reason: toAppError(e).code });
      }
    }),
  );
  const order = new Map(records.map((r, i) => [r.id, i]));
  const byOrder = (a: string, b: string) => (order.get(a) ?? 0) - (order.get(b) ?? 0);
  result.rebuilt.sort(byOrder);
  result.processing.sort(byOrder);
  result.skipped.sort((a, b) => byOrder(a.id, b.id));
  return result;
}
