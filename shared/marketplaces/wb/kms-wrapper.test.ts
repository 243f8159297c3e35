import { DecryptCommand, GenerateDataKeyCommand } from '@aws-sdk/client-kms';
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { kmsKeyWrapper, type KmsLike } from './kms-wrapper';
import { openToken, sealToken, TokenCryptoError } from './token-crypto';

const KEY = 'arn:aws:kms:eu-central-1:111122223333:key/test';

/** A KMS that keeps data keys by blob and checks the encryption context on Decrypt, as KMS does. */
function fakeKms() {
  const keys = new Map<string, { plain: Buffer; context: string }>();
  const send = vi.fn(async (command: unknown) => {
    if (command instanceof GenerateDataKeyCommand) {
      const plain = randomBytes(32);
      const blob = randomBytes(48);
      keys.set(blob.toString('hex'), { plain, context: JSON.stringify(command.input.EncryptionContext) });
      return { Plaintext: new Uint8Array(plain), CiphertextBlob: new Uint8Array(blob), KeyId: KEY };
    }
    if (command instanceof DecryptCommand) {
      const k = keys.get(Buffer.from(command.input.CiphertextBlob!).toString('hex'));
      if (!k || k.context !== JSON.stringify(command.input.EncryptionContext)) {
        throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
      }
      return { Plaintext: new Uint8Array(k.plain), KeyId: KEY };
    }
    throw new Error(`unexpected ${String(command)}`);
  });
  return { kms: { send } as unknown as KmsLike, send };
}

describe('the KMS key wrapper (envelope encryption of WB tokens)', () => {
  it('seals with GenerateDataKey and opens with Decrypt, the seller as encryption context', async () => {
    const { kms, send } = fakeKms();
    const wrapper = kmsKeyWrapper(kms, KEY);
    const sealed = await sealToken('eyJ.token.sig', wrapper, { sellerId: 'S1' });
    expect(sealed.kid).toBe(KEY);
    expect(JSON.stringify(sealed)).not.toContain('eyJ.token.sig');
    const generate = send.mock.calls[0]![0] as GenerateDataKeyCommand;
    expect(generate).toBeInstanceOf(GenerateDataKeyCommand);
    expect(generate.input).toMatchObject({
      KeyId: KEY,
      KeySpec: 'AES_256',
      EncryptionContext: { sellerId: 'S1', purpose: 'wb-token' },
    });
    expect(await openToken(sealed, wrapper, { sellerId: 'S1' })).toBe('eyJ.token.sig');
    const decrypt = send.mock.calls[1]![0] as DecryptCommand;
    expect(decrypt.input).toMatchObject({ KeyId: KEY, EncryptionContext: { sellerId: 'S1', purpose: 'wb-token' } });
    expect(send).toHaveBeenCalledTimes(2);
  });

  it('does not open for another seller, nor when the ciphertext was changed', async () => {
    const { kms } = fakeKms();
    const wrapper = kmsKeyWrapper(kms, KEY);
    const sealed = await sealToken('eyJ.token.sig', wrapper, { sellerId: 'S1' });
    await expect(openToken(sealed, wrapper, { sellerId: 'S2' })).rejects.toBeInstanceOf(TokenCryptoError);
    const ct = Buffer.from(sealed.ct, 'base64');
    ct[0] = ct[0]! ^ 1;
    await expect(
      openToken({ ...sealed, ct: ct.toString('base64') }, wrapper, { sellerId: 'S1' }),
    ).rejects.toBeInstanceOf(TokenCryptoError);
  });

  it('refuses a sealed token of another key before calling KMS', async () => {
    const { kms, send } = fakeKms();
    const sealed = await sealToken('t', kmsKeyWrapper(kms, KEY), { sellerId: 'S1' });
    send.mockClear();
    await expect(openToken(sealed, kmsKeyWrapper(kms, `${KEY}-other`), { sellerId: 'S1' })).rejects.toThrow(
      /sealed under key/,
    );
    expect(send).not.toHaveBeenCalled();
  });
});
