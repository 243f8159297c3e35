import { beforeAll, describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, PASSWORD_ALPHABET, verifyPassword } from './passwords';

beforeAll(() => {
  Object.assign(process.env, {
    JWT_SECRET: 'unit-test-secret-unit-test-secret',
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
    BCRYPT_COST: '10',
  });
});

describe('generatePassword', () => {
  it('is at least 12 characters with no ambiguous characters', () => {
    for (let i = 0; i < 200; i++) {
      const p = generatePassword();
      expect(p.length).toBeGreaterThanOrEqual(12);
      expect(p).not.toMatch(/[0O1lI]/);
      for (const c of p) expect(PASSWORD_ALPHABET).toContain(c);
    }
  });

  it('differs between calls', () => {
    const set = new Set(Array.from({ length: 100 }, () => generatePassword()));
    expect(set.size).toBe(100);
  });

  it('refuses lengths under 12', () => {
    expect(() => generatePassword(11)).toThrow();
  });
});

describe('hashPassword', () => {
  it('stores a bcrypt hash of the given cost that verifies only the right password', async () => {
    const hash = await hashPassword('CorrectHorse42', 10);
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(await verifyPassword('CorrectHorse42', hash)).toBe(true);
    expect(await verifyPassword('CorrectHorse43', hash)).toBe(false);
  });
});
