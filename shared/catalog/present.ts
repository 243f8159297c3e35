/** JSON shapes of the catalog routes (API.md, Catalog and sellers): money in roubles with 2 decimals. */
import { kopecksToRoubles } from '../report/fields';
import type { TaxProfile } from '../report/types';
import type { ProductRecord } from '../store/products.repo';
import type { SellerRecord } from '../store/sellers.repo';

export interface ProductJson {
  article: string;
  /** Roubles per unit. */
  cost_price: number;
  updated_at: string;
}

export function presentProduct(p: ProductRecord): ProductJson {
  return { article: p.article, cost_price: kopecksToRoubles(p.cost_price), updated_at: p.updated_at };
}

export interface SellerJson {
  id: string;
  number: string;
  name: string;
  /** The seller's own profile; null when the user's default applies. */
  tax: TaxProfile | null;
}

export function presentSeller(s: SellerRecord): SellerJson {
  return { id: s.id, number: s.number, name: s.name, tax: s.tax };
}
