import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { analyticsWorkbook } from '../../shared/reports/analytics-export';

const route = fromRoute(ROUTES.analyticsExport);

/** GET /api/analytics/export?from=&to=&seller_id= → the analytics as .xlsx (weeks, articles, margin groups). */
export async function main(req: HttpRequest<typeof route>) {
  const file = await analyticsWorkbook(req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
