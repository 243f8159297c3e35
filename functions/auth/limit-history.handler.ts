import { cursorQuerySchema, http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { listLimitHistory } from '../../shared/store/limits.repo';

const route = { auth: 'user', query: cursorQuerySchema } satisfies HttpOptions;

/** GET /api/auth/limit-history?cursor= → {items, next_cursor}, newest first. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, await listLimitHistory(req.user.id, req.query.cursor));
}

export const handler = http(route, main);
