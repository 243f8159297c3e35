import { z } from 'zod';
import { topUpUser } from '../../shared/auth/profile';
import { topUpDeps } from '../../shared/auth/profile-deps';
import { badRequest } from '../../shared/errors';
import { route, ROUTES } from '../../shared/http';

const headerKey = z.string().min(1).max(200);

/**
 * POST /api/auth/top-up (admin) → {user_id, limits, initial_limits}; unknown user → 404. The key of a
 * retry is the `Idempotency-Key` header or the body's `idempotency_key` (both given: they must agree,
 * else 400 `idempotency_key_mismatch`); a key reused for another user or row count → 422
 * `idempotency_key_reused`.
 */
export const handler = route(ROUTES.topUp, async (req) => {
  const { email, user_id, rows } = req.body;
  const header = req.headers['idempotency-key'];
  if (header !== undefined && !headerKey.safeParse(header).success) {
    throw badRequest('validation_error', 'Idempotency-Key must be 1 to 200 characters');
  }
  if (header !== undefined && req.body.idempotency_key !== undefined && header !== req.body.idempotency_key) {
    throw badRequest('idempotency_key_mismatch', 'The Idempotency-Key header and idempotency_key differ');
  }
  const idempotencyKey = header ?? req.body.idempotency_key;
  return { status: 200, body: await topUpUser(topUpDeps, { email, user_id, rows, idempotencyKey }) };
});
