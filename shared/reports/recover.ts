/**
 * Undoing charged uploads, both when the upload itself fails after the charge and when its process
 * died mid-way (timeout, out of memory, crash) and left a `building` record with the charge taken.
 *
 * The latter needs no scheduler: whenever a user's reports are listed and at the start of each upload,
 * that user's building records older than ABANDONED_UPLOAD_AFTER_MS are undone. The age is what tells a
 * dead upload from a live one: no upload runs that long (API Gateway answers after 29 s, the function
 * timeout is 29 s).
 *
 * One undo, safe to run twice at once or to resume after it was itself interrupted:
 *   1. claim the record (still `building` → `recovering_at`): from then on it can never become ready;
 *      a record already ready (or gone) is left alone;
 *   2. refund the charge (refundLimits gives back once per report, however often it is called);
 *   3. delete the items, the stored source and the identity record;
 *   4. delete the record, only once 2 and 3 succeeded and only while it is still `building`;
 *   5. remove the seller the upload created on demand, when nothing else refers to it.
 * The record goes last because it is the only trace of the charge: if any step fails, it stays and the
 * next sweep finishes the job.
 */
import { log } from '../log';
import { refundLimits } from '../store/limits.repo';
import { deleteItems } from '../store/items.repo';
import { claimBuildingReport, deleteBuildingReport, listBuildingReports } from '../store/reports.repo';
import { deleteObject } from './storage';
import { deleteIdentity } from '../store/identities.repo';
import { removeSellerIfUnused } from '../store/sellers.repo';

/** After an upload is undone: the seller it created on demand goes too when nothing else refers to it. */
export async function dropUnusedSeller(userId: string, sellerId: string | null | undefined): Promise<void> {
  if (!sellerId) return;
  try {
    await removeSellerIfUnused(userId, sellerId);
  } catch (err) {
    // Harmless when it stays: an empty seller the user can still see and rename.
    log('warn', 'unused seller not removed', { user_id: userId, seller_id: sellerId, error: String(err) });
  }
}

/** A building record older than this is an upload whose process died: far beyond the 29 s any upload may run. */
export const ABANDONED_UPLOAD_AFTER_MS = 10 * 60 * 1000;

/** Undone per sweep at most, so a listing never waits long; the rest is left to the next sweep. */
export const MAX_RECOVERIES_PER_SWEEP = 10;

export interface UndoResult {
  /** `not_building`: ready or gone, nothing touched; `incomplete`: a step failed, the record stays for the next sweep. */
  outcome: 'undone' | 'not_building' | 'incomplete';
  /** Rows given back by THIS call (0 when the charge was refunded before). */
  refunded_rows: number;
}

/** Undoes the charged upload of `reportId` (see the steps above). Never throws; failures are logged. */
export async function undoChargedUpload(userId: string, reportId: string): Promise<UndoResult> {
  let record;
  try {
    record = await claimBuildingReport(userId, reportId);
  } catch (err) {
    log('error', 'upload undo failed', { user_id: userId, report_id: reportId, step: 'claim', error: String(err) });
    return { outcome: 'incomplete', refunded_rows: 0 };
  }
  if (!record) return { outcome: 'not_building', refunded_rows: 0 };

  let refunded = 0;
  const sourcePath = record.source_path;
  const steps: Array<[string, () => Promise<unknown>]> = [
    [
      'refund',
      async () => {
        const r = await refundLimits({ userId, rows: record.rows, reportId });
        if (r) refunded = record.rows;
      },
    ],
    ['items', () => deleteItems(userId, reportId)],
    ['source', () => (sourcePath ? deleteObject(sourcePath) : Promise.resolve())],
    ['identity', () => (record.identity ? deleteIdentity(userId, record.identity, reportId) : Promise.resolve())],
  ];
  let complete = true;
  // Each step is tried even if another fails: the money first, and as little left behind as possible.
  for (const [step, run] of steps) {
    try {
      await run();
    } catch (err) {
      complete = false;
      log('error', 'upload undo failed', { user_id: userId, report_id: reportId, step, error: String(err) });
    }
  }
  if (!complete) return { outcome: 'incomplete', refunded_rows: refunded };
  try {
    // False when a concurrent undo deleted it first: its job is done either way.
    await deleteBuildingReport(userId, reportId);
  } catch (err) {
    log('error', 'upload undo failed', { user_id: userId, report_id: reportId, step: 'record', error: String(err) });
    return { outcome: 'incomplete', refunded_rows: refunded };
  }
  await dropUnusedSeller(userId, record.seller_id);
  return { outcome: 'undone', refunded_rows: refunded };
}

export interface SweepResult {
  /** Abandoned uploads undone completely by this sweep. */
  recovered: number;
  /** Rows given back by this sweep. */
  refunded_rows: number;
}

/**
 * Undoes the user's uploads abandoned mid-way (building records created more than
 * ABANDONED_UPLOAD_AFTER_MS before `now`), at most MAX_RECOVERIES_PER_SWEEP of them. Never throws: a
 * listing or an upload must not fail because recovery did; whatever is left is retried next time.
 */
export async function recoverAbandonedUploads(userId: string, now = Date.now()): Promise<SweepResult> {
  const result: SweepResult = { recovered: 0, refunded_rows: 0 };
  try {
    const before = new Date(now - ABANDONED_UPLOAD_AFTER_MS).toISOString();
    for (const stale of await listBuildingReports(userId, before, MAX_RECOVERIES_PER_SWEEP)) {
      const r = await undoChargedUpload(userId, stale.id);
      result.refunded_rows += r.refunded_rows;
      if (r.outcome === 'undone') result.recovered += 1;
      if (r.outcome !== 'not_building') {
        log('warn', r.outcome === 'undone' ? 'abandoned upload recovered' : 'abandoned upload recovery incomplete', {
          user_id: userId,
          report_id: stale.id,
          created_at: stale.created_at,
          rows: stale.rows,
          refunded_rows: r.refunded_rows,
          outcome: r.outcome,
        });
      }
    }
  } catch (err) {
    log('error', 'abandoned upload sweep failed', { user_id: userId, error: String(err) });
  }
  return result;
}
