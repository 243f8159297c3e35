import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { deleteOwnCost, listOwnCosts, putOwnCost } from '../../shared/costs/own-costs';
import { ownCostDeps } from '../../shared/costs/own-costs-deps';
import { presentOwnCostLine } from '../../shared/costs/own-costs-present';
import { roublesToKopecks } from '../../shared/engine/fields';
import { fromRoute, http, noContent, reply, ROUTES, type HttpRequest, type HttpResult } from '../../shared/http';
import { assertManualValueInRange } from '../../shared/reports/rebuild/value-range';

const deps = ownCostDeps();

const listRoute = fromRoute(ROUTES.listOwnCosts);
/** GET /api/own-costs → {items: [{article|null, name, amount, amounts}], updated_at}: every line, the defaults first. */
export async function list(req: HttpRequest<typeof listRoute>) {
  const book = await listOwnCosts(deps, req.user.id);
  const today = deps.clock.now().toISOString().slice(0, 10);
  return reply(ROUTES.listOwnCosts, 200, {
    items: book.lines.map((l) => presentOwnCostLine(l, today)),
    updated_at: book.updated_at,
  });
}

const putRoute = fromRoute(ROUTES.putOwnCost);
/**
 * PUT /api/own-costs {article?, name, amount (roubles per unit), valid_from?} → the line. article null or
 * absent: the default line for every article. More than 2 decimals → 422 value_out_of_range.
 */
export async function put(req: HttpRequest<typeof putRoute>) {
  // Fractions of a kopeck are refused (422 value_out_of_range), as a cost price refuses them.
  assertManualValueInRange('own_cost_price', req.body.amount);
  const line = await putOwnCost(deps, req.user.id, {
    article: req.body.article ?? null,
    name: req.body.name,
    amount: roublesToKopecks(req.body.amount),
    valid_from: req.body.valid_from,
  });
  return reply(ROUTES.putOwnCost, 200, presentOwnCostLine(line, deps.clock.now().toISOString().slice(0, 10)));
}

const deleteRoute = fromRoute(ROUTES.deleteOwnCost);
/** DELETE /api/own-costs?article=&name=&valid_from= → 204; 404 own_cost_not_found. */
export async function remove(req: HttpRequest<typeof deleteRoute>) {
  const validFrom = req.query.valid_from;
  await deleteOwnCost(deps, req.user.id, {
    article: req.query.article ?? null,
    name: req.query.name,
    ...(validFrom !== undefined ? { valid_from: validFrom === 'beginning' ? null : validFrom } : {}),
  });
  return noContent();
}

const handlers = {
  list: http(listRoute, list),
  put: http(putRoute, put),
  remove: http(deleteRoute, remove),
};

/** ONE Lambda serves the three routes of /api/own-costs, dispatched on the method. */
export async function handler(event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> {
  const method = (event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? '').toUpperCase();
  if (method === 'PUT') return handlers.put(event, context);
  if (method === 'DELETE') return handlers.remove(event, context);
  return handlers.list(event, context);
}
