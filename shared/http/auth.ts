import { issuedAtMs, verifyToken } from '../auth/tokens';
import { forbidden, unauthorized } from '../errors';
import { getUserById, type UserRecord } from '../store/users.repo';

export type AuthMode = 'user' | 'admin' | 'none';

/** `Authorization: Bearer <jwt>` from headers of any case (HTTP API v2 lower-cases; offline may not). */
export function bearerToken(headers: Record<string, string | undefined> | undefined): string | null {
  if (!headers) return null;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === 'authorization' && v) {
      const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(v);
      return m ? m[1]! : null;
    }
  }
  return null;
}

/**
 * The caller for `mode`: an `access`-scenario token (HS256 only) whose user still exists and that was
 * issued after the user's last password change (a reset ends every earlier session); 401 for anything
 * else (missing, malformed, expired, other scenario, deleted user). `admin` additionally needs role
 * admin, else 403.
 */
export async function authenticate(
  headers: Record<string, string | undefined> | undefined,
  mode: Exclude<AuthMode, 'none'>,
): Promise<UserRecord> {
  const token = bearerToken(headers);
  if (!token) throw unauthorized('Missing bearer token');
  const payload = verifyToken(token, 'access');
  const user = await getUserById(payload.user_id);
  if (!user || !user.confirmed) throw unauthorized('Missing, invalid or expired token');
  if (user.password_changed_at && issuedAtMs(payload) < Date.parse(user.password_changed_at))
    throw unauthorized('Missing, invalid or expired token');
  if (mode === 'admin' && user.role !== 'admin') throw forbidden('Administrators only');
  return user;
}
