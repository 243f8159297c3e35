import { register } from '../../shared/auth/accounts';
import { accountDeps } from '../../shared/auth/mail-deps';
import { publicRoute, ROUTES, sourceIp } from '../../shared/http/public';

/** POST /api/auth/register → 202 for a new and an existing address alike (no enumeration). */
export const handler = publicRoute(ROUTES.register, async (req) => {
  await register(accountDeps, req.body.email, sourceIp(req));
  return { status: 202, body: { status: 'confirmation_sent' as const } };
});
