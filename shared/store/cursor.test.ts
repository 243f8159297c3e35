import { describe, expect, it } from 'vitest';
import { AppError } from '../errors';
import { decodeCursor, encodeCursor } from './cursor';

describe('the pagination cursor', () => {
  it('round-trips a key, Cyrillic and separators included', () => {
    const key = 'PRODUCT#Артикул/1#x';
    const c = encodeCursor(key);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, (k) => k.startsWith('PRODUCT#'))).toBe(key);
  });

  it('refuses with 400 invalid_cursor what is not base64url, too long, or not a key of this list', () => {
    const refused = (cursor: string, accept = (k: string) => k.startsWith('LIMIT#')) => {
      try {
        decodeCursor(cursor, accept);
        return null;
      } catch (e) {
        return e instanceof AppError ? `${e.status} ${e.code}` : String(e);
      }
    };
    expect(refused('not base64!')).toBe('400 invalid_cursor');
    expect(refused('')).toBe('400 invalid_cursor');
    expect(refused('A'.repeat(1501))).toBe('400 invalid_cursor');
    expect(refused(encodeCursor('PRODUCT#a'))).toBe('400 invalid_cursor');
    expect(refused(encodeCursor('LIMIT#2026'))).toBeNull();
  });
});
