import {
  createPurchase,
  importPurchases,
  listUserPurchases,
  removePurchase,
  replacePurchase,
} from '../../shared/cashflow/purchases';
import { MAX_PURCHASE_FILE_BYTES, readPurchaseFile } from '../../shared/cashflow/purchases-file';
import { purchaseDeps as deps } from '../../shared/cashflow/deps';
import { badRequest } from '../../shared/errors';
import { noContent, routes } from '../../shared/http';

/** ONE Lambda serves the five purchase routes, dispatched from the contract. */
export const handler = routes(
  {
    /** GET /api/purchases?seller_id= → {purchases}, oldest date first. */
    listPurchases: async (req) => ({
      status: 200,
      body: { purchases: await listUserPurchases(deps, req.user.id, req.query.seller_id) },
    }),
    /** POST /api/purchases → 201 the purchase; 422 invalid_purchase (details.field) / too_many_purchases. */
    createPurchase: async (req) => ({ status: 201, body: await createPurchase(deps, req.user.id, req.body) }),
    /** PUT /api/purchases/{id} → the purchase; 404 purchase_not_found. */
    putPurchase: async (req) => ({
      status: 200,
      body: await replacePurchase(deps, req.user.id, req.path.id, req.body),
    }),
    /** DELETE /api/purchases/{id} → 204; 404 purchase_not_found. */
    deletePurchase: async (req) => {
      await removePurchase(deps, req.user.id, req.path.id);
      return noContent();
    },
    /** POST /api/purchases/import (multipart `file`, optional `seller_id`) → {created, errors}. */
    importPurchases: async (req) => {
      if (!req.file) throw badRequest('file_required', 'Send the file as multipart/form-data in the field "file"');
      const parsed = await readPurchaseFile(req.file.buffer);
      return { status: 200, body: await importPurchases(deps, req.user.id, parsed, req.body.seller_id) };
    },
  },
  { importPurchases: { multipart: { maxFileBytes: MAX_PURCHASE_FILE_BYTES } } },
);
