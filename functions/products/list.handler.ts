import { presentProduct } from '../../shared/catalog/present';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { listProducts } from '../../shared/store/products.repo';

const contract = ROUTES.listProducts;
const route = fromRoute(contract);

/** GET /api/products?search=&cursor= → {items: [{article, cost_price, updated_at}], next_cursor}, by article. */
export async function main(req: HttpRequest<typeof route>) {
  const page = await listProducts(req.user.id, { search: req.query.search, cursor: req.query.cursor });
  return reply(contract, 200, { items: page.items.map(presentProduct), next_cursor: page.next_cursor });
}

export const handler = http(route, main);
