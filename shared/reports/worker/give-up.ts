/**
 * Ending a report's task for good (after its last attempt or a permanent error): a rebuild ends with the
 * report as it was, an upload is failed and refunded. The worker (worker.ts) and recovery (recover.ts)
 * both end tasks so; this module holds no reader, so recovery's function does not load one.
 */
import { describeError, log } from '../../log';
import type { ReportRecord } from '../../store/report-record';
import type { ReportFailure } from '../domain/lifecycle';
import type { WorkerDeps } from '../ports';

/** What an attempt created on the way, for giveUp to take back when the upload fails for good. */
export interface WorkerContext {
  /** The seller this upload linked (created on demand). Nothing else needs taking back: the catalog is written only once the report is ready. */
  sellerId: string | null;
}

/** Ends a task for good after its last attempt or a permanent error. Never throws. */
export async function giveUp(
  deps: Pick<WorkerDeps, 'clock' | 'lifecycle' | 'failUpload' | 'dropUnusedSeller'>,
  record: ReportRecord,
  owner: string | null,
  failure: ReportFailure,
  ctx: WorkerContext = { sellerId: null },
): Promise<void> {
  try {
    if (record.task === 'rebuild') {
      await deps.lifecycle.finishRebuildTask(record.user_id, record.id, owner, {
        task_id: record.task_id ?? '',
        finished_at: deps.clock.now().toISOString(),
        dropped: [],
        error: failure,
      });
    } else {
      // The seller this upload created on demand goes too when nothing else refers to it (first: the
      // route answers as soon as the report reads failed).
      await deps.dropUnusedSeller(record.user_id, ctx.sellerId);
      await deps.failUpload(record, failure);
    }
  } catch (e) {
    // The record stays processing; recovery ends it once the lease runs out.
    log('error', 'worker could not end a task', { report_id: record.id, ...describeError(e) });
  }
}
