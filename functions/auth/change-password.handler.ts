import { changePassword } from '../../shared/auth/accounts';
import { signInDeps } from '../../shared/auth/deps';
import { route, ROUTES } from '../../shared/http';

/**
 * POST /api/auth/change-password {current_password, new_password} → 200 {token, user}. Every earlier
 * session ends, the calling one included: the page keeps working with the token of the answer.
 * 400 invalid_current_password | weak_password (min_length 8); 409 password_changed.
 */
export const handler = route(ROUTES.changePassword, async (req) => ({
  status: 200,
  body: await changePassword(signInDeps, req.user, req.body.current_password, req.body.new_password),
}));
