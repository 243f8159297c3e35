import { forgotPassword } from '../../shared/auth/accounts';
import { accountDeps } from '../../shared/auth/mail-deps';
import { ROUTES, reply, fromRoute, publicHttp, sourceIp, type HttpRequest } from '../../shared/http';

const contract = ROUTES.forgotPassword;
const route = fromRoute(contract);

/** POST /api/auth/forgot-password → 202 whatever the address (no enumeration). */
export async function main(req: HttpRequest<typeof route>) {
  await forgotPassword(accountDeps, req.body.email, sourceIp(req));
  return reply(contract, 202, { status: 'reset_sent' });
}

export const handler = publicHttp(route, main);
