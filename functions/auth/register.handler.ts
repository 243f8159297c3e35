import { register } from '../../shared/auth/accounts';
import { accountDeps } from '../../shared/auth/mail-deps';
import { ROUTES, reply, fromRoute, publicHttp, sourceIp, type HttpRequest } from '../../shared/http';

const contract = ROUTES.register;
const route = fromRoute(contract);

/** POST /api/auth/register → 202 for a new and an existing address alike (no enumeration). */
export async function main(req: HttpRequest<typeof route>) {
  await register(accountDeps, req.body.email, sourceIp(req));
  return reply(contract, 202, { status: 'confirmation_sent' });
}

export const handler = publicHttp(route, main);
