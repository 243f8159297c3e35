import { cashFlowDeps } from '../../shared/cashflow/deps';
import { cashFlowWorkbook } from '../../shared/cashflow/export-cashflow';
import { binary, route, ROUTES } from '../../shared/http';

/** GET /api/cash-flow/export?from=&to=&seller_id= → the cash flow as .xlsx (months as columns, lines as rows). */
export const handler = route(ROUTES.cashFlowExport, async (req) => {
  const file = await cashFlowWorkbook(cashFlowDeps, req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
});
