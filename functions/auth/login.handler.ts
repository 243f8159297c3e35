import { login } from '../../shared/auth/accounts';
import { signInDeps } from '../../shared/auth/deps';
import { ROUTES, reply, fromRoute, publicHttp, sourceIp, type HttpRequest } from '../../shared/http';

const contract = ROUTES.login;
const route = fromRoute(contract);

/** POST /api/auth/login → 200 {token, user}; any wrong input → 401 invalid_credentials. */
export async function main(req: HttpRequest<typeof route>) {
  return reply(contract, 200, await login(signInDeps, req.body.email, req.body.password, sourceIp(req)));
}

export const handler = publicHttp(route, main);
