import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSecrets, optionalSecret, resetSecrets, secret, SECRET_MAX_AGE_S } from './secrets';

const base = {
  TABLE_NAME: 't',
  BUCKET_NAME: 'bucket',
  MAIL_FROM: 'noreply@example.com',
  APP_URL: 'http://localhost:5173',
};
function env(extra: Record<string, string | undefined>) {
  for (const k of [
    'JWT_SECRET',
    'JWT_SECRET_PARAMETER',
    'TELEGRAM_BOT_TOKEN',
    'TELEGRAM_BOT_TOKEN_PARAMETER',
    'TELEGRAM_WEBHOOK_SECRET',
    'TELEGRAM_WEBHOOK_SECRET_PARAMETER',
  ])
    delete process.env[k];
  Object.assign(process.env, base, extra);
  resetSecrets();
}
afterEach(() => env({ JWT_SECRET: 'unit-test-secret-unit-test-secret' }));

describe('secrets', () => {
  it('locally: the value of the setting, nothing read', async () => {
    env({ JWT_SECRET: 'local-secret-local-secret' });
    const read = vi.fn();
    await loadSecrets(['jwt'], read);
    expect(read).not.toHaveBeenCalled();
    expect(secret('jwt')).toBe('local-secret-local-secret');
  });

  it('on AWS: the SecureString named by the setting, decrypted, cached for SECRET_MAX_AGE_S', async () => {
    env({ JWT_SECRET_PARAMETER: '/svc/prod/jwt-secret' });
    const read = vi.fn(async () => 'from-parameter-store-0123456789');
    expect(() => secret('jwt')).toThrow(/not loaded/);
    await loadSecrets(['jwt'], read);
    expect(read).toHaveBeenCalledWith('/svc/prod/jwt-secret', SECRET_MAX_AGE_S);
    expect(secret('jwt')).toBe('from-parameter-store-0123456789');
  });

  it('a parameter that is empty or short fails the request, it is never used', async () => {
    env({ JWT_SECRET_PARAMETER: '/svc/prod/jwt-secret' });
    await expect(loadSecrets(['jwt'], async () => 'short')).rejects.toThrow(/shorter than 16/);
    await expect(loadSecrets(['jwt'], async () => undefined)).rejects.toThrow(/empty/);
  });

  it('the configuration needs one of the two', async () => {
    env({});
    await expect(loadSecrets(['jwt'])).rejects.toThrow(/JWT_SECRET: set JWT_SECRET or JWT_SECRET_PARAMETER/);
  });

  it("Telegram's token and webhook secret: optional; a value locally, their own SecureStrings on AWS", async () => {
    env({ JWT_SECRET: 'local-secret-local-secret' });
    await loadSecrets(['telegramBot', 'telegramWebhook'], vi.fn());
    expect(optionalSecret('telegramBot')).toBeUndefined();
    expect(optionalSecret('telegramWebhook')).toBeUndefined();

    env({ JWT_SECRET: 'local-secret-local-secret', TELEGRAM_BOT_TOKEN: '123456:local-bot-token' });
    expect(optionalSecret('telegramBot')).toBe('123456:local-bot-token');

    env({
      JWT_SECRET: 'local-secret-local-secret',
      TELEGRAM_BOT_TOKEN_PARAMETER: '/svc/prod/telegram-bot-token',
      TELEGRAM_WEBHOOK_SECRET_PARAMETER: '/svc/prod/telegram-webhook-secret',
    });
    const read = vi.fn(async (name: string) => `value-of-${name}`);
    await loadSecrets(['telegramBot', 'telegramWebhook'], read);
    expect(read.mock.calls.map((c) => c[0]).sort()).toEqual([
      '/svc/prod/telegram-bot-token',
      '/svc/prod/telegram-webhook-secret',
    ]);
    expect(optionalSecret('telegramBot')).toBe('value-of-/svc/prod/telegram-bot-token');
    expect(secret('telegramWebhook')).toBe('value-of-/svc/prod/telegram-webhook-secret');
  });
});
