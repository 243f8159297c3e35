/**
 * A report read from WB's Finance API becomes a report (docs/ARCHITECTURE.md «The WB sync»): its pages
 * of rows are joined into one stored source (`sources/<user>/<report>/wb-<id>-<seller>.wbapi.json.gz`),
 * its rows charged against the limits in ONE transaction with the report record (`processing`, task
 * upload) and its identity record — the same charge as an uploaded file's — and the report worker builds
 * it through the engine like a file (read-source.ts). A rebuild later reads the same stored rows.
 *
 * Idempotent: the report's id is chosen once, before the first attempt (the connection keeps it), and
 * the charge puts the report on the condition that the id is new, so a repeated import after a crash
 * finds the report instead of charging again. A WB report the user already has — uploaded as a file named
 * with its numbers (identity `num:<seller>:<report>`), or imported by another connection — is skipped,
 * never charged; so is one whose rows the user uploaded as a file under any name (the same content
 * fingerprint, engine/fingerprint.ts), found once its pages are read and before anything is charged.
 */
import type { Clock, IdSource } from '../../deps';
import { AppError } from '../../errors';
import { computeTotals } from '../../engine';
import type { WorkerInvoker } from '../../jobs/worker-invoke';
import type { ReportRecord } from '../../store/report-record';
import type { UserRecord } from '../../store/users.repo';
import type { WbConnectionRecord, WbPendingReport } from '../../store/wb-connections.repo';
import type { ReportSummary } from '../../marketplaces/wb/finance/schemas';
import type { ImportOutcome } from '../../marketplaces/wb/sync/step';
import { wbIdentity } from '../../marketplaces/wb/sync/step';
import type { DocTransactItem } from '../../store/client';
import type { ContentFingerprint } from '../../engine/fingerprint';
import { WB_DUPLICATE_ROWS, wbSourceName } from './read-source';
import { contentIdentity, rowIdentity } from '../upload/report-identity';
import { effectiveTaxProfile } from './report-settings';

export interface WbImportDeps {
  clock: Clock;
  ids: IdSource;
  users: { getUserById(id: string): Promise<UserRecord | null> };
  identities: { findReportsByIdentity(userId: string, identity: string): Promise<string[]> };
  reports: { getReportAnyStatus(userId: string, id: string): Promise<ReportRecord | null> };
  files: {
    readObject(key: string): Promise<Buffer | null>;
    putObject(key: string, body: Buffer): Promise<void>;
    sourceObjectKey(userId: string, reportId: string, filename: string): string;
  };
  /** Deletes the pages of a report once it is imported or a duplicate (connection-deps.ts deletePages). */
  deletePages(keys: readonly string[]): Promise<void>;
  /** The charge transaction (limits.repo chargeLimits). */
  chargeLimits(input: {
    userId: string;
    rows: number;
    reportId: string;
    extraItems: DocTransactItem[];
  }): Promise<unknown>;
  /** The Puts of the charge: the report `processing` and its identity record. */
  puts: {
    processingReportPut(record: ReportRecord, taskId: string, leaseMs: number, now: number): DocTransactItem;
    identityPutTransactItem(userId: string, identity: string, reportId: string, createdAt: string): DocTransactItem;
  };
  /** The content fingerprint of the joined pages (read-source.ts fingerprintWbSource). */
  contentOf(source: Buffer): Promise<ContentFingerprint>;
  /** The user's report with these rows already, failed ones aside (duplicates.ts findContentDuplicate). */
  findContentDuplicate(userId: string, fingerprint: string, rowIds?: readonly string[]): Promise<{ id: string } | null>;
  invoker: WorkerInvoker;
  leaseMs: () => number;
  log: (level: 'info' | 'warn' | 'error', message: string, data: Record<string, unknown>) => void;
}

/** «Отчёт WB № 900000001 (05.01–11.01.2026)». */
function wbTitle(wbReportId: number, from: string, to: string): string {
  const ru = (iso: string) => iso.split('-').reverse().join('.');
  const a = ru(from);
  const b = ru(to);
  return `Отчёт WB № ${wbReportId} (${from.slice(0, 4) === to.slice(0, 4) ? a.slice(0, 5) : a}–${b})`;
}

/** The list's sums as stored on the report (kopecks by list field). */
function sumsOf(s: ReportSummary | null): Record<string, number> | undefined {
  if (!s) return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(s)) if (k.endsWith('Sum') || k === 'paymentSchedule') out[k] = Number(v);
  return out;
}

/** The report's data-quality note when WB sent rows again (an rrdId already read): they were dropped. */
function duplicateNote(p: WbPendingReport): ReportRecord['warnings'] {
  const n = p.pages.reduce((sum, page) => sum + (page.duplicates ?? 0), 0);
  if (n === 0) return [];
  return [
    {
      code: WB_DUPLICATE_ROWS,
      message: `WB прислал ${n} строк повторно (тот же rrd_id): они отброшены, в отчёте и в лимитах каждая строка учтена один раз.`,
      details: { duplicates: n },
    },
  ];
}

export async function importWbReport(
  deps: WbImportDeps,
  c: WbConnectionRecord,
  p: WbPendingReport,
  sums: ReportSummary | null,
  costsPending: readonly string[] = [],
): Promise<ImportOutcome> {
  const outcome = await importOnce(deps, c, p, sums, costsPending);
  // The pages are read into the report's own source (or not wanted): gone from the bucket. A repeated
  // import after a crash decides without them (the report or the duplicate is found first).
  if (outcome.kind !== 'insufficient_limits') await deps.deletePages(p.pages.map((page) => page.key));
  return outcome;
}

async function importOnce(
  deps: WbImportDeps,
  c: WbConnectionRecord,
  p: WbPendingReport,
  sums: ReportSummary | null,
  costsPending: readonly string[],
): Promise<ImportOutcome> {
  const userId = c.user_id;
  const identity = wbIdentity(c.wb_seller_id, p.ref.reportId);
  const owners = await deps.identities.findReportsByIdentity(userId, identity);
  if (owners.includes(p.report_id)) return { kind: 'imported', reportId: p.report_id };
  for (const id of owners) {
    if (await deps.reports.getReportAnyStatus(userId, id)) return { kind: 'duplicate' };
  }
  const user = await deps.users.getUserById(userId);
  if (!user) throw new AppError(404, 'not_found', 'user not found');

  // One stored source of the pages in rrdId order (gzip members one after another read as one stream).
  const filename = wbSourceName(p.ref.reportId, c.wb_seller_id);
  const sourceKey = deps.files.sourceObjectKey(userId, p.report_id, filename);
  const parts: Buffer[] = [];
  for (const page of p.pages) {
    const body = await deps.files.readObject(page.key);
    if (!body) throw new AppError(409, 'source_missing', `a page of WB report ${p.ref.reportId} is missing`);
    parts.push(body);
  }
  const source = Buffer.concat(parts);
  // The same rows uploaded as a file (any name, any container) are this report already: skipped, not charged.
  const content = await deps.contentOf(source);
  if (await deps.findContentDuplicate(userId, content.value, content.row_ids)) return { kind: 'duplicate' };
  await deps.files.putObject(sourceKey, source);

  const now = deps.clock.now();
  const record: ReportRecord = {
    id: p.report_id,
    user_id: userId,
    title: wbTitle(p.ref.reportId, p.ref.dateFrom.slice(0, 10), p.ref.dateTo.slice(0, 10)),
    report_number: String(p.ref.reportId),
    seller_id: c.seller_id,
    period_from: null,
    period_to: null,
    rows: p.rows,
    format: 'wb_api',
    is_combined: false,
    identity,
    content_fingerprint: content.value,
    source_path: sourceKey,
    source_name: filename,
    source_size: source.length,
    created_at: now.toISOString(),
    tax_profile: effectiveTaxProfile(user, null),
    totals: computeTotals([]),
    commission_by_category: [],
    warnings: duplicateNote(p),
    item_count: 0,
    source: 'wb_api',
    wb_report_id: String(p.ref.reportId),
    wb_connection_id: c.id,
    wb_sums: sumsOf(sums),
    // WB's other APIs are asked for the week's per-article costs next; until they answer, not final.
    ...(costsPending.length > 0 ? { costs_pending: [...costsPending] } : {}),
  };
  const taskId = deps.ids.newId();
  try {
    await deps.chargeLimits({
      userId,
      rows: p.rows,
      reportId: record.id,
      extraItems: [
        deps.puts.processingReportPut(record, taskId, deps.leaseMs(), now.getTime()),
        deps.puts.identityPutTransactItem(userId, identity, record.id, record.created_at),
        // Found by an upload of the same rows from now on (the worker writes it again, as for a file).
        deps.puts.identityPutTransactItem(userId, contentIdentity(content.value), record.id, record.created_at),
        // …and by WB's ids of its rows, whatever the file's name, format or extra rows.
        ...(content.row_ids ?? []).map((rowId) =>
          deps.puts.identityPutTransactItem(userId, rowIdentity(rowId), record.id, record.created_at),
        ),
      ],
    });
  } catch (e) {
    if (e instanceof AppError && e.code === 'insufficient_limits') {
      return { kind: 'insufficient_limits', rows: p.rows, limits: Number(e.details.limits ?? 0) };
    }
    // The report's Put failed its condition: an earlier attempt charged it already.
    if (e instanceof AppError && e.code === 'transaction_conflict' && e.details.item_index === 0) {
      return { kind: 'imported', reportId: record.id };
    }
    throw e;
  }
  deps.log('info', 'WB report imported', { report_id: record.id, wb_report_id: p.ref.reportId, rows: p.rows });
  try {
    await deps.invoker.invoke({ kind: 'report', user_id: userId, report_id: record.id, task_id: taskId });
  } catch (e) {
    // The report stays processing; the recovery sweep hands it to a worker once its lease runs out.
    deps.log('error', 'worker invoke failed', { report_id: record.id, error: String(e) });
  }
  return { kind: 'imported', reportId: record.id };
}
