/** GET /api/reports/{id}/export (shared/reports/exports/export-report.ts says how the exports are split). */
import { exportReportXlsx } from '../../workbooks/xlsx-export';
import type { ExportReport } from '../../workbooks/types';
import { requireReports } from '../combine/combine';
import { XLSX_TYPE, safeName, type ExportDeps, type FileOut } from './export-report';

/** GET /api/reports/{id}/export: "Отчёт <number>.xlsx" (a combined report: "<title>.xlsx"). */
export async function reportWorkbook(
  deps: Pick<ExportDeps, 'reports' | 'sellers'>,
  userId: string,
  reportId: string,
): Promise<FileOut> {
  const [record] = await requireReports(deps.reports, userId, [reportId]);
  const [items, seller] = await Promise.all([
    deps.reports.getReportItems(record!),
    record!.seller_id ? deps.sellers.getSeller(userId, record!.seller_id) : Promise.resolve(null),
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
