import { z } from 'zod';
import { emailSchema, http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { badRequest, notFound } from '../../shared/errors';
import { topUp } from '../../shared/store/limits.repo';
import { getUserByEmail, getUserById } from '../../shared/store/users.repo';

const body = z
  .object({
    email: emailSchema.optional(),
    user_id: z.string().min(1).max(64).optional(),
    rows: z.number().int().positive().max(1_000_000_000),
    idempotency_key: z.string().min(1).max(200).optional(),
  })
  .refine((b) => (b.email === undefined) !== (b.user_id === undefined), {
    message: 'Give exactly one of email and user_id',
    path: ['email'],
  });

const route = { auth: 'admin', body } satisfies HttpOptions;

const headerKey = z.string().min(1).max(200);

/**
 * POST /api/auth/top-up (admin) → {user_id, limits, initial_limits}; unknown user → 404. The key of a
 * retry is the `Idempotency-Key` header or the body's `idempotency_key` (both given: they must agree,
 * else 400 `idempotency_key_mismatch`); a key reused for another user or row count → 422
 * `idempotency_key_reused`.
 */
export async function main(req: HttpRequest<typeof route>) {
  const { email, user_id, rows } = req.body;
  const header = req.headers['idempotency-key'];
  if (header !== undefined && !headerKey.safeParse(header).success) {
    throw badRequest('validation_error', 'Idempotency-Key must be 1 to 200 characters');
  }
  if (header !== undefined && req.body.idempotency_key !== undefined && header !== req.body.idempotency_key) {
    throw badRequest('idempotency_key_mismatch', 'The Idempotency-Key header and idempotency_key differ');
  }
  const idempotency_key = header ?? req.body.idempotency_key;
  const user = email !== undefined ? await getUserByEmail(email) : await getUserById(user_id as string);
  if (!user) throw notFound('User not found');
  return json(200, await topUp({ userId: user.id, rows, idempotencyKey: idempotency_key }));
}

export const handler = http(route, main);
