import { confirm } from '../../shared/auth/accounts';
import { accountDeps } from '../../shared/auth/mail-deps';
import { badRequest } from '../../shared/errors';
import { publicRoute, ROUTES } from '../../shared/http/public';

/** GET /api/auth/confirm?token= → 200 confirmed | already_confirmed; a bad link → 400 invalid_token. */
export const handler = publicRoute(ROUTES.confirm, async (req) => {
  if (!req.query.token) throw badRequest('invalid_token', 'The link is invalid or has expired');
  return { status: 200, body: await confirm(accountDeps, req.query.token) };
});
