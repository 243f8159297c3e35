import { route, ROUTES } from '../../shared/http';
import { getAnalytics } from '../../shared/reports/analytics/analytics';
import { analyticsDeps } from '../../shared/reports/read-deps';

/**
 * GET /api/analytics?from=&to=&seller_id=&article= → weeks, totals, previous range with changes, articles
 * with ABC and margin groups, warnings (money in roubles). 400 invalid_range; 404 seller_not_found.
 */
export const handler = route(ROUTES.analytics, async (req) => ({
  status: 200,
  body: await getAnalytics(analyticsDeps, req.user, req.query),
  large: true,
}));
