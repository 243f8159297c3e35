/**
 * The digest's unsubscribe link (RFC 8058 one-click): a token that names the user and the event kind,
 * signed with HMAC-SHA256 under a key derived from the service's signing secret (so it needs no sign-in
 * and cannot be made for another user). It does not expire: an old digest's link still works.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { EVENT_KINDS, type EventKind } from './channel';

const sig = (key: string, payload: string) =>
  createHmac('sha256', key).update(`unsubscribe:${payload}`).digest().subarray(0, 20).toString('base64url');

export function signUnsubscribe(key: string, userId: string, kind: EventKind): string {
  const payload = Buffer.from(`${userId}:${kind}`, 'utf8').toString('base64url');
  return `${payload}.${sig(key, payload)}`;
}

/** The user and kind of a token signed with `key`; null when it is malformed or its signature wrong. */
export function verifyUnsubscribe(key: string, token: string): { userId: string; kind: EventKind } | null {
  const m = /^([A-Za-z0-9_-]{4,200})\.([A-Za-z0-9_-]{27})$/.exec(token);
  if (!m) return null;
  const expected = Buffer.from(sig(key, m[1]!));
  const given = Buffer.from(m[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const [userId, kind] = Buffer.from(m[1]!, 'base64url').toString('utf8').split(':');
  if (!userId || !(EVENT_KINDS as readonly string[]).includes(kind ?? '')) return null;
  return { userId, kind: kind as EventKind };
}
