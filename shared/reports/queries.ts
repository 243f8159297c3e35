/**
 * Reading and deleting reports (API.md: list, get, delete). Everything is looked up under the
 * caller's id, so another user's report is simply not found (404).
 */
import { conflict, notFound } from '../errors';
import { log } from '../log';
import {
  deleteReport,
  getReport,
  getReportAnyStatus,
  getReportItems,
  hasItems,
  listReports,
  type ReportRecord,
} from '../store/reports.repo';
import { getSeller, listSellers, type SellerRecord } from '../store/sellers.repo';
import type { StoredItem } from '../store/items.repo';
import type { UserRecord } from '../store/users.repo';
import { presentReport, presentReportSummary, type ApiReport, type ApiReportSummary } from './present';
import { recoverAbandonedUploads } from './recover';
import { isStale } from './settings';
import { deleteObject } from './storage';

export const reportNotFound = () => notFound('Report not found', 'report_not_found');

/** The caller's report or 404 `report_not_found` (malformed ids included). */
export async function requireReport(userId: string, reportId: string): Promise<ReportRecord> {
  const record = await getReport(userId, reportId);
  if (!record) throw reportNotFound();
  return record;
}

export async function sellerOf(userId: string, record: ReportRecord): Promise<SellerRecord | null> {
  return record.seller_id ? getSeller(userId, record.seller_id) : null;
}

export interface ReportView {
  record: ReportRecord;
  items: StoredItem[];
  seller: SellerRecord | null;
  stale: boolean;
}

/**
 * GET /api/reports/{id}: the report with its items and whether a rebuild would change it. A report
 * still being built by its upload, or failed, is shown without items (its `status` says why).
 */
export async function getReportView(user: UserRecord, reportId: string): Promise<ReportView> {
  const record = await getReportAnyStatus(user.id, reportId);
  if (!record || record.status === 'building') throw reportNotFound();
  if (!hasItems(record)) return { record, items: [], seller: await sellerOf(user.id, record), stale: false };
  const [items, seller] = await Promise.all([getReportItems(record), sellerOf(user.id, record)]);
  const stale = record.status === 'ready' ? await isStale(record, items, user, seller) : false;
  return { record, items, seller, stale };
}

export function presentView(v: ReportView): ApiReport {
  return presentReport(v.record, v.items, v.seller, v.stale);
}

/**
 * GET /api/reports: a page of summaries, newest first, optionally of one seller. Uploads of the user
 * whose process died mid-way are undone first (recover.ts), which gives their charge back.
 */
export async function listReportSummaries(
  userId: string,
  opts: { sellerId?: string; cursor?: string | null },
): Promise<{ items: ApiReportSummary[]; next_cursor: string | null }> {
  await recoverAbandonedUploads(userId);
  const page = await listReports(userId, opts);
  const sellers = new Map<string, SellerRecord>();
  if (page.items.some((r) => r.seller_id)) for (const s of await listSellers(userId)) sellers.set(s.id, s);
  return {
    items: page.items.map((r) => presentReportSummary(r, (r.seller_id && sellers.get(r.seller_id)) || null)),
    next_cursor: page.next_cursor,
  };
}

/**
 * DELETE /api/reports/{id}: items, record and source file go; limits are not refunded. A failed report
 * can be deleted; one the worker is still on answers 409 `report_processing`.
 */
export async function removeReport(userId: string, reportId: string): Promise<void> {
  const record = await getReportAnyStatus(userId, reportId);
  if (!record || record.status === 'building') throw reportNotFound();
  if (record.status === 'processing')
    throw conflict('report_processing', 'The report is being processed; delete it once it is ready or failed');
  const deleted = await deleteReport(userId, record.id);
  if (!deleted) throw reportNotFound();
  if (deleted.source_path) {
    // The record is gone already: a file left behind is invisible to the user, so a failure here is only logged.
    await deleteObject(deleted.source_path).catch((e: unknown) =>
      log('error', 'source delete failed', { report_id: reportId, error: String(e) }),
    );
  }
}
