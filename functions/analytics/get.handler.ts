import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest } from '../../shared/errors';
import { routes } from '../../shared/http';
import { getAnalytics } from '../../shared/reports/analytics/analytics';
import { getUnitEconomics, whatIf } from '../../shared/reports/analytics/unit-economics';
import { analyticsDeps, unitEconomicsDeps } from '../../shared/reports/read-deps';

/**
 * The {article} path segment, percent-decoded exactly once, from rawPath (encoded both on API Gateway
 * and in serverless-offline), as PUT /api/products/{article} reads it.
 */
function articleFromPath(event: APIGatewayProxyEventV2): string {
  const segment =
    /\/articles\/([^/]+)\/(?:unit-economics|what-if)\/?$/.exec(event.rawPath ?? '')?.[1] ??
    event.pathParameters?.article ??
    '';
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('validation_error', 'The article in the path is not valid percent-encoding');
  }
}

/** ONE Lambda serves the period analytics and an article's unit economics, dispatched from the contract. */
export const handler = routes({
  /**
   * GET /api/analytics?from=&to=&seller_id=&article= → weeks, totals, previous range with changes, articles
   * with ABC and margin groups, warnings (money in roubles). 400 invalid_range; 404 seller_not_found.
   */
  analytics: async (req) => ({
    status: 200,
    body: await getAnalytics(analyticsDeps, req.user, req.query),
    large: true,
  }),
  /**
   * GET /api/articles/{article}/unit-economics?weeks=4&seller_id= → the per-unit lines over the article's
   * last weeks. 404 article_not_found, seller_not_found; 422 cost_price_missing, invalid_unit_input.
   */
  unitEconomics: async (req) => ({
    status: 200,
    body: await getUnitEconomics(unitEconomicsDeps, req.user.id, articleFromPath(req.event), req.query),
  }),
  /** POST /api/articles/{article}/what-if {price} | {margin} → the margin at the price, or the price for the margin. */
  whatIf: async (req) => ({
    status: 200,
    body: await whatIf(unitEconomicsDeps, req.user.id, articleFromPath(req.event), req.body),
  }),
});
