/** The real stores of the catalog routes (shared/catalog/catalog.ts, import.ts), wired once per cold start. */
import { importProducts, listProducts, putProduct } from '../store/products.repo';
import { listSellers, updateSeller } from '../store/sellers.repo';
import type { ProductsPort, SellersPort } from './catalog';
import type { CatalogImportDeps } from './import';

export const productsDeps: { products: ProductsPort } = { products: { listProducts, putProduct } };
export const importDeps: CatalogImportDeps = { products: { importProducts } };
export const sellersDeps: { sellers: SellersPort } = { sellers: { listSellers, updateSeller } };
