import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { analyticsWorkbook } from '../../shared/reports/analytics/analytics-export';
import { analyticsDeps } from '../../shared/reports/read-deps';

const route = fromRoute(ROUTES.analyticsExport);

/** GET /api/analytics/export?from=&to=&seller_id= → the analytics as .xlsx (weeks, articles, margin groups). */
export async function main(req: HttpRequest<typeof route>) {
  const file = await analyticsWorkbook(analyticsDeps, req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
