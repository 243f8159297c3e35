/**
 * The real stores of the catalog routes (shared/catalog/catalog.ts, import.ts), wired once per cold start:
 * one object per route, so each function holds (and the error-code walk follows) only what it calls.
 */
import { importProducts, listProducts, putProduct } from '../store/products.repo';
import { listSellers, updateSeller } from '../store/sellers.repo';
import type { ProductsPort, SellersPort } from './catalog';
import type { CatalogImportDeps } from './import';

export const listProductsDeps: { products: Pick<ProductsPort, 'listProducts'> } = { products: { listProducts } };
export const putProductDeps: { products: Pick<ProductsPort, 'putProduct'> } = { products: { putProduct } };
export const importDeps: CatalogImportDeps = { products: { importProducts } };
export const listSellersDeps: { sellers: Pick<SellersPort, 'listSellers'> } = { sellers: { listSellers } };
export const updateSellerDeps: { sellers: Pick<SellersPort, 'updateSeller'> } = { sellers: { updateSeller } };
