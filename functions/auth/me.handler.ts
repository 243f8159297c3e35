import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { toPublicUser } from '../../shared/store/users.repo';

const contract = ROUTES.me;
const route = fromRoute(contract);

/** GET /api/auth/me → the caller as loaded (fresh) by the auth middleware. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, { user: toPublicUser(req.user) });
}

export const handler = http(route, main);
