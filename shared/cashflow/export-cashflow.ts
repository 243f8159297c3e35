/**
 * The cash flow as a workbook (docs/API.md: GET /api/cash-flow/export). Apart from cashflow.ts so that
 * only the export function carries exceljs (docs/PERFORMANCE.md, Bundles).
 */
import { exportCashFlowXlsx } from '../workbooks/cashflow-xlsx';
import { getCashFlow, type CashFlowDeps } from './cashflow';

export async function cashFlowWorkbook(
  deps: CashFlowDeps,
  user: Parameters<typeof getCashFlow>[1],
  q: { from: string; to: string; seller_id?: string },
): Promise<{ filename: string; contentType: string; data: Buffer }> {
  const cf = await getCashFlow(deps, user, q);
  const seller = cf.seller_id ? await deps.pnl.sellers.getSeller(user.id, cf.seller_id) : null;
  return {
    filename: `Деньги ${cf.from}–${cf.to}.xlsx`,
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    data: await exportCashFlowXlsx(cf, seller ? seller.name : null),
  };
}
