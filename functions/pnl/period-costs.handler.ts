import { createCost, importCosts, listCosts, removeCost, replaceCost } from '../../shared/costs/period-costs';
import { MAX_COST_FILE_BYTES, readCostFile } from '../../shared/costs/period-costs-file';
import { badRequest } from '../../shared/errors';
import { noContent, routes } from '../../shared/http';
import { periodCostDeps } from '../../shared/pnl/deps';

const deps = periodCostDeps;

/** ONE Lambda serves the five period-cost routes, dispatched from the contract. */
export const handler = routes(
  {
    /** GET /api/period-costs?seller_id= → {costs}, oldest first. */
    listPeriodCosts: async (req) => ({
      status: 200,
      body: { costs: await listCosts(deps, req.user.id, req.query.seller_id) },
    }),
    /** POST /api/period-costs → 201 the cost; 422 invalid_period_cost / too_many_period_costs. */
    createPeriodCost: async (req) => ({ status: 201, body: await createCost(deps, req.user.id, req.body) }),
    /** PUT /api/period-costs/{id} → the cost; 404 period_cost_not_found. */
    putPeriodCost: async (req) => ({
      status: 200,
      body: await replaceCost(deps, req.user.id, req.path.id, req.body),
    }),
    /** DELETE /api/period-costs/{id} → 204; 404 period_cost_not_found. */
    deletePeriodCost: async (req) => {
      await removeCost(deps, req.user.id, req.path.id);
      return noContent();
    },
    /** POST /api/period-costs/import (multipart `file`, optional `seller_id`) → {created, errors}. */
    importPeriodCosts: async (req) => {
      if (!req.file) throw badRequest('file_required', 'Send the file as multipart/form-data in the field "file"');
      const parsed = await readCostFile(req.file.buffer);
      return { status: 200, body: await importCosts(deps, req.user.id, parsed, req.body.seller_id) };
    },
  },
  { importPeriodCosts: { multipart: { maxFileBytes: MAX_COST_FILE_BYTES } } },
);
