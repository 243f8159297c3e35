/**
 * Envelope encryption of sellers' WB tokens at rest.
 *
 * Each token gets its own random 256-bit data key; the token is sealed with AES-256-GCM under that key,
 * and the data key is stored only wrapped by a key-encryption key behind the `KeyWrapper` port (AWS KMS
 * in production, a key from config locally). The seller's id is bound as additional authenticated data
 * (and as the KMS encryption context), so a sealed token copied to another seller's record does not open.
 * Tampering with any part (IV, tag, ciphertext, wrapped key, context) fails authentication.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The key-encryption port. `context` must be given back unchanged to unwrap. */
export interface KeyWrapper {
  /** Identifies the wrapping key (KMS key ARN/alias, or the local key's id) and is stored beside the token. */
  readonly keyId: string;
  wrap(dataKey: Buffer, context: Record<string, string>): Promise<Buffer>;
  /**
   * A fresh data key, plain and wrapped, in one call (KMS GenerateDataKey). When present, sealToken uses it
   * instead of a local random key and `wrap`.
   */
  generate?(context: Record<string, string>): Promise<{ plain: Buffer; wrapped: Buffer }>;
  unwrap(wrapped: Buffer, context: Record<string, string>): Promise<Buffer>;
}

export interface SealedToken {
  v: 1;
  /** KeyWrapper.keyId that wrapped the data key. */
  kid: string;
  /** base64 of the wrapped data key, the GCM IV, tag and ciphertext. */
  wk: string;
  iv: string;
  tag: string;
  ct: string;
}

export class TokenCryptoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenCryptoError';
  }
}

const ALG = 'aes-256-gcm';

/** Stable AAD from a context: keys sorted, so the order they were given in does not matter. */
function aad(context: Record<string, string>): Buffer {
  const sorted = Object.keys(context)
    .sort()
    .map((k) => [k, context[k]]);
  return Buffer.from(JSON.stringify(sorted), 'utf8');
}

function seal(key: Buffer, plain: Buffer, ad: Buffer): { iv: Buffer; tag: Buffer; ct: Buffer } {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALG, key, iv);
  cipher.setAAD(ad);
  const ct = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), ct };
}

function open(key: Buffer, iv: Buffer, tag: Buffer, ct: Buffer, ad: Buffer): Buffer {
  if (iv.length !== 12 || tag.length !== 16) throw new TokenCryptoError('sealed token is damaged');
  try {
    const decipher = createDecipheriv(ALG, key, iv);
    decipher.setAAD(ad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]);
  } catch {
    throw new TokenCryptoError('sealed token does not open: wrong key, wrong seller or tampered');
  }
}

export interface TokenContext {
  /** Our seller id the token belongs to. */
  sellerId: string;
}

export async function sealToken(token: string, wrapper: KeyWrapper, ctx: TokenContext): Promise<SealedToken> {
  const context = { sellerId: ctx.sellerId, purpose: 'wb-token' };
  const generated = wrapper.generate ? await wrapper.generate(context) : null;
  const dataKey = generated ? generated.plain : randomBytes(32);
  if (dataKey.length !== 32) throw new TokenCryptoError('the data key must be 32 bytes');
  try {
    const { iv, tag, ct } = seal(dataKey, Buffer.from(token, 'utf8'), aad(context));
    const wk = generated ? generated.wrapped : await wrapper.wrap(dataKey, context);
    return {
      v: 1,
      kid: wrapper.keyId,
      wk: wk.toString('base64'),
      iv: iv.toString('base64'),
      tag: tag.toString('base64'),
      ct: ct.toString('base64'),
    };
  } finally {
    dataKey.fill(0);
  }
}

export async function openToken(sealed: SealedToken, wrapper: KeyWrapper, ctx: TokenContext): Promise<string> {
  if (sealed.v !== 1) throw new TokenCryptoError(`unknown sealed token version ${String(sealed.v)}`);
  if (sealed.kid !== wrapper.keyId) {
    throw new TokenCryptoError(`sealed under key ${sealed.kid}, not ${wrapper.keyId}`);
  }
  const context = { sellerId: ctx.sellerId, purpose: 'wb-token' };
  let dataKey: Buffer;
  try {
    dataKey = await wrapper.unwrap(Buffer.from(sealed.wk, 'base64'), context);
  } catch (e) {
    if (e instanceof TokenCryptoError) throw e;
    throw new TokenCryptoError('data key does not unwrap');
  }
  try {
    const plain = open(
      dataKey,
      Buffer.from(sealed.iv, 'base64'),
      Buffer.from(sealed.tag, 'base64'),
      Buffer.from(sealed.ct, 'base64'),
      aad(context),
    );
    return plain.toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/**
 * The local KeyWrapper: the data key sealed with AES-256-GCM under a 32-byte key from config
 * (base64), the context as AAD. For development, tests and the emulator stack; production uses KMS.
 */
export function localKeyWrapper(keyBase64: string, keyId = 'local'): KeyWrapper {
  const kek = Buffer.from(keyBase64, 'base64');
  if (kek.length !== 32) throw new TokenCryptoError('the local token key must be 32 bytes (base64)');
  return {
    keyId,
    wrap: (dataKey, context) => {
      const { iv, tag, ct } = seal(kek, dataKey, aad(context));
      return Promise.resolve(Buffer.concat([iv, tag, ct]));
    },
    unwrap: (wrapped, context) => {
      if (wrapped.length !== 12 + 16 + 32) return Promise.reject(new TokenCryptoError('wrapped data key is damaged'));
      return Promise.resolve(
        open(kek, wrapped.subarray(0, 12), wrapped.subarray(12, 28), wrapped.subarray(28), aad(context)),
      );
    },
  };
}
