import { MAX_IMPORT_BYTES, readCatalogFile } from '../../shared/catalog/import-file';
import { badRequest } from '../../shared/errors';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { importProducts } from '../../shared/store/products.repo';

const contract = ROUTES.importProducts;
const route = fromRoute(contract, { multipart: { maxFileBytes: MAX_IMPORT_BYTES } });

/**
 * POST /api/products/import (multipart `file`: xlsx or csv with "Артикул"/"Артикул поставщика" and
 * "Себестоимость"/"cost_price") → {updated, created, errors: [{row, message}]}. Good rows are applied
 * even when others fail; a file without the columns → 422 missing_columns.
 */
export async function main(req: HttpRequest<typeof route>) {
  if (!req.file) throw badRequest('file_required', 'Send the file as multipart/form-data in the field "file"');
  const parsed = await readCatalogFile(req.file.buffer);
  const applied = await importProducts(req.user.id, parsed.rows);
  return reply(contract, 200, { updated: applied.updated, created: applied.created, errors: parsed.errors });
}

export const handler = http(route, main);
