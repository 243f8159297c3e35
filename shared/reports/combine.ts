/**
 * Combining reports (API.md: POST /api/reports/combine; METRICS.md, Combining reports).
 * In: the caller, 2..100 distinct report ids, an optional title.
 * Out: a job (shared/jobs/registry.ts) whose result is the id of a new combined report.
 * Steps: check every id is one of the caller's ready reports (any missing → 404 before a job starts);
 * start a job that reads each source's items (their EFFECTIVE values, so corrections carry over;
 * progress = sources read), merges them with the engine's combineItems, recomputes totals and
 * commission by category, and writes the new report: is_combined, source_report_ids, no source file,
 * the union of the periods, the sources' seller when they share one. No limits are charged.
 */
import { getConfig } from '../config';
import { notFound } from '../errors';
import { getJob, startJob, waitFor, type JobSnapshot, type ProgressReporter } from '../jobs/registry';
import { combineItems, combinePeriods, combineSellers, commissionByCategory, computeTotals } from '../report';
import type { ComputedItem, ReportWarning, TaxProfile } from '../report/types';
import type { StoredItem } from '../store/items.repo';
import { createReport, getReport, getReportItems, newReportId, type ReportRecord } from '../store/reports.repo';

export const MIN_COMBINE = 2;
export const MAX_COMBINE = 100;

export const reportNotFound = (details: Record<string, unknown> = {}) => {
  const e = notFound('Report not found', 'report_not_found');
  Object.assign(e.details, details);
  return e;
};

/**
 * The caller's ready reports with these ids, in the given order; 404 `report_not_found` listing the
 * ids that are not the caller's (missing, another user's or malformed: never says which).
 */
export async function requireReports(userId: string, reportIds: readonly string[]): Promise<ReportRecord[]> {
  const records = await Promise.all(reportIds.map((id) => getReport(userId, id)));
  const missing = reportIds.filter((_, i) => records[i] === null);
  if (missing.length > 0) throw reportNotFound({ report_ids: missing });
  return records as ReportRecord[];
}

/** "2022-12-05" → "05.12.2022" (how a Russian user writes dates). */
function ruDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : iso;
}

export function defaultCombinedTitle(period: { period_from: string | null; period_to: string | null }): string {
  const { period_from: from, period_to: to } = period;
  if (from && to) return `Сводный отчёт ${ruDate(from)}–${ruDate(to)}`;
  if (from || to) return `Сводный отчёт ${ruDate((from ?? to) as string)}`;
  return 'Сводный отчёт';
}

const sameTax = (a: TaxProfile, b: TaxProfile) =>
  a.tax_system === b.tax_system && a.usn_rate === b.usn_rate && a.vat_rate === b.vat_rate;

/**
 * One source's items, consistent with one version of its record: a rebuild that switches the item
 * generation while we read would otherwise hand us a half-deleted generation. Re-reads the record
 * after the items and retries when it changed; a source deleted meanwhile → 404.
 */
async function readSource(userId: string, reportId: string): Promise<{ record: ReportRecord; items: StoredItem[] }> {
  for (let attempt = 0; ; attempt++) {
    const record = await getReport(userId, reportId);
    if (!record) throw reportNotFound({ report_ids: [reportId] });
    const items = await getReportItems(record);
    const after = await getReport(userId, reportId);
    if (!after) throw reportNotFound({ report_ids: [reportId] });
    if (after.version === record.version && after.items_gen === record.items_gen) return { record, items };
    if (attempt >= 4) throw new Error(`combine: report ${reportId} kept changing while being read`);
  }
}

/** Reads, merges and writes: the job's body. Returns the new report's id. */
export async function buildCombinedReport(
  userId: string,
  reportIds: readonly string[],
  title: string | undefined,
  progress: ProgressReporter,
): Promise<string> {
  // Steps: one per source read, then merging, then writing (COMBINE_STEPS_AFTER_READING).
  const sources: Array<{ record: ReportRecord; items: StoredItem[] }> = [];
  for (const id of reportIds) {
    progress.step('reading');
    sources.push(await readSource(userId, id));
    progress.advance();
  }
  progress.step('merging');
  const itemsOf = (s: { items: StoredItem[] }): ComputedItem[] =>
    s.items.map(({ item_id: _id, rev: _rev, ...item }) => item);
  const items = combineItems(sources.map(itemsOf));
  const records = sources.map((s) => s.record);
  const period = combinePeriods(records);
  const tax = records[0].tax_profile;
  const warnings: ReportWarning[] = [];
  if (!records.every((r) => sameTax(r.tax_profile, tax))) {
    warnings.push({
      code: 'mixed_tax_profiles',
      message: 'Отчёты посчитаны с разными налоговыми настройками: НДС и УСН сложены как есть.',
      details: { report_ids: records.map((r) => r.id) },
    });
  }
  for (const r of records)
    for (const w of r.warnings) warnings.push({ ...w, details: { ...(w.details ?? {}), report_id: r.id } });
  const record: ReportRecord = {
    id: newReportId(),
    user_id: userId,
    title: title ?? defaultCombinedTitle(period),
    report_number: null,
    seller_id: combineSellers(records.map((r) => r.seller_id)),
    period_from: period.period_from,
    period_to: period.period_to,
    rows: records.reduce((sum, r) => sum + r.rows, 0),
    format: null,
    is_combined: true,
    source_report_ids: records.map((r) => r.id),
    source_path: null,
    source_name: null,
    source_size: null,
    created_at: new Date().toISOString(),
    tax_profile: tax,
    totals: computeTotals(items.map((i) => i.effective)),
    commission_by_category: commissionByCategory(items),
    warnings,
    item_count: items.length,
  };
  progress.advance();
  progress.step('writing');
  const created = await createReport(record, items);
  return created.record.id;
}

/**
 * Starts the combine job after checking the ids, then waits up to COMBINE_WAIT_MS for it, so a quick
 * combine answers `done` with its report id at once.
 */
export async function startCombine(userId: string, reportIds: readonly string[], title?: string): Promise<JobSnapshot> {
  await requireReports(userId, reportIds);
  const ids = [...reportIds];
  const job = startJob(userId, ids.length + COMBINE_STEPS_AFTER_READING, (progress) =>
    buildCombinedReport(userId, ids, title, progress),
  );
  return waitFor(job, getConfig().COMBINE_WAIT_MS);
}

/** Steps of a combine after reading its sources: merging, writing. */
export const COMBINE_STEPS_AFTER_READING = 2;

/**
 * GET combine-status: the job as soon as it is done, else after COMBINE_STATUS_WAIT_MS (a long-poll).
 * On Lambda a job runs only while some request of its function runs (the environment is frozen in
 * between), so each status call also gives the job that much CPU time. null for an unknown job.
 */
export async function combineStatus(userId: string, jobId: string, waitMs = getConfig().COMBINE_STATUS_WAIT_MS) {
  const job = getJob(userId, jobId);
  if (!job) return null;
  return waitFor(job, waitMs);
}

/** A job as the API shows it: {job_id, status, progress, report_id?, error?}. */
export function presentJob(job: JobSnapshot) {
  return {
    job_id: job.id,
    status: job.status,
    progress: job.progress,
    ...(job.report_id !== undefined ? { report_id: job.report_id } : {}),
    ...(job.error !== undefined ? { error: job.error } : {}),
  };
}
