/**
 * Reading and deleting reports (docs/API.md: list, get, delete). Everything is looked up under the
 * caller's id, so another user's report is simply not found (404).
 */
import { conflict, notFound } from '../errors';
import { log } from '../log';
import type { ReportPage } from '../store/reports.repo';
import { hasItems } from './domain/lifecycle';
import { type ReportRecord } from '../store/report-record';
import type { SellerRecord } from '../store/sellers.repo';
import type { StoredItem } from '../store/items.repo';
import type { UserRecord } from '../store/users.repo';
import type { ReportReader } from './ports';
import { removeReportSummary, type SellerReader, type SummaryDeps } from './analytics/analytics';
import {
  presentReport,
  presentReportColumns,
  presentReportSummary,
  type ApiReport,
  type ApiReportColumns,
  type ApiReportSummary,
} from './present-report';
import { catalogForStaleCheck, isStale, type SettingsDeps } from './worker/report-settings';
import { combinedStaleness, type Staleness } from './combine/combined-stale';
import { listStaleness, type ListStaleDeps } from './combine/list-stale';

/** What reading and renaming reports talk to (the report, list and update routes): stores only. */
export interface ReadDeps extends SettingsDeps, ListStaleDeps {
  reports: Pick<ReportReader, 'getReport' | 'getReportAnyStatus' | 'getReportItems'> & {
    /** A page of the user's reports, newest first. */
    listReports(
      userId: string,
      opts?: { sellerId?: string; cursor?: string | null; limit?: number; ready?: boolean },
    ): Promise<ReportPage>;
    updateReportMeta(
      userId: string,
      reportId: string,
      patch: { title?: string; seller_id?: string | null },
    ): Promise<ReportRecord | null>;
  };
  sellers: SellerReader;
}

/** What deleting a report talks to: the report, its summary and identities, and its source file in S3. */
export interface RemoveDeps {
  reports: Pick<ReportReader, 'getReportAnyStatus' | 'deleteReport'>;
  summaries: Pick<SummaryDeps['summaries'], 'deleteSummary'>;
  identities: { deleteIdentity(userId: string, identity: string, reportId: string): Promise<void> };
  files: { deleteObject(key: string): Promise<void> };
  /** An older report of the user with the same rows (upload/duplicates.ts findContentDuplicate), or null. */
  olderCopyOf(
    userId: string,
    fingerprint: string,
    self: { id: string; created_at: string },
  ): Promise<{ id: string } | null>;
  /** Gives back a report's charge once (store/limits.repo.ts refundLimits; a second call is a no-op). */
  refund(input: { userId: string; rows: number; reportId: string }): Promise<unknown>;
}

export const reportNotFound = () => notFound('Report not found', 'report_not_found');

/** The caller's report or 404 `report_not_found` (malformed ids included). */
export async function requireReport(
  deps: { reports: Pick<ReadDeps['reports'], 'getReport'> },
  userId: string,
  reportId: string,
): Promise<ReportRecord> {
  const record = await deps.reports.getReport(userId, reportId);
  if (!record) throw reportNotFound();
  return record;
}

export async function sellerOf(
  deps: { sellers: Pick<ReadDeps['sellers'], 'getSeller'> },
  userId: string,
  record: ReportRecord,
): Promise<SellerRecord | null> {
  return record.seller_id ? deps.sellers.getSeller(userId, record.seller_id) : null;
}

export interface ReportView {
  record: ReportRecord;
  items: StoredItem[];
  seller: SellerRecord | null;
  stale: boolean;
  /** A combined report: which source changed how (combined-stale.ts); null otherwise. */
  staleness?: Staleness;
}

/**
 * GET /api/reports/{id}: the report with its items and whether a rebuild would change it. A report
 * still being built by its upload, or failed, is shown without items (its `status` says why).
 */
export async function getReportView(deps: ReadDeps, user: UserRecord, reportId: string): Promise<ReportView> {
  const record = await deps.reports.getReportAnyStatus(user.id, reportId);
  if (!record) throw reportNotFound();
  if (!hasItems(record)) return { record, items: [], seller: await sellerOf(deps, user.id, record), stale: false };
  const catalog = catalogForStaleCheck(deps, record, user.id);
  const [items, seller] = await Promise.all([deps.reports.getReportItems(record), sellerOf(deps, user.id, record)]);
  if (record.is_combined) {
    const staleness = await combinedStaleness(deps, user.id, record);
    return { record, items, seller, stale: staleness.stale, staleness };
  }
  const stale = record.status === 'ready' ? await isStale(deps, record, items, user, seller, catalog) : false;
  return { record, items, seller, stale };
}

export function presentView(v: ReportView): ApiReport {
  return presentReport(v.record, v.items, v.seller, v.stale, v.staleness);
}

export function presentViewColumns(v: ReportView): ApiReportColumns {
  return presentReportColumns(v.record, v.items, v.seller, v.stale, v.staleness);
}

/**
 * GET /api/reports: a page of summaries, newest first, optionally of one seller. Only reads: reports
 * whose processing stopped are picked up by the scheduled sweep (recover.ts sweepPendingReports).
 */
export async function listReportSummaries(
  deps: ReadDeps,
  user: UserRecord,
  opts: { sellerId?: string; cursor?: string | null },
): Promise<{ items: ApiReportSummary[]; next_cursor: string | null }> {
  const page = await deps.reports.listReports(user.id, opts);
  const sellers = new Map<string, SellerRecord>();
  if (page.items.some((r) => r.seller_id))
    for (const s of await deps.sellers.listSellers(user.id)) sellers.set(s.id, s);
  // Each item says whether a rebuild would change it, and why (list-stale.ts).
  const stale = await listStaleness(deps, user, page.items, sellers);
  return {
    items: page.items.map((r) => ({
      ...presentReportSummary(r, (r.seller_id && sellers.get(r.seller_id)) || null),
      ...(stale.get(r.id) ?? { stale: false, stale_reason: null }),
    })),
    next_cursor: page.next_cursor,
  };
}

/**
 * PATCH /api/reports/{id} {title?, seller_id?}: renames the report and/or links it to one of the
 * caller's sellers (null unlinks). A seller that is not the caller's → 404 `seller_not_found`; the
 * report not the caller's → 404 `report_not_found`. Numbers and `version` stay as they are: a new
 * seller's tax profile reaches the numbers by a rebuild (the report shows stale until then).
 */
export async function patchReport(
  deps: {
    reports: Pick<ReadDeps['reports'], 'getReport' | 'updateReportMeta'>;
    sellers: Pick<ReadDeps['sellers'], 'getSeller'>;
  },
  userId: string,
  reportId: string,
  patch: { title?: string; seller_id?: string | null },
): Promise<{ record: ReportRecord; seller: SellerRecord | null }> {
  await requireReport(deps, userId, reportId);
  let seller: SellerRecord | null | undefined;
  if (patch.seller_id) {
    seller = await deps.sellers.getSeller(userId, patch.seller_id);
    if (!seller) throw notFound('Seller not found', 'seller_not_found');
  }
  const record = await deps.reports.updateReportMeta(userId, reportId, patch);
  if (!record) throw reportNotFound();
  return { record, seller: seller === undefined ? await sellerOf(deps, userId, record) : seller };
}

/**
 * DELETE /api/reports/{id}: items, record and source file go; limits are not refunded. A failed report
 * can be deleted; one the worker is still on answers 409 `report_processing`.
 */
export async function removeReport(deps: RemoveDeps, userId: string, reportId: string): Promise<void> {
  const record = await deps.reports.getReportAnyStatus(userId, reportId);
  if (!record) throw reportNotFound();
  if (record.status === 'processing')
    throw conflict('report_processing', 'The report is being processed; delete it once it is ready or failed');
  // A copy of a week the user already has (uploaded with allow_duplicate, or before its rows were
  // recognised) is refunded when it is deleted: the rows were paid for once already.
  const copyOf =
    record.status === 'ready' && !record.is_combined && record.content_fingerprint && record.rows > 0
      ? await deps.olderCopyOf(userId, record.content_fingerprint, record)
      : null;
  await removeReportSummary(deps, userId, record.id);
  const deleted = await deps.reports.deleteReport(userId, record.id);
  if (!deleted) throw reportNotFound();
  if (copyOf) {
    await deps
      .refund({ userId, rows: deleted.rows, reportId: deleted.id })
      .catch((e: unknown) => log('error', 'copy refund failed', { report_id: reportId, error: String(e) }));
  }
  // A leftover identity record is skipped by the duplicate check (its report is gone): only logged.
  for (const identity of [deleted.identity, deleted.content_fingerprint ? `fp:${deleted.content_fingerprint}` : null]) {
    if (!identity) continue;
    await deps.identities
      .deleteIdentity(userId, identity, deleted.id)
      .catch((e: unknown) => log('error', 'identity delete failed', { report_id: reportId, error: String(e) }));
  }
  if (deleted.source_path) {
    // The record is gone already: a file left behind is invisible to the user, so a failure here is only logged.
    await deps.files
      .deleteObject(deleted.source_path)
      .catch((e: unknown) => log('error', 'source delete failed', { report_id: reportId, error: String(e) }));
  }
}
