import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { pnlDeps } from '../../shared/pnl/deps';
import { pnlWorkbook } from '../../shared/pnl/export-pnl';

const deps = pnlDeps();
const route = fromRoute(ROUTES.pnlExport);

/** GET /api/pnl/export?from=&to=&seller_id= → the P&L as .xlsx (months as columns, lines as rows). */
export async function main(req: HttpRequest<typeof route>) {
  const file = await pnlWorkbook(deps, req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
