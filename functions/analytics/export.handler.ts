import { binary, route, ROUTES } from '../../shared/http';
import { analyticsWorkbook } from '../../shared/reports/analytics/analytics-export';
import { analyticsDeps } from '../../shared/reports/read-deps';

/** GET /api/analytics/export?from=&to=&seller_id= → the analytics as .xlsx (weeks, articles, margin groups). */
export const handler = route(ROUTES.analyticsExport, async (req) => {
  const file = await analyticsWorkbook(analyticsDeps, req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
});
