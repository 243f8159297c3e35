import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { signToken, verifyToken } from './tokens';

const SECRET = 'unit-test-secret-unit-test-secret';

beforeAll(() => {
  Object.assign(process.env, {
    JWT_SECRET: SECRET,
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
  });
});

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a failure');
}

describe('tokens', () => {
  it('round-trips user id and scenario with a unique jti', () => {
    const a = verifyToken(signToken({ user_id: 'u1' }, 'confirm'), 'confirm');
    const b = verifyToken(signToken({ user_id: 'u1' }, 'confirm'), 'confirm');
    expect(a.user_id).toBe('u1');
    expect(a.scenario).toBe('confirm');
    expect(a.jti).not.toBe(b.jti);
    expect(a.exp - a.iat).toBe(24 * 3600);
  });

  it('uses 1 h for reset and ACCESS_TOKEN_TTL (7 d) for access', () => {
    const r = verifyToken(signToken({ user_id: 'u1' }, 'reset'), 'reset');
    expect(r.exp - r.iat).toBe(3600);
    const a = verifyToken(signToken({ user_id: 'u1' }, 'access'), 'access');
    expect(a.exp - a.iat).toBe(7 * 24 * 3600);
  });

  it('rejects another scenario: 401 where a session is expected, 400 invalid_token for links', () => {
    const confirmToken = signToken({ user_id: 'u1' }, 'confirm');
    const asSession = failure(() => verifyToken(confirmToken, 'access'));
    expect(asSession.status).toBe(401);
    const accessToken = signToken({ user_id: 'u1' }, 'access');
    const asLink = failure(() => verifyToken(accessToken, ['confirm', 'reset']));
    expect(asLink.status).toBe(400);
    expect(asLink.code).toBe('invalid_token');
  });

  it('rejects an expired token', () => {
    const expired = jwt.sign({ user_id: 'u1', scenario: 'access', exp: Math.floor(Date.now() / 1000) - 10 }, SECRET, {
      algorithm: 'HS256',
      jwtid: 'x',
    });
    expect(failure(() => verifyToken(expired, 'access')).status).toBe(401);
  });

  it('rejects a token issued in the future (beyond the clock skew): iat a year ahead, or iat_ms', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const sign = (claims: Record<string, number>) =>
      jwt.sign({ user_id: 'u1', scenario: 'access', exp: now / 1000 + 2 * 365 * 86_400, ...claims }, SECRET, {
        algorithm: 'HS256',
        jwtid: 'x',
      });
    const yearAhead = sign({ iat: now / 1000 + 365 * 86_400 });
    expect(failure(() => verifyToken(yearAhead, 'access', now)).status).toBe(401);
    const msAhead = sign({ iat: now / 1000, iat_ms: now + 365 * 86_400_000 });
    expect(failure(() => verifyToken(msAhead, 'access', now)).status).toBe(401);
    // Within the skew between execution environments' clocks: accepted; so is one issued now.
    expect(verifyToken(sign({ iat: now / 1000 + 30 }), 'access', now).user_id).toBe('u1');
    expect(verifyToken(sign({ iat: now / 1000 }), 'access', now).user_id).toBe('u1');
  });

  it('rejects a token signed with another secret', () => {
    const forged = jwt.sign({ user_id: 'u1', scenario: 'access' }, 'another-secret-another-secret', {
      algorithm: 'HS256',
      jwtid: 'x',
      expiresIn: 60,
    });
    expect(failure(() => verifyToken(forged, 'access')).status).toBe(401);
  });

  it('rejects alg "none"', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const body = Buffer.from(
      JSON.stringify({ user_id: 'u1', scenario: 'access', jti: 'x', iat: now, exp: now + 60 }),
    ).toString('base64url');
    expect(failure(() => verifyToken(`${header}.${body}.`, 'access')).status).toBe(401);
  });

  it('rejects RS256 tokens (no algorithm confusion)', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs = jwt.sign({ user_id: 'u1', scenario: 'access' }, privateKey, {
      algorithm: 'RS256',
      jwtid: 'x',
      expiresIn: 60,
    });
    expect(failure(() => verifyToken(rs, 'access')).status).toBe(401);
  });

  it('rejects an HS256 token missing user_id', () => {
    const t = jwt.sign({ scenario: 'access' }, SECRET, { algorithm: 'HS256', jwtid: 'x', expiresIn: 60 });
    expect(failure(() => verifyToken(t, 'access')).status).toBe(401);
  });
});
