/**
 * Idempotency (attack run, issue 12): the `Idempotency-Key` header, which CORS allows, was ignored (two
 * identical top-ups applied twice), and a reused key with a different payload silently returned the
 * first result. Now the header is honoured like the body's `idempotency_key`, and a key reused for a
 * different payload is 422 `idempotency_key_reused` with nothing applied.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as topUpHandler } from '../../functions/auth/top-up.handler';
import { grantAdmin } from '../../scripts/admin';
import { signToken } from '../../shared/auth/tokens';
import { apiEvent, bodyOf } from '../support/test-event';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { createUser, getUserById } from '../../shared/store/users.repo';

type ErrorBody = { error: { code: string; message: string } };

async function admin(): Promise<string> {
  const email = `admin-${randomUUID()}@example.com`;
  const u = await createUser({ email, confirmed: true, limits: 0 });
  await grantAdmin(email);
  return signToken({ user_id: u.id }, 'access');
}

async function seller(limits = 1000) {
  return createUser({ email: `seller-${randomUUID()}@example.com`, confirmed: true, limits });
}

const topUp = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  topUpHandler(apiEvent({ method: 'POST', path: '/api/auth/top-up', token, body, headers }));

const topUps = async (userId: string) =>
  (await listLimitHistory(userId)).items.filter((e) => e.operation === 'topup').length;

describe('Idempotency-Key header', () => {
  it('two identical top-ups with one header key apply once and answer the same', async () => {
    const token = await admin();
    const u = await seller(1000);
    const key = randomUUID();
    const a = await topUp(token, { user_id: u.id, rows: 500 }, { 'Idempotency-Key': key });
    const b = await topUp(token, { user_id: u.id, rows: 500 }, { 'idempotency-key': key });
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(bodyOf(b)).toEqual(bodyOf(a));
    expect((await getUserById(u.id))!.limits).toBe(1500);
    expect(await topUps(u.id)).toBe(1);
  });

  it('concurrent repeats of one key apply once', async () => {
    const token = await admin();
    const u = await seller(0);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => topUp(token, { user_id: u.id, rows: 100 }, { 'Idempotency-Key': key })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect((await getUserById(u.id))!.limits).toBe(100);
  });

  it('the header and the body key are one key: either repeats the other', async () => {
    const token = await admin();
    const u = await seller(0);
    const key = randomUUID();
    expect((await topUp(token, { user_id: u.id, rows: 7, idempotency_key: key })).statusCode).toBe(200);
    expect((await topUp(token, { user_id: u.id, rows: 7 }, { 'Idempotency-Key': key })).statusCode).toBe(200);
    expect((await getUserById(u.id))!.limits).toBe(7);
  });

  it('a key reused with other rows, or for another user, is 422 idempotency_key_reused and applies nothing', async () => {
    const token = await admin();
    const u = await seller(0);
    const other = await seller(0);
    const key = randomUUID();
    expect((await topUp(token, { user_id: u.id, rows: 10 }, { 'Idempotency-Key': key })).statusCode).toBe(200);
    for (const body of [
      { user_id: u.id, rows: 11 },
      { user_id: other.id, rows: 10 },
    ]) {
      const r = await topUp(token, body, { 'Idempotency-Key': key });
      expect(r.statusCode).toBe(422);
      expect(bodyOf<ErrorBody>(r).error.code).toBe('idempotency_key_reused');
    }
    // The body's key obeys the same rule.
    const viaBody = await topUp(token, { user_id: u.id, rows: 12, idempotency_key: key });
    expect(viaBody.statusCode).toBe(422);
    expect((await getUserById(u.id))!.limits).toBe(10);
    expect((await getUserById(other.id))!.limits).toBe(0);
  });

  it('a header and a body key that differ are a 400; an over-long header a 400; nothing applied', async () => {
    const token = await admin();
    const u = await seller(0);
    const differ = await topUp(token, { user_id: u.id, rows: 5, idempotency_key: 'a' }, { 'Idempotency-Key': 'b' });
    expect(differ.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(differ).error.code).toBe('idempotency_key_mismatch');
    const long = await topUp(token, { user_id: u.id, rows: 5 }, { 'Idempotency-Key': 'k'.repeat(201) });
    expect(long.statusCode).toBe(400);
    expect((await getUserById(u.id))!.limits).toBe(0);
  });
});
