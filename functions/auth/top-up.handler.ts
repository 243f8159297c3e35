import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { notFound } from '../../shared/errors';
import { topUp } from '../../shared/store/limits.repo';
import { getUserByEmail, getUserById } from '../../shared/store/users.repo';

const contract = ROUTES.topUp;
const route = fromRoute(contract);

/** POST /api/auth/top-up (admin) → {user_id, limits, initial_limits}; unknown user → 404. */
export async function main(req: HttpRequest<typeof route>) {
  const { email, user_id, rows, idempotency_key } = req.body;
  const user = email !== undefined ? await getUserByEmail(email) : await getUserById(user_id as string);
  if (!user) throw notFound('User not found');
  return reply(contract, 200, await topUp({ userId: user.id, rows, idempotencyKey: idempotency_key }));
}

export const handler = http(route, main);
