/**
 * Own per-unit costs apply to the reports they cover without the seller pressing «Пересобрать»
 * (docs/METRICS.md «Snapshots and stale reports»). A change of the seller's own-cost lines
 * (shared/costs/own-costs.ts) hands the lines before and after to `rebuildCovered`:
 *
 *   1. the covered reports: every report with a stored source (not combined) whose own cost per unit on
 *      its day (the middle of its period, as a build takes it) differs for some line (`ownCostsChangedOn`);
 *   2. a ready one: its rebuild is started through the worker, as «Пересобрать» does (rebuild.ts
 *      queueRebuild), without waiting for it;
 *   3. one being built or rebuilt right now (it may have read the old lines): marked `rebuild_again`
 *      ("dirty while rebuilding"); when its task ends the worker starts its rebuild again
 *      (`rebuildIfMarked`), which reads the new lines. A report that became ready in between is started.
 *
 * A rebuild keeps the manual corrections by article and lists any it cannot keep in `last_rebuild.dropped`
 * (rebuild.ts), so no correction is dropped silently. Period costs are not in reports (the P&L reads them
 * when it is shown), so they need nothing here.
 */
import { ownCostOn, type OwnCostLine } from '../../engine/own-costs';
import { periodMiddle } from '../../engine/periods';
import { log } from '../../log';
import type { ReportRecord } from '../../store/report-record';
import { queueRebuild, type RebuildDeps } from './rebuild';

export type CoveredDeps = RebuildDeps & {
  lifecycle: RebuildDeps['lifecycle'] & {
    /** False when the report is not processing (report-lifecycle.repo.ts). */
    markRebuildAgain(userId: string, reportId: string): Promise<boolean>;
  };
};

const lineKey = (l: Pick<OwnCostLine, 'article' | 'name'>) => JSON.stringify([l.article, l.name]);

/**
 * Does the change reach a report of `date` (its day; null: undated)? A line added or removed, or a line
 * whose amount in force on the day differs.
 */
export function ownCostsChangedOn(
  before: readonly OwnCostLine[],
  after: readonly OwnCostLine[],
  date: string | null,
): boolean {
  const old = new Map(before.map((l) => [lineKey(l), l]));
  const now = new Map(after.map((l) => [lineKey(l), l]));
  for (const key of new Set([...old.keys(), ...now.keys()])) {
    const a = old.get(key);
    const b = now.get(key);
    // A line added or removed always counts: an article's own line of 0 switches a default off for it.
    if (!a || !b || ownCostOn(a, date) !== ownCostOn(b, date)) return true;
  }
  return false;
}

export interface CoveredResult {
  /** Reports whose rebuild was started. */
  started: string[];
  /** Reports being built or rebuilt, marked to be rebuilt again when that ends. */
  again: string[];
}

/** Rebuilds (or marks) every report of the user whose own costs the change alters (see the module comment). */
export async function rebuildCovered(
  deps: CoveredDeps,
  userId: string,
  before: readonly OwnCostLine[],
  after: readonly OwnCostLine[],
): Promise<CoveredResult> {
  const out: CoveredResult = { started: [], again: [] };
  const reports = (await deps.reports.listAllReports(userId)).filter(
    (r) =>
      r.source_path &&
      !r.is_combined &&
      (r.status === 'ready' || r.status === 'processing') &&
      ownCostsChangedOn(before, after, periodMiddle(r.period_from, r.period_to)),
  );
  for (const r of reports) {
    try {
      const how = await startOrMark(deps, userId, r);
      if (how) out[how].push(r.id);
    } catch (e) {
      // The change is saved; the report shows as stale until it is rebuilt (queries.ts isStale).
      log('error', 'own costs: rebuild of a covered report not started', {
        report_id: r.id,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
  return out;
}

async function startOrMark(
  deps: CoveredDeps,
  userId: string,
  first: ReportRecord,
): Promise<'started' | 'again' | null> {
  let record: ReportRecord | null = first;
  // Twice at most: a report that changes state between the read and the write is read again.
  for (let attempt = 0; attempt < 3 && record; attempt++) {
    if (record.status === 'processing') {
      if (await deps.lifecycle.markRebuildAgain(userId, record.id)) return 'again';
    } else if (record.status === 'ready') {
      try {
        await queueRebuild(deps, userId, record);
        return 'started';
      } catch (e) {
        if (!(e instanceof Error && 'code' in e && e.code === 'report_busy')) throw e;
      }
    } else return null;
    record = await deps.reports.getReportAnyStatus(userId, record.id);
  }
  return null;
}

/**
 * After a report's build or rebuild ended (the worker): a report marked `rebuild_again` meanwhile is
 * rebuilt again (the start removes the mark). True when a rebuild was started.
 */
export async function rebuildIfMarked(deps: RebuildDeps, userId: string, reportId: string): Promise<boolean> {
  const record = await deps.reports.getReportAnyStatus(userId, reportId);
  if (!record?.rebuild_again || record.status !== 'ready' || !record.source_path || record.is_combined) return false;
  await queueRebuild(deps, userId, record);
  return true;
}
