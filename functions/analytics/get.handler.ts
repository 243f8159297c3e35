import { contractBody, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { reportJson } from '../../shared/http/large-json';
import { getAnalytics } from '../../shared/reports/analytics/analytics';
import { analyticsDeps } from '../../shared/reports/read-deps';

const contract = ROUTES.analytics;
const route = fromRoute(contract);

/**
 * GET /api/analytics?from=&to=&seller_id=&article= → weeks, totals, previous range with changes, articles
 * with ABC and margin groups, warnings (money in roubles). 400 invalid_range; 404 seller_not_found.
 */
export async function main(req: HttpRequest<typeof route>) {
  const body = contractBody(contract, 200, await getAnalytics(analyticsDeps, req.user, req.query));
  return reportJson(200, body, req.headers['accept-encoding']);
}

export const handler = http(route, main);
