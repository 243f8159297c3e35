import { binary, route, ROUTES } from '../../shared/http';
import { pnlDeps } from '../../shared/pnl/deps';
import { pnlWorkbook } from '../../shared/pnl/export-pnl';

const deps = pnlDeps;

/** GET /api/pnl/export?from=&to=&seller_id= → the P&L as .xlsx (months as columns, lines as rows). */
export const handler = route(ROUTES.pnlExport, async (req) => {
  const file = await pnlWorkbook(deps, req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
});
