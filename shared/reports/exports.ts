/**
 * Files a user takes away (docs/API.md: export, source, summary-export). Everything is looked up under the
 * caller's id, so another user's report is a 404 like a missing one.
 *
 * - reportWorkbook: the report as .xlsx (shared/export/xlsx-export.ts), named after its number.
 * - reportSource: the stored source file as uploaded: its bytes when small enough for a Lambda answer
 *   (base64 grows them by a third, and a Lambda answer is capped at 6 MB), else a presigned GET of
 *   five minutes that names the file the same way.
 * - summaryWorkbook: the legacy .xls summary of 1..100 reports (shared/export/xls-summary.ts).
 */
import { getConfig } from '../config';
import { notFound } from '../errors';
import { exportSummaryXls } from '../export/xls-summary';
import { exportReportXlsx } from '../export/xlsx-export';
import type { ExportReport, SummaryRow } from '../export/types';
import { objectSize, presignGet, readObject } from '../files/objects';
import * as reportStore from '../store/reports.repo';
import { getReportItems } from '../store/reports.repo';
import { getSeller, listSellers, type SellerRecord } from '../store/sellers.repo';
import { assertNoOverlap, reportNotFound, requireReports } from './combine';

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const XLS_TYPE = 'application/vnd.ms-excel';
export const SOURCE_URL_TTL_SECONDS = 300;

export const sourceMissing = () => notFound('The report has no stored source file', 'source_missing');

/** A file name without path separators or control characters, kept short. */
function safeName(name: string): string {
  const clean = [...name]
    .map((ch) => (ch.charCodeAt(0) < 32 || '\\/:*?"<>|'.includes(ch) ? ' ' : ch))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.slice(0, 120) || 'report';
}

export interface FileOut {
  filename: string;
  contentType: string;
  data: Buffer;
}

/** GET /api/reports/{id}/export: "Отчёт <number>.xlsx" (a combined report: "<title>.xlsx"). */
export async function reportWorkbook(userId: string, reportId: string): Promise<FileOut> {
  const [record] = await requireReports(reportStore, userId, [reportId]);
  const [items, seller] = await Promise.all([
    getReportItems(record!),
    record!.seller_id ? getSeller(userId, record!.seller_id) : Promise.resolve(null),
  ]);
  const report: ExportReport = {
    id: record!.id,
    title: record!.title,
    report_number: record!.report_number,
    seller: seller ? { number: seller.number, name: seller.name } : null,
    period_from: record!.period_from,
    period_to: record!.period_to,
    rows: record!.rows,
    is_combined: record!.is_combined,
    ...(record!.source_report_ids ? { source_report_ids: record!.source_report_ids } : {}),
    created_at: record!.created_at,
    tax_profile: record!.tax_profile,
    items,
    totals: record!.totals,
    commission_by_category: record!.commission_by_category,
    warnings: record!.warnings,
  };
  const base = record!.report_number ? `Отчёт ${record!.report_number}` : record!.title;
  return { filename: `${safeName(base)}.xlsx`, contentType: XLSX_TYPE, data: await exportReportXlsx(report) };
}

const SOURCE_TYPES: Record<string, string> = { zip: 'application/zip', xlsx: XLSX_TYPE, xls: XLS_TYPE };

export function sourceContentType(filename: string): string {
  const ext = /\.([^.]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return SOURCE_TYPES[ext] ?? 'application/octet-stream';
}

export type SourceOut = ({ kind: 'inline' } & FileOut) | { kind: 'redirect'; url: string };

/** GET /api/reports/{id}/source: no stored file (combined report, or the object is gone) → 404 `source_missing`. */
export async function reportSource(userId: string, reportId: string): Promise<SourceOut> {
  const [record] = await requireReports(reportStore, userId, [reportId]);
  if (!record!.source_path) throw sourceMissing();
  const key = record!.source_path;
  const filename = record!.source_name ?? key.split('/').pop() ?? 'source';
  const contentType = sourceContentType(filename);
  let size = record!.source_size;
  if (size === null || size === undefined) {
    size = await objectSize(key);
    if (size === null) throw sourceMissing();
  }
  if (size > getConfig().MAX_INLINE_SOURCE_BYTES) {
    const url = await presignGet(key, SOURCE_URL_TTL_SECONDS, { filename, contentType });
    return { kind: 'redirect', url };
  }
  const data = await readObject(key);
  if (!data) throw sourceMissing();
  return { kind: 'inline', filename, contentType, data };
}

/** POST /api/reports/summary-export: one template row per report, in the order given. */
export async function summaryWorkbook(userId: string, reportIds: readonly string[]): Promise<FileOut> {
  if (reportIds.length === 0) throw reportNotFound();
  const records = await requireReports(reportStore, userId, reportIds);
  assertNoOverlap(records);
  const sellers = new Map<string, SellerRecord>();
  if (records.some((r) => r.seller_id)) for (const s of await listSellers(userId)) sellers.set(s.id, s);
  const rows: SummaryRow[] = records.map((r) => {
    const seller = r.seller_id ? sellers.get(r.seller_id) : undefined;
    return {
      report_number: r.report_number,
      title: r.title,
      seller: seller ? { number: seller.number, name: seller.name } : null,
      period_from: r.period_from,
      period_to: r.period_to,
      rows: r.rows,
      totals: r.totals,
    };
  });
  const day = new Date().toISOString().slice(0, 10);
  return { filename: `Сводная ${day}.xls`, contentType: XLS_TYPE, data: exportSummaryXls(rows) };
}
