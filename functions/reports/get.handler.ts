import { contractBody, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { getReportView, presentView, presentViewColumns } from '../../shared/reports/queries';
import { reportJson } from '../../shared/http/large-json';
import { readDeps } from '../../shared/reports/read-deps';

const contract = ROUTES.getReport;
const route = fromRoute(contract);

/**
 * GET /api/reports/{id} → {report} with items, totals, commission by category, warnings and stale.
 * `?items=columns`: the items as `item_columns` (present.ts presentItemColumns) instead of `items`.
 */
export async function main(req: HttpRequest<typeof route>) {
  const view = await getReportView(readDeps, req.user, req.path.id);
  const report = req.query.items === 'columns' ? presentViewColumns(view) : presentView(view);
  const body = contractBody(contract, 200, { report });
  return reportJson(200, body, req.headers['accept-encoding']);
}

export const handler = http(route, main);
