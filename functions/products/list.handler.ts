import { presentProduct } from '../../shared/catalog/present-product';
import { ROUTES, reply, fromRoute, http, type HttpRequest } from '../../shared/http';
import { listProducts } from '../../shared/store/products.repo';

const contract = ROUTES.listProducts;
const route = fromRoute(contract);

/**
 * GET /api/products?search=&missing=1&cursor= → {items: [{article, cost_price, cost_price_set, cost_prices,
 * updated_at}], next_cursor}, by article; `missing=1` lists only products without a cost price set.
 */
export async function main(req: HttpRequest<typeof route>) {
  const page = await listProducts(req.user.id, {
    search: req.query.search,
    cursor: req.query.cursor,
    missing: req.query.missing === '1' || req.query.missing === 'true',
  });
  return reply(contract, 200, { items: page.items.map(presentProduct), next_cursor: page.next_cursor });
}

export const handler = http(route, main);
