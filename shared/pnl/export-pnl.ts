/**
 * The P&L as a workbook (docs/API.md: GET /api/pnl/export). Apart from pnl.ts so that only the export
 * function carries exceljs (docs/PERFORMANCE.md, Bundles).
 */
import { exportPnlXlsx } from '../workbooks/pnl-xlsx';
import { computeUserPnl, type PnlDeps } from './pnl';

export async function pnlWorkbook(
  deps: PnlDeps,
  user: Parameters<typeof computeUserPnl>[1],
  q: { from?: string; to?: string; seller_id?: string },
): Promise<{ filename: string; contentType: string; data: Buffer }> {
  const { result, thresholds, sellerId } = await computeUserPnl(deps, user, q);
  const seller = sellerId ? await deps.sellers.getSeller(user.id, sellerId) : null;
  return {
    filename: `P&L ${result.from}–${result.to}.xlsx`,
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    data: await exportPnlXlsx(result, thresholds, seller ? seller.name : null),
  };
}
