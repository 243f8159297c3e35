import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { localKeyWrapper, openToken, sealToken, TokenCryptoError, type SealedToken } from './token-crypto';

const KEY = randomBytes(32).toString('base64');
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjE3OTAwMDAwMDB9.c2lnbmF0dXJl';
const ctx = { sellerId: 'seller-1' };

/** Flips one bit of a base64 field. */
function flip(b64: string, byte = 0): string {
  const b = Buffer.from(b64, 'base64');
  b[byte] = b[byte]! ^ 1;
  return b.toString('base64');
}

describe('token envelope encryption', () => {
  it('round trip, and the sealed form holds no trace of the token', async () => {
    const w = localKeyWrapper(KEY, 'k1');
    const sealed = await sealToken(TOKEN, w, ctx);
    expect(sealed.kid).toBe('k1');
    expect(JSON.stringify(sealed)).not.toContain('eyJ');
    expect(await openToken(sealed, w, ctx)).toBe(TOKEN);
  });

  it('each token gets its own data key and IV', async () => {
    const w = localKeyWrapper(KEY);
    const a = await sealToken(TOKEN, w, ctx);
    const b = await sealToken(TOKEN, w, ctx);
    expect(a.wk).not.toBe(b.wk);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ct).not.toBe(b.ct);
  });

  it('detects tampering with any part', async () => {
    const w = localKeyWrapper(KEY);
    const sealed = await sealToken(TOKEN, w, ctx);
    const variants: SealedToken[] = [
      { ...sealed, ct: flip(sealed.ct, 5) },
      { ...sealed, tag: flip(sealed.tag) },
      { ...sealed, iv: flip(sealed.iv) },
      { ...sealed, wk: flip(sealed.wk, 40) },
      { ...sealed, wk: flip(sealed.wk, 0) },
      { ...sealed, wk: Buffer.from(sealed.wk, 'base64').subarray(1).toString('base64') },
    ];
    for (const v of variants) await expect(openToken(v, w, ctx)).rejects.toThrow(TokenCryptoError);
  });

  it('does not open for another seller', async () => {
    const w = localKeyWrapper(KEY);
    const sealed = await sealToken(TOKEN, w, ctx);
    await expect(openToken(sealed, w, { sellerId: 'seller-2' })).rejects.toThrow(TokenCryptoError);
  });

  it('does not open with a wrong key', async () => {
    const sealed = await sealToken(TOKEN, localKeyWrapper(KEY, 'k'), ctx);
    const other = localKeyWrapper(randomBytes(32).toString('base64'), 'k');
    await expect(openToken(sealed, other, ctx)).rejects.toThrow(/does not open/);
    await expect(openToken(sealed, localKeyWrapper(KEY, 'k2'), ctx)).rejects.toThrow(/sealed under key k/);
  });

  it('refuses a local key that is not 32 bytes', () => {
    expect(() => localKeyWrapper(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
