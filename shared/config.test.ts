import { describe, expect, it } from 'vitest';
import { ConfigError, getConfig, parseConfig } from './config';

const base = {
  JWT_SECRET: 'x'.repeat(32),
  TABLE_NAME: 't',
  BUCKET_NAME: 'bucket',
  MAIL_FROM: 'noreply@example.com',
  APP_URL: 'http://localhost:5173',
};

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const c = parseConfig(base);
    expect(c.INITIAL_LIMITS).toBe(10_000);
    expect(c.MAX_UPLOAD_BYTES).toBe(512 * 1024 * 1024);
    expect(c.COMBINE_WAIT_MS).toBe(10_000);
    expect(c.DYNAMODB_ENDPOINT).toBeUndefined();
    expect(c.WB_ANALYTICS_API_URL).toBe('https://seller-analytics-api.wildberries.ru');
    expect(parseConfig({ ...base, WB_ANALYTICS_API_URL: 'http://127.0.0.1:8787/' }).WB_ANALYTICS_API_URL).toBe(
      'http://127.0.0.1:8787',
    );
  });

  it('names every missing variable', () => {
    try {
      parseConfig({ TABLE_NAME: 't' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).variables.sort()).toEqual(['APP_URL', 'BUCKET_NAME', 'JWT_SECRET', 'MAIL_FROM']);
      expect((e as Error).message).toContain('JWT_SECRET: set JWT_SECRET or JWT_SECRET_PARAMETER');
    }
  });

  it('rejects malformed numbers and endpoints', () => {
    expect(() => parseConfig({ ...base, INITIAL_LIMITS: '-5' })).toThrow(/INITIAL_LIMITS/);
    expect(() => parseConfig({ ...base, S3_ENDPOINT: 'not a url' })).toThrow(/S3_ENDPOINT/);
    expect(() => parseConfig({ ...base, WB_ANALYTICS_API_URL: 'analytics' })).toThrow(/WB_ANALYTICS_API_URL/);
  });

  it('Telegram: the Bot API URL defaults to Telegram’s; a bot name and a webhook secret of Telegram’s alphabet', () => {
    const c = parseConfig(base);
    expect(c.TELEGRAM_API_URL).toBe('https://api.telegram.org');
    expect(c.TELEGRAM_BOT_NAME).toBe('');
    expect(c.TELEGRAM_BOT_TOKEN).toBeUndefined();
    const local = parseConfig({
      ...base,
      TELEGRAM_API_URL: 'http://127.0.0.1:8081/',
      TELEGRAM_BOT_NAME: 'ShopReportsBot',
      TELEGRAM_WEBHOOK_SECRET: 'a'.repeat(16),
    });
    expect(local.TELEGRAM_API_URL).toBe('http://127.0.0.1:8081');
    expect(local.TELEGRAM_BOT_NAME).toBe('ShopReportsBot');
    expect(() => parseConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'short' })).toThrow(/TELEGRAM_WEBHOOK_SECRET/);
    expect(() => parseConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'with spaces and more' })).toThrow(
      /TELEGRAM_WEBHOOK_SECRET/,
    );
    expect(() => parseConfig({ ...base, TELEGRAM_BOT_NAME: '@bot' })).toThrow(/TELEGRAM_BOT_NAME/);
    expect(() => parseConfig({ ...base, TELEGRAM_BOT_TOKEN_PARAMETER: 'no-slash' })).toThrow(
      /TELEGRAM_BOT_TOKEN_PARAMETER/,
    );
  });
});

describe('getConfig', () => {
  it('is parsed once while the environment holds, and follows a change without a reset', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, base, { INITIAL_LIMITS: '500' });
      const first = getConfig();
      expect(first.INITIAL_LIMITS).toBe(500);
      expect(getConfig()).toBe(first);
      process.env.INITIAL_LIMITS = '700';
      expect(getConfig().INITIAL_LIMITS).toBe(700);
      delete process.env.INITIAL_LIMITS;
      expect(getConfig().INITIAL_LIMITS).toBe(10_000);
    } finally {
      process.env = saved;
    }
  });
});
