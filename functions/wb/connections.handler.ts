import { noContent, routes } from '../../shared/http';
import { connectionDeps } from '../../shared/marketplaces/wb/sync/connection-deps';
import {
  connect,
  disconnect,
  getConnection,
  listConnections,
  requestSync,
  updateConnection,
} from '../../shared/marketplaces/wb/sync/connections';
import { presentConnection } from '../../shared/marketplaces/wb/sync/present-connection';

const deps = connectionDeps;

/** ONE Lambda serves the six connection routes (they share the token check and the presenter), dispatched from the contract. */
export const handler = routes({
  /**
   * POST /api/wb/connections {token, from?} → 201 {connection}. The token is checked with one call to WB
   * (422 wb_token_invalid / wb_token_no_finance / wb_token_expired; 503 wb_unavailable when WB does not
   * answer or the WB account was called less than a minute ago), sealed and never returned.
   */
  wbConnect: async (req) => ({
    status: 201,
    body: { connection: presentConnection(await connect(deps, req.user.id, req.body)) },
  }),
  /** GET /api/wb/connections → {items}: the caller's connections, oldest first. */
  wbConnections: async (req) => ({
    status: 200,
    body: { items: (await listConnections(deps, req.user.id)).map(presentConnection) },
  }),
  /** GET /api/wb/connections/{id} → {connection}; another user's id → 404 wb_connection_not_found. */
  wbConnection: async (req) => ({
    status: 200,
    body: { connection: presentConnection(await getConnection(deps, req.user.id, req.path.id)) },
  }),
  /** PATCH /api/wb/connections/{id} {token?, paused?, from?} → {connection}. */
  wbUpdateConnection: async (req) => ({
    status: 200,
    body: { connection: presentConnection(await updateConnection(deps, req.user.id, req.path.id, req.body)) },
  }),
  /** DELETE /api/wb/connections/{id} → 204; imported reports stay. */
  wbDisconnect: async (req) => {
    await disconnect(deps, req.user.id, req.path.id);
    return noContent();
  },
  /** POST /api/wb/connections/{id}/sync {from?} → 202 {connection}: a round now (the tick runs it). */
  wbSync: async (req) => ({
    status: 202,
    body: { connection: presentConnection(await requestSync(deps, req.user.id, req.path.id, req.body ?? {})) },
  }),
});
