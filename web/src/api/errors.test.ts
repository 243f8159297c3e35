import { describe, expect, it } from 'vitest';
import { ERRORS, type ErrorCode } from './contract';
import { apiErrorFrom, CLIENT_MESSAGES, messageFor } from './errors';

const codes = Object.keys(ERRORS) as ErrorCode[];
const statusOf = (code: ErrorCode): number => {
  const s: number | readonly number[] = ERRORS[code].status;
  return typeof s === 'number' ? s : s[0]!;
};

describe('error messages', () => {
  it('has a Russian message of its own for every code the API answers with', () => {
    expect(codes.length).toBeGreaterThanOrEqual(40);
    for (const code of codes) {
      const text = messageFor(statusOf(code), code);
      expect(text, code).toBe(ERRORS[code].message);
      expect(text, code).toMatch(/[а-яё]/i);
      expect(text, code).not.toContain(code);
    }
  });

  it('never shows a code or the server’s English text: an unknown code falls back by status', () => {
    const e = apiErrorFrom(409, { code: 'something_new', message: 'English text', details: {} });
    expect(e.message).toBe('Действие невозможно в текущем состоянии.');
    expect(apiErrorFrom(500, undefined).message).toBe(ERRORS.internal_error.message);
  });

  it('keeps the page’s own codes apart from the API’s', () => {
    for (const code of Object.keys(CLIENT_MESSAGES)) expect(codes, code).not.toContain(code);
  });
});
