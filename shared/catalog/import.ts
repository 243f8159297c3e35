/**
 * Importing cost prices from a file (docs/API.md: POST /api/products/import): the file is read
 * (import-file.ts: xlsx or csv, its rows checked one by one), then the good rows are applied to the
 * caller's catalog in one call of the products store. Articles the catalog does not know are left out
 * and listed unless `createMissing`.
 */
import type { ImportOptions, ImportResult, ImportRow } from '../store/products.repo';
import { readCatalogFile, type ImportRowError } from './import-file';

/** What the import talks to (functions/products/import.handler.ts wires the real store). */
export interface CatalogImportDeps {
  products: CatalogProducts;
}

/** What the import needs of the catalog store. */
interface CatalogProducts {
  importProducts(userId: string, rows: readonly ImportRow[], opts?: ImportOptions): Promise<ImportResult>;
}

export interface CatalogImportResult {
  updated: number;
  created: number;
  /** Articles left out because the catalog does not know them (in the file's order). */
  unknown: string[];
  errors: ImportRowError[];
}

export async function importCatalog(
  deps: CatalogImportDeps,
  userId: string,
  file: Buffer,
  opts: ImportOptions = {},
): Promise<CatalogImportResult> {
  const parsed = await readCatalogFile(file);
  const applied = await deps.products.importProducts(userId, parsed.rows, opts);
  return { updated: applied.updated, created: applied.created, unknown: applied.unknown, errors: parsed.errors };
}
