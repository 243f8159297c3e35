import { describe, expect, it } from 'vitest';
import {
  decodeWbToken,
  hasAnalyticsScope,
  hasFinanceScope,
  scopeMask,
  secondsLeft,
  tokenHint,
  WbTokenError,
} from './token';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: unknown) => `${b64({ alg: 'ES256', kid: '20250101v1', typ: 'JWT' })}.${b64(claims)}.c2lnbmF0dXJl`;

describe('WB token', () => {
  it('decodes expiry, categories, seller and type', () => {
    const s = 2 ** 5 + 2 ** 13 + 2 ** 30; // Статистика, Финансы, read-only
    const info = decodeWbToken(
      jwt({ acc: 3, ent: 1, exp: 1_790_000_000, for: 'self', id: 'x', oid: 1234567, s, sid: 'a-b-c', t: false }),
    );
    expect(info).toEqual({
      exp: 1_790_000_000,
      scopes: ['Статистика', 'Финансы'],
      readOnly: true,
      sellerId: '1234567',
      sellerUuid: 'a-b-c',
      tokenType: 'Персональный',
      test: false,
    });
    expect(hasFinanceScope(info)).toBe(true);
  });

  it('tests bits as s & (1 << position), position 1 is Контент', () => {
    expect(decodeWbToken(jwt({ exp: 1, s: 2 })).scopes).toEqual(['Контент']);
    expect(decodeWbToken(jwt({ exp: 1, s: 1 })).scopes).toEqual([]); // bit 0: no category
    expect(decodeWbToken(jwt({ exp: 1, s: 2 ** 20 })).scopes).toEqual(['бит 20']);
  });

  it('«Аналитика» (bit 2) opens the paid-storage and acceptance reports', () => {
    const info = decodeWbToken(jwt({ exp: 1, s: 2 ** 2 + 2 ** 13 }));
    expect(info.scopes).toEqual(['Аналитика', 'Финансы']);
    expect(hasAnalyticsScope(info)).toBe(true);
    expect(hasAnalyticsScope(decodeWbToken(jwt({ exp: 1, s: 2 ** 13 })))).toBe(false);
  });

  it('a token without «Финансы», without seller id or type', () => {
    const info = decodeWbToken(jwt({ exp: 5, s: scopeMask(['Контент', 'Статистика']) }));
    expect(info.scopes).toEqual(['Контент', 'Статистика']);
    expect(hasFinanceScope(info)).toBe(false);
    expect(info.sellerId).toBeNull();
    expect(info.tokenType).toBeNull();
  });

  it('refuses what is not a JWT, or has no expiry', () => {
    for (const bad of [
      '',
      'abc',
      'a.b',
      'a..c',
      '!!.@@.##',
      `${b64({})}.${Buffer.from('nope').toString('base64url')}.x`,
    ]) {
      expect(() => decodeWbToken(bad)).toThrow(WbTokenError);
    }
    expect(() => decodeWbToken(jwt({ s: 2 }))).toThrow(expect.objectContaining({ problem: 'no_expiry' }));
    expect(() => decodeWbToken(jwt([1, 2]))).toThrow(expect.objectContaining({ problem: 'malformed' }));
  });

  it('scopeMask is the inverse of decoding', () => {
    const names = ['Аналитика', 'Поставки', 'Финансы'];
    expect(decodeWbToken(jwt({ exp: 1, s: scopeMask(names, true) }))).toMatchObject({ scopes: names, readOnly: true });
    expect(() => scopeMask(['Нет такой'])).toThrow(/unknown/);
  });

  it('seconds left on a given clock', () => {
    expect(secondsLeft({ exp: 1000 }, 400_000)).toBe(600);
    expect(secondsLeft({ exp: 1000 }, 1_000_500)).toBe(-1);
  });

  it('tokenHint shows only the last four characters', () => {
    expect(tokenHint(' eyJabc.def.XYZ9 ')).toBe('…XYZ9');
    expect(tokenHint('abc')).toBe('…');
  });
});
