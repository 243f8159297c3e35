import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { fromRoute, http, noContent, reply, ROUTES, type HttpRequest, type HttpResult } from '../../shared/http';
import {
  connect,
  disconnect,
  getConnection,
  listConnections,
  requestSync,
  updateConnection,
} from '../../shared/marketplaces/wb/sync/connections';
import { connectionDeps } from '../../shared/marketplaces/wb/sync/connection-deps';
import { presentConnection } from '../../shared/marketplaces/wb/sync/present-connection';

const deps = connectionDeps();

const connectRoute = fromRoute(ROUTES.wbConnect);
/**
 * POST /api/wb/connections {token, from?} → 201 {connection}. The token is checked with one call to WB
 * (422 wb_token_invalid / wb_token_no_finance / wb_token_expired; 503 wb_unavailable when WB does not
 * answer or the WB account was called less than a minute ago), sealed and never returned.
 */
export async function create(req: HttpRequest<typeof connectRoute>) {
  return reply(ROUTES.wbConnect, 201, {
    connection: presentConnection(await connect(deps, req.user.id, req.body)),
  });
}

const listRoute = fromRoute(ROUTES.wbConnections);
/** GET /api/wb/connections → {items}: the caller's connections, oldest first. */
export async function list(req: HttpRequest<typeof listRoute>) {
  return reply(ROUTES.wbConnections, 200, {
    items: (await listConnections(deps, req.user.id)).map(presentConnection),
  });
}

const getRoute = fromRoute(ROUTES.wbConnection);
/** GET /api/wb/connections/{id} → {connection}; another user's id → 404 wb_connection_not_found. */
export async function get(req: HttpRequest<typeof getRoute>) {
  return reply(ROUTES.wbConnection, 200, {
    connection: presentConnection(await getConnection(deps, req.user.id, req.path.id)),
  });
}

const patchRoute = fromRoute(ROUTES.wbUpdateConnection);
/** PATCH /api/wb/connections/{id} {token?, paused?, from?} → {connection}. */
export async function patch(req: HttpRequest<typeof patchRoute>) {
  return reply(ROUTES.wbUpdateConnection, 200, {
    connection: presentConnection(await updateConnection(deps, req.user.id, req.path.id, req.body)),
  });
}

const deleteRoute = fromRoute(ROUTES.wbDisconnect);
/** DELETE /api/wb/connections/{id} → 204; imported reports stay. */
export async function remove(req: HttpRequest<typeof deleteRoute>) {
  await disconnect(deps, req.user.id, req.path.id);
  return noContent();
}

const syncRoute = fromRoute(ROUTES.wbSync);
/** POST /api/wb/connections/{id}/sync {from?} → 202 {connection}: a round now (the tick runs it). */
export async function sync(req: HttpRequest<typeof syncRoute>) {
  return reply(ROUTES.wbSync, 202, {
    connection: presentConnection(await requestSync(deps, req.user.id, req.path.id, req.body ?? {})),
  });
}

const handlers = {
  create: http(connectRoute, create),
  list: http(listRoute, list),
  get: http(getRoute, get),
  patch: http(patchRoute, patch),
  remove: http(deleteRoute, remove),
  sync: http(syncRoute, sync),
};

/** ONE Lambda serves the six connection routes, dispatched on the method and the path. */
export async function handler(event: APIGatewayProxyEventV2, context?: Partial<Context>): Promise<HttpResult> {
  const method = (event.requestContext?.http?.method ?? event.routeKey?.split(' ')[0] ?? '').toUpperCase();
  const path = event.rawPath ?? event.requestContext?.http?.path ?? event.routeKey ?? '';
  const withId = /\/api\/wb\/connections\/[^/]+/.test(path) || /\{id\}/.test(event.routeKey ?? '');
  if (/\/sync$/.test(path) || /\/sync$/.test(event.routeKey ?? '')) return handlers.sync(event, context);
  if (method === 'POST') return handlers.create(event, context);
  if (method === 'PATCH') return handlers.patch(event, context);
  if (method === 'DELETE') return handlers.remove(event, context);
  return withId ? handlers.get(event, context) : handlers.list(event, context);
}
