import { importCatalog } from '../../shared/catalog/import';
import { importDeps } from '../../shared/catalog/catalog-deps';
import { MAX_IMPORT_BYTES } from '../../shared/catalog/import-file';
import { MAX_UNKNOWN_LISTED } from '../../shared/contract/shapes';
import { badRequest } from '../../shared/errors';
import { route, ROUTES } from '../../shared/http';

/**
 * POST /api/products/import (multipart `file`: xlsx or csv with "Артикул"/"Артикул поставщика" and
 * "Себестоимость"/"cost_price"; optional field `create_missing=true`) → {updated, created, unknown,
 * errors: [{row, message}]}. Good rows of known articles are applied even when others fail; articles
 * the catalog does not know are listed in `unknown` and left out unless `create_missing` is true; a
 * file without the columns → 422 missing_columns.
 */
export const handler = route(ROUTES.importProducts, { multipart: { maxFileBytes: MAX_IMPORT_BYTES } }, async (req) => {
  if (!req.file) throw badRequest('file_required', 'Send the file as multipart/form-data in the field "file"');
  const createMissing = req.body.create_missing === 'true' || req.body.create_missing === '1';
  const r = await importCatalog(importDeps, req.user.id, req.file.buffer, { createMissing });
  return {
    status: 200,
    body: {
      updated: r.updated,
      created: r.created,
      unknown: { count: r.unknown.length, articles: r.unknown.slice(0, MAX_UNKNOWN_LISTED) },
      errors: r.errors,
    },
  };
});
