/**
 * Files a user takes away (docs/API.md: export, source, summary-export): what the three have in
 * common. Each lives in its own module so that each function carries only its own library
 * (docs/PERFORMANCE.md, Bundles):
 *
 * - report-workbook.ts: the report as .xlsx (exceljs, shared/workbooks/xlsx-export.ts), named after its number.
 * - source-file.ts: the stored source file as uploaded: its bytes when small enough for a Lambda answer
 *   (base64 grows them by a third, and a Lambda answer is capped at 6 MB), else a presigned GET of
 *   five minutes that names the file the same way.
 * - summary-workbook.ts: the legacy .xls summary of 1..100 reports (SheetJS, shared/workbooks/xls-summary.ts).
 *
 * Everything is looked up under the caller's id, so another user's report is a 404 like a missing one.
 * Each use case takes its dependencies first (ExportDeps); the handlers wire the real ones.
 */
import type { Clock } from '../../deps';
import { notFound } from '../../errors';
import type { StoredItem } from '../../store/items.repo';
import type { ReportRecord } from '../../store/report-record';
import type { SellerRecord } from '../../store/sellers.repo';

/** What the export use cases read (the DynamoDB stores in production). */
/** What an export reads of a report. */
interface ExportReports {
  getReport(userId: string, reportId: string): Promise<ReportRecord | null>;
  getReportItems(record: ReportRecord): Promise<StoredItem[]>;
}

/** What an export reads of the seller accounts. */
interface ExportSellers {
  getSeller(userId: string, sellerId: string): Promise<SellerRecord | null>;
  listSellers(userId: string): Promise<SellerRecord[]>;
}

export interface ExportDeps {
  reports: ExportReports;
  sellers: ExportSellers;
  clock: Clock;
}

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const XLS_TYPE = 'application/vnd.ms-excel';
export const SOURCE_URL_TTL_SECONDS = 300;

export const sourceMissing = () => notFound('The report has no stored source file', 'source_missing');

/** A file name without path separators or control characters, kept short. */
export function safeName(name: string): string {
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
