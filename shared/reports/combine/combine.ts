/**
 * Combining reports (docs/API.md: POST /api/reports/combine; docs/METRICS.md, Combining reports).
 * In: the caller, 2..100 distinct report ids, an optional title.
 * Out: a job (shared/jobs/registry.ts) whose result is the id of a new combined report.
 * Steps: check every id is one of the caller's ready reports (any missing → 404 before a job starts);
 * start a job that reads each source's items (their EFFECTIVE values, so corrections carry over;
 * progress = sources read), merges them with the engine's combineItems, recomputes totals and
 * commission by category, and writes the new report: is_combined, source_report_ids, no source file,
 * the union of the periods, the sources' seller when they share one. No limits are charged.
 * Each use case takes its dependencies first (CombineDeps): functions/reports/combine.handler.ts wires
 * the report store, the process's job registry, the clock and the waits; unit tests pass fakes.
 */
import type { CombineJob } from '../../contract/shapes';
import type { Clock } from '../../deps';
import { conflict, notFound, unprocessable } from '../../errors';
import type { JobSnapshot } from '../../jobs/job';
import type { JobRegistry, ProgressReporter } from '../../jobs/registry';
// The engine's modules one by one, not its index: the index also holds the readers (SheetJS, yauzl).
import { combineAllocations } from '../../engine/allocation';
import { applyManualValue } from '../../engine/build';
import { combineItems, combinePeriods, combineSellers } from '../../engine/combine';
import { commissionByCategory, computeTotals } from '../../engine/totals';
import type { ComputedItem, ManualValues, ReportWarning, TaxProfile } from '../../engine/types';
import type { StoredItem } from '../../store/items.repo';
import type { ItemsReplacer, ReportReader } from '../ports';
import type { newReportId, ReportRecord } from '../../store/report-record';
import { coversOfSources, findOverlap } from '../upload/report-identity';
import { beforeDeadline, LATE, tryAgain } from '../deadline';
import type { StaleSource } from './list-stale';
import { wbPartOf, type WbPart } from '../../marketplaces/wb/finance/reconcile';
import { describeError, log } from '../../log';

/** The report store as the combine use cases use it (shared/store/reports.repo.ts in production). */
export type CombineReports = Pick<ReportReader, 'getReport' | 'getReportItems'> &
  ItemsReplacer & {
    /** Writes a complete report with its items, no charge (report-numbers.repo.ts). */
    createReport(
      record: ReportRecord,
      items: readonly ComputedItem[],
    ): Promise<{ record: ReportRecord; items: StoredItem[] }>;
    newReportId: typeof newReportId;
  };

export interface CombineDeps {
  reports: CombineReports;
  /** The job registry of this process (one per execution environment; job states shared by its store). */
  jobs: JobRegistry;
  clock: Clock;
  /** How long a start waits for its job (COMBINE_WAIT_MS), and a status call (COMBINE_STATUS_WAIT_MS). */
  waits: { startMs(): number; statusMs(): number };
}

/** Source warnings about a file's layout, not its figures: one line in a combined report. */
const SAID_ONCE: ReadonlySet<string> = new Set(['percent_as_fraction']);

export const reportNotFound = (details: Record<string, unknown> = {}) => {
  const e = notFound('Report not found', 'report_not_found');
  Object.assign(e.details, details);
  return e;
};

/**
 * The caller's ready reports with these ids, in the given order; 404 `report_not_found` listing the
 * ids that are not the caller's (missing, another user's or malformed: never says which).
 */
export async function requireReports(
  reports: Pick<CombineReports, 'getReport'>,
  userId: string,
  reportIds: readonly string[],
): Promise<ReportRecord[]> {
  const records = await Promise.all(reportIds.map((id) => reports.getReport(userId, id)));
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
async function readSource(
  reports: CombineReports,
  userId: string,
  reportId: string,
): Promise<{ record: ReportRecord; items: StoredItem[] }> {
  for (let attempt = 0; ; attempt++) {
    const record = await reports.getReport(userId, reportId);
    if (!record) throw reportNotFound({ report_ids: [reportId] });
    const items = await reports.getReportItems(record);
    const after = await reports.getReport(userId, reportId);
    if (!after) throw reportNotFound({ report_ids: [reportId] });
    if (after.version === record.version && after.items_gen === record.items_gen) return { record, items };
    if (attempt >= 4) throw new Error(`combine: report ${reportId} kept changing while being read`);
  }
}

/** 422 `overlapping_reports` naming the first pair of the selection that would count a report twice. */
export function assertNoOverlap(records: ReadonlyArray<ReportRecord>): void {
  const overlap = findOverlap(records);
  if (!overlap) return;
  const [a, b] = overlap.report_ids.map((id) => records.find((r) => r.id === id) as ReportRecord);
  throw unprocessable(
    'overlapping_reports',
    overlap.reason === 'same_report'
      ? 'The selection holds the same report twice'
      : overlap.reason === 'shared_rows'
        ? 'Two reports of the selection hold the same rows (one is inside the other)'
        : overlap.reason === 'combined_with_source'
          ? 'The selection holds a combined report together with one of its sources'
          : 'The selection holds two combined reports with a source in common',
    { report_ids: overlap.report_ids, titles: [a!.title, b!.title], reason: overlap.reason },
  );
}

interface Combined {
  items: ComputedItem[];
  fields: Pick<
    ReportRecord,
    | 'seller_id'
    | 'period_from'
    | 'period_to'
    | 'rows'
    | 'source_report_ids'
    | 'sources'
    | 'covers'
    | 'wb_parts'
    | 'tax_profile'
    | 'totals'
    | 'commission_by_category'
    | 'warnings'
    | 'item_count'
  >;
}

/** Reads the sources (each consistent with one version of it) and merges them. */
async function combineSources(
  reports: CombineReports,
  userId: string,
  reportIds: readonly string[],
  progress: ProgressReporter,
  manual: Record<string, ManualValues> = {},
): Promise<Combined> {
  // Steps: one per source read, then merging, then writing (COMBINE_STEPS_AFTER_READING).
  const sources: Array<{ record: ReportRecord; items: StoredItem[] }> = [];
  for (const id of reportIds) {
    progress.step('reading');
    sources.push(await readSource(reports, userId, id));
    progress.advance();
  }
  progress.step('merging');
  const itemsOf = (s: { items: StoredItem[] }): ComputedItem[] =>
    s.items.map(({ item_id: _id, rev: _rev, ...item }) => item);
  const records = sources.map((s) => s.record);
  const tax = records[0]!.tax_profile;
  // Corrections made on the combined report itself come back by article (recombine).
  const items = combineItems(sources.map(itemsOf)).map((item) => {
    let out = item;
    for (const [field, value] of Object.entries(manual[item.article] ?? {}))
      if (typeof value === 'number') out = applyManualValue(out, field, value, tax);
    return out;
  });
  const period = combinePeriods(records);
  const warnings: ReportWarning[] = [];
  if (!records.every((r) => sameTax(r.tax_profile, tax))) {
    warnings.push({
      code: 'mixed_tax_profiles',
      message: 'Отчёты посчитаны с разными налоговыми настройками: НДС и УСН сложены как есть.',
      details: { report_ids: records.map((r) => r.id) },
    });
  }
  const allocation = combineAllocations(records.map((r) => r.allocation));
  if (allocation?.mixed)
    warnings.push({
      code: 'mixed_allocation',
      message: 'Расходы без артикула в отчётах распределены разными способами: доли сложены как есть.',
      details: { report_ids: records.map((r) => r.id) },
    });
  // A note on how the files are written (kVV as fractions) is said once, naming every report it concerns.
  const once = new Map<string, { report_ids: string[] }>();
  for (const r of records)
    for (const w of r.warnings) {
      const seen = once.get(w.code);
      if (seen) {
        seen.report_ids.push(r.id);
        continue;
      }
      const details: Record<string, unknown> = { ...(w.details ?? {}), report_id: r.id };
      if (SAID_ONCE.has(w.code)) {
        const named = { report_ids: [r.id] };
        once.set(w.code, named);
        details.report_ids = named.report_ids;
      }
      warnings.push({ ...w, details });
    }
  return {
    items,
    fields: {
      seller_id: combineSellers(records.map((r) => r.seller_id)),
      period_from: period.period_from,
      period_to: period.period_to,
      rows: records.reduce((sum, r) => sum + r.rows, 0),
      source_report_ids: records.map((r) => r.id),
      sources: records.map((r) => ({ id: r.id, version: r.version ?? 1, rebuilt_at: r.rebuilt_at ?? null })),
      covers: coversOfSources(records),
      ...wbPartsOf(records),
      tax_profile: tax,
      ...(allocation ? { allocation: allocation.summary } : {}),
      totals: computeTotals(items.map((i) => i.effective)),
      commission_by_category: commissionByCategory(items),
      warnings,
      item_count: items.length,
    },
  };
}

/**
 * The WB reports inside (a source that is itself combined brings its own): each reconciled on its own
 * (reconcile.ts reconcileParts). None when no source came from WB.
 */
function wbPartsOf(records: readonly ReportRecord[]): Pick<ReportRecord, 'wb_parts'> {
  const parts: WbPart[] = [];
  for (const r of records) {
    if (r.wb_parts) parts.push(...r.wb_parts);
    const own = r.is_combined ? null : wbPartOf(r);
    if (own) parts.push(own);
  }
  return parts.length > 0 ? { wb_parts: parts } : {};
}

/** Reads, merges and writes: the job's body. Returns the new report's id. */
export async function buildCombinedReport(
  deps: Pick<CombineDeps, 'reports' | 'clock'>,
  userId: string,
  reportIds: readonly string[],
  title: string | undefined,
  progress: ProgressReporter,
): Promise<string> {
  const { items, fields } = await combineSources(deps.reports, userId, reportIds, progress);
  const record: ReportRecord = {
    ...fields,
    id: deps.reports.newReportId(),
    user_id: userId,
    title: title ?? defaultCombinedTitle(fields),
    report_number: null,
    format: null,
    is_combined: true,
    source_path: null,
    source_name: null,
    source_size: null,
    created_at: deps.clock.now().toISOString(),
  };
  progress.advance();
  progress.step('writing');
  const created = await deps.reports.createReport(record, items);
  return created.record.id;
}

/**
 * Starts the combine job after checking the ids (404 for any not the caller's, 422
 * `overlapping_reports` for a selection counting a report twice), then waits up to COMBINE_WAIT_MS
 * for it, so a quick combine answers `done` with its report id at once.
 */
export async function startCombine(
  deps: CombineDeps,
  userId: string,
  reportIds: readonly string[],
  title?: string,
  budgetMs?: number,
  /** Which of the chosen reports are stale (list-stale.ts staleSources); found while the job runs. */
  staleOf?: (records: ReportRecord[]) => Promise<StaleSource[]>,
): Promise<StartedJob> {
  return withinBudget(deps, budgetMs, 'combine', async (started) => {
    const records = await requireReports(deps.reports, userId, reportIds);
    assertNoOverlap(records);
    const ids = [...reportIds];
    const job = deps.jobs.startJob(userId, ids.length + COMBINE_STEPS_AFTER_READING, (progress) =>
      buildCombinedReport(deps, userId, ids, title, progress),
    );
    started(job);
    const [snapshot, stale] = await Promise.all([
      deps.jobs.waitFor(job, deps.waits.startMs()),
      // Told, not refused (the page asked the seller before): a failure to find out leaves the field out.
      staleOf?.(records).catch((e: unknown) => {
        log('warn', 'combine: staleness of the sources unknown', describeError(e));
        return undefined;
      }),
    ]);
    return stale ? { ...snapshot, stale_sources: stale } : snapshot;
  });
}

/** A job as a start answers it: with the chosen reports that were stale, when that is known. */
export type StartedJob = JobSnapshot & { stale_sources?: StaleSource[] };

/**
 * Runs a start within the request's budget (deadline.ts): past it, the job as it is now when one was
 * started (its state may not be stored yet: another environment may not know it until it is), else
 * 503 `try_again`.
 */
async function withinBudget(
  deps: CombineDeps,
  budgetMs: number | undefined,
  what: string,
  start: (started: (job: JobSnapshot) => void) => Promise<JobSnapshot>,
): Promise<JobSnapshot> {
  let job: JobSnapshot | undefined;
  const r = await beforeDeadline(
    start((j) => (job = j)),
    budgetMs,
    what,
  );
  if (r !== LATE) return r;
  if (job) return deps.jobs.getJob(job.owner, job.id) ?? job;
  throw tryAgain();
}

/** Steps of a combine after reading its sources: merging, writing. */
export const COMBINE_STEPS_AFTER_READING = 2;

/**
 * GET combine-status: the job as soon as it is done, else after COMBINE_STATUS_WAIT_MS (a long-poll).
 * On Lambda a job runs only while some request of its environment runs (the environment is frozen in
 * between), so each status call that reaches it also gives the job that much CPU time. A call that
 * reaches another environment answers at once from the job's stored state (registry `findJob`).
 * null for a job neither in memory nor stored.
 */
export async function combineStatus(deps: CombineDeps, userId: string, jobId: string): Promise<JobSnapshot | null> {
  const job = await deps.jobs.findJob(userId, jobId);
  if (!job) return null;
  return deps.jobs.waitFor(job, deps.waits.statusMs());
}

const RECOMBINE_ATTEMPTS = 3;

export const notCombined = () =>
  unprocessable('not_combined', 'Only a combined report can be recombined; rebuild an uploaded report instead');

export const sourcesMissing = (ids: string[]) =>
  conflict('source_missing', 'A source of this combined report was deleted; it cannot be recombined', {
    report_ids: ids,
  });

/** The sources of a combined report that are gone (not among the caller's ready reports). */
async function missingSources(reports: CombineReports, userId: string, record: ReportRecord): Promise<string[]> {
  const ids = record.source_report_ids ?? [];
  const found = await Promise.all(ids.map((id) => reports.getReport(userId, id)));
  return ids.filter((_, i) => found[i] === null);
}

/**
 * The recombine job's body: combines the CURRENT sources again into the same report (the next item
 * generation, switched in one conditional update like a rebuild; corrections made on the combined
 * report are re-applied by article). Retries when the report changed meanwhile.
 */
export async function recombineReport(
  deps: Pick<CombineDeps, 'reports' | 'clock'>,
  userId: string,
  reportId: string,
  progress: ProgressReporter,
): Promise<string> {
  const { reports } = deps;
  for (let attempt = 1; ; attempt++) {
    const record = await reports.getReport(userId, reportId);
    if (!record) throw reportNotFound({ report_ids: [reportId] });
    const missing = await missingSources(reports, userId, record);
    if (missing.length > 0) throw sourcesMissing(missing);
    const manual: Record<string, ManualValues> = {};
    for (const it of await reports.getReportItems(record))
      if (Object.keys(it.manual_values ?? {}).length > 0) manual[it.article] = it.manual_values;
    const { items, fields } = await combineSources(reports, userId, record.source_report_ids ?? [], progress, manual);
    const { seller_id: _seller, ...patch } = fields;
    progress.advance();
    progress.step('writing');
    const rebuiltAt = deps.clock.now().toISOString();
    const replaced = await reports.replaceItems(record, items, { ...patch, rebuilt_at: rebuiltAt });
    if (replaced) return record.id;
    if (attempt >= RECOMBINE_ATTEMPTS)
      throw conflict('report_busy', 'The report is being changed by another request; try again');
    progress.set(0);
  }
}

/**
 * POST /api/reports/{id}/recombine: 404 when not the caller's report, 422 `not_combined` for an
 * uploaded one, 409 `source_missing` when a source is gone; else a job like combine's (same status
 * route) whose report_id is this report's.
 */
export async function startRecombine(
  deps: CombineDeps,
  userId: string,
  reportId: string,
  budgetMs?: number,
): Promise<JobSnapshot> {
  return withinBudget(deps, budgetMs, 'recombine', async (started) => {
    const [record] = await requireReports(deps.reports, userId, [reportId]);
    if (!record!.is_combined || !record!.source_report_ids?.length) throw notCombined();
    const missing = await missingSources(deps.reports, userId, record!);
    if (missing.length > 0) throw sourcesMissing(missing);
    const job = deps.jobs.startJob(userId, record!.source_report_ids.length + COMBINE_STEPS_AFTER_READING, (progress) =>
      recombineReport(deps, userId, record!.id, progress),
    );
    started(job);
    return deps.jobs.waitFor(job, deps.waits.startMs());
  });
}

/** A job as the API shows it: {job_id, status, progress, report_id?, error?}. */
export function presentJob(job: StartedJob): CombineJob {
  return {
    job_id: job.id,
    status: job.status,
    progress: job.progress,
    ...(job.report_id !== undefined ? { report_id: job.report_id } : {}),
    ...(job.error !== undefined ? { error: job.error } : {}),
    ...(job.stale_sources !== undefined ? { stale_sources: job.stale_sources } : {}),
  };
}
