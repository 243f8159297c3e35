import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { toPublicUser } from '../../shared/store/users.repo';

const route = { auth: 'user' } satisfies HttpOptions;

/** GET /api/auth/me → the caller as loaded (fresh) by the auth middleware. */
export async function main(req: HttpRequest<typeof route>) {
  return json(200, { user: toPublicUser(req.user) });
}

export const handler = http(route, main);
