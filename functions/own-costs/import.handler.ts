import { MAX_IMPORT_BYTES } from '../../shared/catalog/import-file';
import { importOwnCosts } from '../../shared/costs/own-costs';
import { ownCostDeps } from '../../shared/costs/own-costs-deps';
import { readOwnCostFile } from '../../shared/costs/own-costs-file';
import { badRequest } from '../../shared/errors';
import { route, ROUTES } from '../../shared/http';

const deps = ownCostDeps;

/**
 * POST /api/own-costs/import (multipart `file`: xlsx or csv with «Артикул» (optional), «Статья», «Сумма
 * за шт», «Действует с» (optional); optional field `allow_unknown=true`) → {applied, created, updated,
 * unknown, errors}. Applied whole or not at all (shared/costs/own-costs.ts importOwnCosts).
 */
export const handler = route(ROUTES.importOwnCosts, { multipart: { maxFileBytes: MAX_IMPORT_BYTES } }, async (req) => {
  if (!req.file) throw badRequest('file_required', 'Send the file as multipart/form-data in the field "file"');
  const allowUnknown = req.body.allow_unknown === 'true' || req.body.allow_unknown === '1';
  const file = await readOwnCostFile(req.file.buffer);
  return { status: 200, body: await importOwnCosts(deps, req.user.id, file, { allowUnknown }) };
});
