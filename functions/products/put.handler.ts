import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { setCostPrice } from '../../shared/catalog/catalog';
import { putProductDeps } from '../../shared/catalog/catalog-deps';
import { badRequest } from '../../shared/errors';
import { route, ROUTES } from '../../shared/http';

/**
 * The {article} path segment, percent-decoded exactly once. Read from rawPath, which stays encoded
 * both on API Gateway and in serverless-offline, so an article holding "/", "#", "%" or Cyrillic
 * arrives intact whatever the gateway did to pathParameters (which may or may not be decoded).
 */
export function articleFromPath(event: APIGatewayProxyEventV2): string {
  const segment = /\/products\/([^/]+)\/?$/.exec(event.rawPath ?? '')?.[1] ?? event.pathParameters?.article ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest('validation_error', 'The article in the path is not valid percent-encoding');
  }
}

/**
 * PUT /api/products/{article} {cost_price (roubles), valid_from?} → the product, created when missing.
 * Negative → 400, more than 2 decimals → 422 value_out_of_range. `valid_from` (YYYY-MM-DD, or null = from the beginning) dates the price; without it
 * the first price of a product applies from the beginning and a change from today, so reports of
 * earlier periods keep their price (until the seller dates the change and rebuilds).
 */
export const handler = route(ROUTES.putProduct, async (req) => ({
  status: 200,
  body: await setCostPrice(
    putProductDeps,
    req.user.id,
    articleFromPath(req.event),
    req.body.cost_price,
    req.body.valid_from,
  ),
}));
