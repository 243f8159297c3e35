import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { badRequest } from '../../shared/errors';
import { fromRoute, http, noContent, reply, ROUTES, type HttpRequest, type HttpResult } from '../../shared/http';
import { MAX_COST_FILE_BYTES, readCostFile } from '../../shared/costs/period-costs-file';
import { periodCostDeps } from '../../shared/pnl/deps';
import { createCost, importCosts, listCosts, removeCost, replaceCost } from '../../shared/costs/period-costs';

const deps = periodCostDeps();

const listRoute = fromRoute(ROUTES.listPeriodCosts);
/** GET /api/period-costs?seller_id= → {costs}, oldest first. */
export async function list(req: HttpRequest<typeof listRoute>) {
  return reply(ROUTES.listPeriodCosts, 200, { costs: await listCosts(deps, req.user.id, req.query.seller_id) });
}

const createRoute = fromRoute(ROUTES.createPeriodCost);
/** POST /api/period-costs → 201 the cost; 422 invalid_period_cost / too_many_period_costs. */
export async function create(req: HttpRequest<typeof createRoute>) {
  return reply(ROUTES.createPeriodCost, 201, await createCost(deps, req.user.id, req.body));
}

const putRoute = fromRoute(ROUTES.putPeriodCost);
/** PUT /api/period-costs/{id} → the cost; 404 period_cost_not_found. */
export async function put(req: HttpRequest<typeof putRoute>) {
  return reply(ROUTES.putPeriodCost, 200, await replaceCost(deps, req.user.id, req.path.id, req.body));
}

const deleteRoute = fromRoute(ROUTES.deletePeriodCost);
/** DELETE /api/period-costs/{id} → 204; 404 period_cost_not_found. */
export async function remove(req: HttpRequest<typeof deleteRoute>) {
  await removeCost(deps, req.user.id, req.path.id);
  return noContent();
}

const importRoute = fromRoute(ROUTES.importPeriodCosts, { multipart: { maxFileBytes: MAX_COST_FILE_BYTES } });
/** POST /api/period-costs/import (multipart `file`, optional `seller_id`) → {created, errors}. */
export async function importFile(req: HttpRequest<typeof importRoute>) {
  if (!req.file) throw badRequest('file_required', 'Send the file as multipart/form-data in the field "file"');
  const parsed = await readCostFile(req.file.buffer);
  return reply(ROUTES.importPeriodCosts, 200, await importCosts(deps, req.user.id, parsed, req.body.seller_id));
}

const handlers = {
  list: http(listRoute, list),
  create: http(createRoute, create),
  put: http(putRoute, put),
  remove: http(deleteRoute, remove),
  importFile: http(importRoute, importFile),
};

/** ONE Lambda serves the five period-cost routes, dispatched on the method and the path. */
export async function handler(event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> {
  const method = (event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? '').toUpperCase();
  const path = event.rawPath ?? event.requestContext?.http?.path ?? event.routeKey ?? '';
  if (/\/import$/.test(path) || /\/import$/.test(event.routeKey ?? '')) return handlers.importFile(event, context);
  if (method === 'POST') return handlers.create(event, context);
  if (method === 'PUT') return handlers.put(event, context);
  if (method === 'DELETE') return handlers.remove(event, context);
  return handlers.list(event, context);
}
