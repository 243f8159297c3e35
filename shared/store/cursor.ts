/**
 * The one pagination cursor of the API: base64url of the last key of a page (a sort key, or a report
 * id). Only that key travels; the partition is always the caller's, so a forged cursor cannot reach
 * another user's records. Every list decodes with a check of what a key of its own looks like.
 */
import { badRequest } from '../errors';

/** Longest cursor accepted (the routes' query schemas cap it too). */
const MAX_CURSOR = 1500;

export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** The key in `cursor` when it is base64url and `accept` recognises the key; else 400 `invalid_cursor`. */
export function decodeCursor(cursor: string, accept: (key: string) => boolean): string {
  const key = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_CURSOR}}$`).test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : '';
  if (key === '' || !accept(key)) throw badRequest('invalid_cursor', 'Malformed cursor');
  return key;
}
