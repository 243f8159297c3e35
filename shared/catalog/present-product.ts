/** JSON shapes of the catalog routes (docs/API.md, Catalog and sellers): money in roubles with 2 decimals. */
import { kopecksToRoubles } from '../engine/fields';
import type { Product as ProductJson, Seller as SellerJson } from '../contract/shapes';
import type { ProductRecord } from '../store/products.repo';

// The answers' types are the contract's: a presenter that drifts does not compile.
export type { ProductJson, SellerJson };
import type { SellerRecord } from '../store/sellers.repo';

export function presentProduct(p: ProductRecord): ProductJson {
  return {
    article: p.article,
    cost_price: kopecksToRoubles(p.cost_price),
    cost_price_set: p.cost_price_set,
    cost_prices: p.cost_prices.map((c) => ({ valid_from: c.valid_from, cost_price: kopecksToRoubles(c.cost_price) })),
    updated_at: p.updated_at,
  };
}

export function presentSeller(s: SellerRecord): SellerJson {
  return {
    id: s.id,
    number: s.number,
    name: s.name,
    tax: s.tax,
    tax_periods: s.tax_periods,
    allocation: s.allocation,
  };
}
