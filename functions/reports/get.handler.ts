import { contractBody, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { getReportView, presentView } from '../../shared/reports/queries';
import { reportJson } from '../../shared/reports/large-json';

const contract = ROUTES.getReport;
const route = fromRoute(contract);

/** GET /api/reports/{id} → {report} with items, totals, commission by category, warnings and stale. */
export async function main(req: HttpRequest<typeof route>) {
  const body = contractBody(contract, 200, { report: presentView(await getReportView(req.user, req.path.id)) });
  return reportJson(200, body, req.headers['accept-encoding']);
}

export const handler = http(route, main);
