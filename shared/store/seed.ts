/**
 * Reference data and the demo account of the local stack (scripts/start.ts) and of tests.
 * Both functions are idempotent: safe on every start.
 */
import { getConfig } from '../config';
import { conflict } from '../errors';
import { ensureRole } from './roles.repo';
import { createUser, getUserByEmail } from './users.repo';

/** The roles: `seller` (given at registration when present) and `admin` (granted by the admin tool). */
export async function ensureSeed(): Promise<void> {
  await ensureRole('seller', 'Продавец: загружает свои отчёты');
  await ensureRole('admin', 'Администратор: пополняет лимиты');
}

/**
 * A confirmed `seller` with the given password hash (the caller hashes: a store knows no auth) and INITIAL_LIMITS, created when the address has no
 * account. An existing account is left exactly as it is (`created: false`), so a restart never
 * resets a demo user's limits or a password someone changed.
 */
export async function ensureDemoUser(input: {
  email: string;
  passwordHash: string;
}): Promise<{ created: boolean; userId: string }> {
  await ensureSeed();
  const existing = await getUserByEmail(input.email);
  if (existing) return { created: false, userId: existing.id };
  try {
    const user = await createUser({
      email: input.email,
      role: 'seller',
      confirmed: true,
      passwordHash: input.passwordHash,
      limits: getConfig().INITIAL_LIMITS,
    });
    return { created: true, userId: user.id };
  } catch (e) {
    // Two starts racing: the other one created it.
    const again = await getUserByEmail(input.email);
    if (again) return { created: false, userId: again.id };
    throw e instanceof Error ? e : conflict('email_taken', 'Demo user exists');
  }
}
