import { forgotPassword } from '../../shared/auth/accounts';
import { accountDeps } from '../../shared/auth/mail-deps';
import { publicRoute, ROUTES, sourceIp } from '../../shared/http/public';

/** POST /api/auth/forgot-password → 202 whatever the address (no enumeration). */
export const handler = publicRoute(ROUTES.forgotPassword, async (req) => {
  await forgotPassword(accountDeps, req.body.email, sourceIp(req));
  return { status: 202, body: { status: 'reset_sent' as const } };
});
