import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { listLimitHistory } from '../../shared/store/limits.repo';

const contract = ROUTES.limitHistory;
const route = fromRoute(contract);

/** GET /api/auth/limit-history?cursor= → {items, next_cursor}, newest first. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await listLimitHistory(req.user.id, req.query.cursor));
}

export const handler = http(route, main);
