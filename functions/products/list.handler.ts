import { listCatalog } from '../../shared/catalog/catalog';
import { listProductsDeps } from '../../shared/catalog/catalog-deps';
import { route, ROUTES } from '../../shared/http';

/**
 * GET /api/products?search=&missing=1&cursor= → {items: [{article, cost_price, cost_price_set, cost_prices,
 * updated_at}], next_cursor}, by article; `missing=1` lists only products without a cost price set.
 */
export const handler = route(ROUTES.listProducts, async (req) => ({
  status: 200,
  body: await listCatalog(listProductsDeps, req.user.id, {
    search: req.query.search,
    cursor: req.query.cursor,
    missing: req.query.missing === '1' || req.query.missing === 'true',
  }),
}));
