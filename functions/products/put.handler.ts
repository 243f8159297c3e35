import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { presentProduct } from '../../shared/catalog/present-product';
import { badRequest } from '../../shared/errors';
import { ROUTES, reply, fromRoute, http, type HttpRequest } from '../../shared/http';
import { roublesToKopecks } from '../../shared/engine/fields';
import { assertManualValueInRange } from '../../shared/reports/rebuild/value-range';
import { MAX_ARTICLE_LENGTH, putProduct } from '../../shared/store/products.repo';

const contract = ROUTES.putProduct;
const route = fromRoute(contract);

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
export async function main(req: HttpRequest<typeof route>) {
  const article = articleFromPath(req.event).trim();
  if (article === '' || article.length > MAX_ARTICLE_LENGTH)
    throw badRequest('validation_error', `The article must have 1..${MAX_ARTICLE_LENGTH} characters`);
  // Fractions of a kopeck are refused (422 value_out_of_range), as a manual value of a report refuses them.
  assertManualValueInRange('cost_price', req.body.cost_price);
  const { product } = await putProduct(
    req.user.id,
    article,
    roublesToKopecks(req.body.cost_price),
    req.body.valid_from,
  );
  return reply(contract, 200, presentProduct(product));
}

export const handler = http(route, main);
