import { forgotPassword } from '../../shared/auth/accounts';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';

const contract = ROUTES.forgotPassword;
const route = fromRoute(contract);

/** POST /api/auth/forgot-password → 202 whatever the address (no enumeration). */
export async function main(req: HttpRequest<typeof route>) {
  await forgotPassword(req.body.email);
  return reply(contract, 202, { status: 'reset_sent' });
}

export const handler = http(route, main);
