import { register } from '../../shared/auth/accounts';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';

const contract = ROUTES.register;
const route = fromRoute(contract);

/** POST /api/auth/register → 202 for a new and an existing address alike (no enumeration). */
export async function main(req: HttpRequest<typeof route>) {
  await register(req.body.email);
  return reply(contract, 202, { status: 'confirmation_sent' });
}

export const handler = http(route, main);
