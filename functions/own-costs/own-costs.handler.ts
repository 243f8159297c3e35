import { deleteOwnCost, listOwnCosts, putOwnCost } from '../../shared/costs/own-costs';
import { ownCostDeps } from '../../shared/costs/own-costs-deps';
import { presentOwnCostLine } from '../../shared/costs/own-costs-present';
import { roublesToKopecks } from '../../shared/engine/fields';
import { noContent, routes } from '../../shared/http';
import { assertManualValueInRange } from '../../shared/reports/rebuild/value-range';

const deps = ownCostDeps;
const today = () => deps.clock.now().toISOString().slice(0, 10);

/** ONE Lambda serves the three routes of /api/own-costs, dispatched from the contract. */
export const handler = routes({
  /** GET /api/own-costs → {items: [{article|null, name, amount, amounts}], updated_at}: every line, the defaults first. */
  listOwnCosts: async (req) => {
    const book = await listOwnCosts(deps, req.user.id);
    const day = today();
    return {
      status: 200,
      body: { items: book.lines.map((l) => presentOwnCostLine(l, day)), updated_at: book.updated_at },
    };
  },
  /**
   * PUT /api/own-costs {article?, name, amount (roubles per unit), valid_from?} → the line. article null or
   * absent: the default line for every article. More than 2 decimals → 422 value_out_of_range.
   */
  putOwnCost: async (req) => {
    // Fractions of a kopeck are refused (422 value_out_of_range), as a cost price refuses them.
    assertManualValueInRange('own_cost_price', req.body.amount);
    const line = await putOwnCost(deps, req.user.id, {
      article: req.body.article ?? null,
      name: req.body.name,
      amount: roublesToKopecks(req.body.amount),
      valid_from: req.body.valid_from,
    });
    return { status: 200, body: presentOwnCostLine(line, today()) };
  },
  /** DELETE /api/own-costs?article=&name=&valid_from= → 204; 404 own_cost_not_found. */
  deleteOwnCost: async (req) => {
    const validFrom = req.query.valid_from;
    await deleteOwnCost(deps, req.user.id, {
      article: req.query.article ?? null,
      name: req.query.name,
      ...(validFrom !== undefined ? { valid_from: validFrom === 'beginning' ? null : validFrom } : {}),
    });
    return noContent();
  },
});
