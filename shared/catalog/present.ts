/** JSON shapes of the catalog routes (docs/API.md, Catalog and sellers): money in roubles with 2 decimals. */
import { kopecksToRoubles } from '../report/fields';
import type { AllocationMethod } from '../report/allocation';
import type { CostPricePeriod, TaxPeriod } from '../report/periods';
import type { TaxProfile } from '../report/types';
import type { ProductRecord } from '../store/products.repo';
import type { SellerRecord } from '../store/sellers.repo';

export interface ProductJson {
  article: string;
  /** Roubles per unit, in force today (0 when never set). */
  cost_price: number;
  /** False for a product a report added and the seller has not priced yet. */
  cost_price_set: boolean;
  /** Dated prices in roubles, oldest first (valid_from null = from the beginning). */
  cost_prices: CostPricePeriod[];
  updated_at: string;
}

export function presentProduct(p: ProductRecord): ProductJson {
  return {
    article: p.article,
    cost_price: kopecksToRoubles(p.cost_price),
    cost_price_set: p.cost_price_set,
    cost_prices: p.cost_prices.map((c) => ({ valid_from: c.valid_from, cost_price: kopecksToRoubles(c.cost_price) })),
    updated_at: p.updated_at,
  };
}

export interface SellerJson {
  id: string;
  number: string;
  name: string;
  /** The seller's own profile in force today; null when the user's default applies. */
  tax: TaxProfile | null;
  /** The seller's own profile by date; null when the user's default applies. */
  tax_periods: TaxPeriod[] | null;
  /** The seller's own allocation method; null when the user's applies. */
  allocation: AllocationMethod | null;
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
