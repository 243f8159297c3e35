import { login } from '../../shared/auth/accounts';
import { signInDeps } from '../../shared/auth/deps';
import { publicRoute, ROUTES, sourceIp } from '../../shared/http/public';

/** POST /api/auth/login → 200 {token, user}; any wrong input → 401 invalid_credentials. */
export const handler = publicRoute(ROUTES.login, async (req) => ({
  status: 200,
  body: await login(signInDeps, req.body.email, req.body.password, sourceIp(req)),
}));
