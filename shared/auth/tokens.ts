import { randomUUID } from 'node:crypto';
import jwt, { type SignOptions } from 'jsonwebtoken';
import { getConfig } from '../config';
import { secret } from '../secrets';
import { AppError, badRequest, unauthorized } from '../errors';

/**
 * The three token scenarios of docs/API.md. A token carries its scenario, and every verification names the
 * scenario(s) it accepts, so a confirm link can never serve as a session (docs/ARCHITECTURE.md: tokens of one
 * scenario are rejected where another is expected).
 */
export type TokenScenario = 'confirm' | 'reset' | 'access';

export interface TokenPayload {
  user_id: string;
  scenario: TokenScenario;
  /** Unique per token: lets one-time links (reset) be marked used. */
  jti: string;
  /** Seconds since epoch, set by jsonwebtoken. */
  iat: number;
  /** Milliseconds since epoch at signing: `iat` is too coarse to tell a session from a password change in the same second. */
  iat_ms?: number;
  exp: number;
}

/** Lifetimes of docs/API.md: confirm 24 h, reset 1 h, access ACCESS_TOKEN_TTL (7 days by default). */
export const TOKEN_TTL: Record<Exclude<TokenScenario, 'access'>, string> = { confirm: '24h', reset: '1h' };

type Ttl = NonNullable<SignOptions['expiresIn']>;

/** The only algorithm signed and accepted: pinning it on verify defeats `alg: none` and RS/HS confusion. */
const ALGORITHM = 'HS256' as const;

export function signToken(payload: { user_id: string }, scenario: TokenScenario, ttl?: string | number): string {
  const expiresIn = (ttl ?? (scenario === 'access' ? getConfig().ACCESS_TOKEN_TTL : TOKEN_TTL[scenario])) as Ttl;
  return jwt.sign({ user_id: payload.user_id, scenario, iat_ms: Date.now() }, secret('jwt'), {
    algorithm: ALGORITHM,
    expiresIn,
    jwtid: randomUUID(),
  });
}

/** How far ahead of the verifier's clock a token's `iat` may be (clocks of execution environments differ). */
export const MAX_CLOCK_SKEW_MS = 60_000;

/**
 * Verifies signature, algorithm, expiry, scenario and that it was not issued in the future. Failure → 401 `unauthorized` when an access token
 * was expected (a session), else 400 `invalid_token` (a mailed link). The reason is not told apart.
 */
export function verifyToken(
  token: string,
  scenarios: TokenScenario | readonly TokenScenario[],
  nowMs = Date.now(),
): TokenPayload {
  const accepted: readonly TokenScenario[] = typeof scenarios === 'string' ? [scenarios] : scenarios;
  const fail = (): AppError =>
    accepted.includes('access')
      ? unauthorized('Missing, invalid or expired token')
      : badRequest('invalid_token', 'The link is invalid or has expired');
  let decoded: unknown;
  try {
    decoded = jwt.verify(token, secret('jwt'), { algorithms: [ALGORITHM] });
  } catch {
    throw fail();
  }
  if (!isPayload(decoded) || !accepted.includes(decoded.scenario)) throw fail();
  // Signed in the future: not by this service (its clock is the verifier's, give or take the skew
  // between execution environments); a forged or leaked key's token, refused.
  if (issuedAtMs(decoded) > nowMs + MAX_CLOCK_SKEW_MS || decoded.iat * 1000 > nowMs + MAX_CLOCK_SKEW_MS) throw fail();
  return decoded;
}

/** When the token was signed, in milliseconds (`iat_ms`, or `iat` for a token signed without it). */
export function issuedAtMs(p: Pick<TokenPayload, 'iat' | 'iat_ms'>): number {
  return typeof p.iat_ms === 'number' ? p.iat_ms : p.iat * 1000;
}

function isPayload(v: unknown): v is TokenPayload {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return (
    typeof p.user_id === 'string' &&
    p.user_id.length > 0 &&
    (p.scenario === 'confirm' || p.scenario === 'reset' || p.scenario === 'access') &&
    typeof p.jti === 'string' &&
    typeof p.iat === 'number' &&
    typeof p.exp === 'number'
  );
}
