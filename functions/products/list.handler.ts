import { z } from 'zod';
import { presentProduct } from '../../shared/catalog/present';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { listProducts } from '../../shared/store/products.repo';

const route = {
  auth: 'user',
  query: z.object({ search: z.string().max(300).optional(), cursor: z.string().min(1).max(1500).optional() }),
} satisfies HttpOptions;

/** GET /api/products?search=&cursor= → {items: [{article, cost_price, updated_at}], next_cursor}, by article. */
export async function main(req: HttpRequest<typeof route>) {
  const page = await listProducts(req.user.id, { search: req.query.search, cursor: req.query.cursor });
  return json(200, { items: page.items.map(presentProduct), next_cursor: page.next_cursor });
}

export const handler = http(route, main);
