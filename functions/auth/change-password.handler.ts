import { changePassword } from '../../shared/auth/accounts';
import { signInDeps } from '../../shared/auth/deps';
import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';

const contract = ROUTES.changePassword;
const route = fromRoute(contract);

/**
 * POST /api/auth/change-password {current_password, new_password} → 200 {token, user}. Every earlier
 * session ends, the calling one included: the page keeps working with the token of the answer.
 * 400 invalid_current_password | weak_password (min_length 8); 409 password_changed.
 */
export async function main(req: HttpRequest<typeof route>) {
  return reply(
    contract,
    200,
    await changePassword(signInDeps, req.user, req.body.current_password, req.body.new_password),
  );
}

export const handler = http(route, main);
