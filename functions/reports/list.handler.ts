import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { listReportSummaries } from '../../shared/reports/queries';
import { readDeps } from '../../shared/reports/read-deps';

const contract = ROUTES.listReports;
const route = fromRoute(contract);

/** GET /api/reports?seller_id=&cursor= → {items: [summary], next_cursor}, newest first. */
export async function main(req: HttpRequest<typeof route>) {
  const page = await listReportSummaries(readDeps, req.user, {
    sellerId: req.query.seller_id,
    cursor: req.query.cursor,
  });
  return reply(contract, 200, page);
}

export const handler = http(route, main);
