import { z } from 'zod';
import { presentProduct } from '../../shared/catalog/present';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { listProducts } from '../../shared/store/products.repo';

const route = {
  auth: 'user',
  query: z.object({
    search: z.string().max(300).optional(),
    cursor: z.string().min(1).max(1500).optional(),
    /** `missing=1`: only products whose cost price was never set. */
    missing: z.enum(['1', 'true', '0', 'false']).optional(),
  }),
} satisfies HttpOptions;

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
  return json(200, { items: page.items.map(presentProduct), next_cursor: page.next_cursor });
}

export const handler = http(route, main);
