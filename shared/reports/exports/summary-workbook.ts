/** POST /api/reports/summary-export (shared/reports/exports/export-report.ts says how the exports are split). */
import { exportSummaryXls } from '../../workbooks/xls-summary';
import type { SummaryRow } from '../../workbooks/types';
import type { SellerRecord } from '../../store/sellers.repo';
import type { ReportRecord } from '../../store/report-record';
import type { StaleSource } from '../combine/list-stale';
import { assertNoOverlap, reportNotFound, requireReports } from '../combine/combine';
import { XLS_TYPE, type ExportDeps, type FileOut } from './export-report';

/**
 * POST /api/reports/summary-export: one template row per report, in the order given, with the chosen
 * reports that are stale (`staleOf`, list-stale.ts staleSources; their numbers go in as they are).
 */
export async function summaryWorkbook(
  deps: ExportDeps,
  userId: string,
  reportIds: readonly string[],
  staleOf?: (records: ReportRecord[]) => Promise<StaleSource[]>,
): Promise<FileOut & { stale: StaleSource[] }> {
  if (reportIds.length === 0) throw reportNotFound();
  const records = await requireReports(deps.reports, userId, reportIds);
  assertNoOverlap(records);
  const stale = staleOf ? await staleOf(records) : [];
  const sellers = new Map<string, SellerRecord>();
  if (records.some((r) => r.seller_id)) for (const s of await deps.sellers.listSellers(userId)) sellers.set(s.id, s);
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
  const day = deps.clock.now().toISOString().slice(0, 10);
  return { filename: `Сводная ${day}.xls`, contentType: XLS_TYPE, data: exportSummaryXls(rows), stale };
}
