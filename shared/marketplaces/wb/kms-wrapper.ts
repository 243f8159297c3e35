/**
 * The production KeyWrapper of token-crypto.ts: AWS KMS. A token's data key comes from GenerateDataKey
 * (AES_256) and is opened with Decrypt, both with the encryption context (the seller), so KMS refuses to
 * open a wrapped key under another seller's context and CloudTrail names the seller on every use.
 * The key is the stack's `WbTokenKey` (serverless.base.yml); its ARN is the setting WB_TOKEN_KMS_KEY_ID.
 */
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { TokenCryptoError, type KeyWrapper } from './token-crypto';

/** The calls the wrapper makes (a KMSClient fits; unit tests pass a fake). */
export type KmsLike = Pick<KMSClient, 'send'>;

export function kmsKeyWrapper(kms: KmsLike, keyId: string): KeyWrapper {
  return {
    keyId,
    async generate(context) {
      const r = await kms.send(
        new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }),
      );
      if (!r.Plaintext || !r.CiphertextBlob) throw new TokenCryptoError('KMS gave no data key');
      return { plain: Buffer.from(r.Plaintext), wrapped: Buffer.from(r.CiphertextBlob) };
    },
    async wrap(dataKey, context) {
      const r = await kms.send(new EncryptCommand({ KeyId: keyId, Plaintext: dataKey, EncryptionContext: context }));
      if (!r.CiphertextBlob) throw new TokenCryptoError('KMS gave no ciphertext');
      return Buffer.from(r.CiphertextBlob);
    },
    async unwrap(wrapped, context) {
      // KeyId pinned: a blob wrapped under another key is refused rather than opened with it.
      const r = await kms.send(
        new DecryptCommand({ KeyId: keyId, CiphertextBlob: wrapped, EncryptionContext: context }),
      );
      if (!r.Plaintext) throw new TokenCryptoError('KMS gave no plaintext');
      return Buffer.from(r.Plaintext);
    },
  };
}

/** A KMS client of the process's region (the Lambda's), for kmsKeyWrapper. */
export function kmsClient(region: string): KmsLike {
  return new KMSClient({ region, maxAttempts: 3 });
}
