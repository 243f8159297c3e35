/** JSON shapes of the catalog routes (API.md, Catalog and sellers): money in roubles with 2 decimals. */
import { kopecksToRoubles } from '../report/fields';
import type { ProductRecord } from '../store/products.repo';
import type { SellerRecord } from '../store/sellers.repo';

import type { Product as ProductJson, Seller as SellerJson } from '../contract/shapes';

export type { ProductJson, SellerJson };

export function presentProduct(p: ProductRecord): ProductJson {
  return { article: p.article, cost_price: kopecksToRoubles(p.cost_price), updated_at: p.updated_at };
}

export function presentSeller(s: SellerRecord): SellerJson {
  return { id: s.id, number: s.number, name: s.name, tax: s.tax };
}
