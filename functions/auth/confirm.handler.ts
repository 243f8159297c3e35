import { confirm } from '../../shared/auth/accounts';
import { accountDeps } from '../../shared/auth/mail-deps';
import { fromRoute, publicHttp, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { badRequest } from '../../shared/errors';

const contract = ROUTES.confirm;
const route = fromRoute(contract);

/** GET /api/auth/confirm?token= → 200 confirmed | already_confirmed; a bad link → 400 invalid_token. */
export async function main(req: HttpRequest<typeof route>) {
  if (!req.query.token) throw badRequest('invalid_token', 'The link is invalid or has expired');
  return reply(contract, 200, await confirm(accountDeps, req.query.token));
}

export const handler = publicHttp(route, main);
