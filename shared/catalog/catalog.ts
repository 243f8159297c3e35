/**
 * The catalog routes' use cases: the caller's products with their dated cost prices, and their sellers.
 * Stores come as ports (`deps`); shared/catalog/catalog-deps.ts wires the real ones for functions/products
 * and functions/sellers.
 */
import { MAX_ARTICLE_LENGTH } from '../contract/shapes';
import { roublesToKopecks } from '../engine/fields';
import { badRequest } from '../errors';
import { assertManualValueInRange } from '../reports/rebuild/value-range';
import { assertTaxPeriods } from '../reports/worker/report-settings';
import type { ListProductsOptions, ProductPage, PutProductResult } from '../store/products.repo';
import type { SellerPatch, SellerRecord } from '../store/sellers.repo';
import { presentProduct, presentSeller, type ProductJson, type SellerJson } from './present-product';

export interface ProductsPort {
  listProducts(userId: string, opts?: ListProductsOptions): Promise<ProductPage>;
  putProduct(
    userId: string,
    article: string,
    costPriceKopecks: number,
    validFrom?: string | null,
  ): Promise<PutProductResult>;
}

export interface SellersPort {
  listSellers(userId: string): Promise<SellerRecord[]>;
  updateSeller(userId: string, sellerId: string, patch: SellerPatch): Promise<SellerRecord>;
}

/** A page of the caller's products, by article; `missing`: only those without a cost price set. */
export async function listCatalog(
  deps: { products: Pick<ProductsPort, 'listProducts'> },
  userId: string,
  q: { search?: string; cursor?: string; missing: boolean },
): Promise<{ items: ProductJson[]; next_cursor: string | null }> {
  const page = await deps.products.listProducts(userId, q);
  return { items: page.items.map(presentProduct), next_cursor: page.next_cursor };
}

/**
 * Sets an article's cost price (roubles per unit), creating the product when missing. More than 2
 * decimals → 422 value_out_of_range; `validFrom` dates the price (see products.repo putProduct).
 */
export async function setCostPrice(
  deps: { products: Pick<ProductsPort, 'putProduct'> },
  userId: string,
  rawArticle: string,
  costPriceRoubles: number,
  validFrom?: string | null,
): Promise<ProductJson> {
  const article = rawArticle.trim();
  if (article === '' || article.length > MAX_ARTICLE_LENGTH)
    throw badRequest('validation_error', `The article must have 1..${MAX_ARTICLE_LENGTH} characters`);
  // Fractions of a kopeck are refused (422 value_out_of_range), as a manual value of a report refuses them.
  assertManualValueInRange('cost_price', costPriceRoubles);
  const { product } = await deps.products.putProduct(userId, article, roublesToKopecks(costPriceRoubles), validFrom);
  return presentProduct(product);
}

/** The caller's sellers (tax null: the user's default applies). */
export async function listUserSellers(
  deps: { sellers: Pick<SellersPort, 'listSellers'> },
  userId: string,
): Promise<{ items: SellerJson[] }> {
  return { items: (await deps.sellers.listSellers(userId)).map(presentSeller) };
}

/** Renames a seller or sets its own tax profile / allocation (null: the user's default applies). */
export async function patchSeller(
  deps: { sellers: Pick<SellersPort, 'updateSeller'> },
  userId: string,
  sellerId: string,
  patch: SellerPatch,
): Promise<SellerJson> {
  if (patch.tax_periods) assertTaxPeriods(patch.tax_periods);
  return presentSeller(await deps.sellers.updateSeller(userId, sellerId, patch));
}
