/**
 * The account pieces of issue 13 against DynamoDB Local, in-process: changing the password (every
 * earlier session ends, the caller's too, the answer's token works), the public configuration the
 * page reads (support contact, demo account), and the limit history naming its reports (and telling
 * a deleted one).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as changePasswordHandler } from '../../functions/auth/change-password.handler';
import { handler as historyHandler } from '../../functions/auth/limit-history.handler';
import { handler as loginHandler } from '../../functions/auth/login.handler';
import { handler as meHandler } from '../../functions/auth/me.handler';
import { handler as configHandler } from '../../functions/config/get.handler';
import { handler as deleteHandler } from '../../functions/reports/delete.handler';
import { signInDeps } from '../../shared/auth/deps';
import { signToken } from '../../shared/auth/tokens';
import { apiEvent, bodyOf } from '../support/test-event';
import { createUser, getUserById } from '../../shared/store/users.repo';
import { makeReport, newUser, uploadOk } from '../support/reports';

interface ErrorBody {
  error: { code: string; details: Record<string, unknown> };
}

async function userWithPassword(password: string) {
  const email = `account-${randomUUID()}@example.com`;
  const u = await createUser({
    email,
    confirmed: true,
    passwordHash: await signInDeps.passwords.hash(password),
    limits: 0,
  });
  return { id: u.id, email };
}

const login = (email: string, password: string) =>
  loginHandler(apiEvent({ method: 'POST', path: '/api/auth/login', body: { email, password } }));
const me = (token: string) => meHandler(apiEvent({ method: 'GET', path: '/api/auth/me', token }));
const change = (token: string, body: Record<string, unknown>) =>
  changePasswordHandler(apiEvent({ method: 'POST', path: '/api/auth/change-password', token, body }));

describe('POST /api/auth/change-password', () => {
  it('sets the new password, ends every earlier session including the caller, and answers a working token', async () => {
    const u = await userWithPassword('old-password-1');
    const first = bodyOf<{ token: string }>(await login(u.email, 'old-password-1')).token;
    const second = bodyOf<{ token: string }>(await login(u.email, 'old-password-1')).token;
    expect((await me(first)).statusCode).toBe(200);

    const r = await change(first, { current_password: 'old-password-1', new_password: 'new-password-2' });
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{ token: string; user: { id: string; email: string } }>(r);
    expect(body.user).toMatchObject({ id: u.id, email: u.email });

    // The caller's own session and the other one are over; the answer's token is a session.
    expect((await me(first)).statusCode).toBe(401);
    expect((await me(second)).statusCode).toBe(401);
    expect((await me(body.token)).statusCode).toBe(200);
    // Only the new password signs in.
    expect((await login(u.email, 'old-password-1')).statusCode).toBe(401);
    expect((await login(u.email, 'new-password-2')).statusCode).toBe(200);
    expect((await getUserById(u.id))?.password_changed_at).toBeTruthy();
  });

  it('refuses a wrong current password (400, not 401) and changes nothing', async () => {
    const u = await userWithPassword('right-password');
    const token = bodyOf<{ token: string }>(await login(u.email, 'right-password')).token;
    const before = (await getUserById(u.id))?.password_hash;
    const r = await change(token, { current_password: 'wrong-password', new_password: 'whatever-long' });
    expect(r.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('invalid_current_password');
    expect((await getUserById(u.id))?.password_hash).toBe(before);
    expect((await me(token)).statusCode).toBe(200);
  });

  it('refuses a new password shorter than 8 characters with weak_password', async () => {
    const u = await userWithPassword('right-password');
    const token = bodyOf<{ token: string }>(await login(u.email, 'right-password')).token;
    const r = await change(token, { current_password: 'right-password', new_password: 'short7!' });
    expect(r.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(r).error).toMatchObject({ code: 'weak_password', details: { min_length: 8 } });
    expect((await login(u.email, 'right-password')).statusCode).toBe(200);
  });

  it('needs a session: 401 without a token', async () => {
    const r = await changePasswordHandler(
      apiEvent({
        method: 'POST',
        path: '/api/auth/change-password',
        body: { current_password: 'x', new_password: 'yyyyyyyy' },
      }),
    );
    expect(r.statusCode).toBe(401);
  });
});

describe('GET /api/config', () => {
  const saved = { SUPPORT_CONTACT: process.env.SUPPORT_CONTACT, DEMO_EMAIL: process.env.DEMO_EMAIL };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('answers the product name, SUPPORT_CONTACT and the demo email without a session', async () => {
    process.env.SUPPORT_CONTACT = 'support@example.org, +7 900 000-00-00';
    process.env.DEMO_EMAIL = 'demo@example.com';
    const r = await configHandler(apiEvent({ method: 'GET', path: '/api/config' }));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toEqual({
      product_name: 'Прибыльность WB',
      support_contact: 'support@example.org, +7 900 000-00-00',
      demo_email: 'demo@example.com',
    });
  });

  it('answers null for settings that are not set', async () => {
    delete process.env.SUPPORT_CONTACT;
    delete process.env.DEMO_EMAIL;
    const r = await configHandler(apiEvent({ method: 'GET', path: '/api/config' }));
    expect(bodyOf(r)).toMatchObject({ support_contact: null, demo_email: null });
  });
});

describe('GET /api/auth/limit-history names the reports', () => {
  it('carries each report title, and report_deleted once the report is gone', async () => {
    const user = await newUser(100_000, 'history');
    const kept = await uploadOk(user.token, makeReport({ seed: 31, rows: 30 }));
    const gone = await uploadOk(user.token, makeReport({ seed: 32, rows: 40 }));
    const del = await deleteHandler(
      apiEvent({
        method: 'DELETE',
        path: `/api/reports/${gone.id}`,
        token: user.token,
        pathParameters: { id: gone.id },
      }),
    );
    expect(del.statusCode).toBe(204);
    const r = await historyHandler(apiEvent({ method: 'GET', path: '/api/auth/limit-history', token: user.token }));
    expect(r.statusCode).toBe(200);
    const items = bodyOf<{
      items: Array<{
        operation: string;
        rows: number;
        report_id: string | null;
        report_title: string | null;
        report_deleted: boolean;
      }>;
    }>(r).items;
    const keptEntry = items.find((e) => e.report_id === kept.id);
    const goneEntry = items.find((e) => e.report_id === gone.id);
    expect(keptEntry).toMatchObject({ operation: 'expense', report_title: kept.title, report_deleted: false });
    expect(kept.title.length).toBeGreaterThan(0);
    expect(goneEntry).toMatchObject({ operation: 'expense', report_title: null, report_deleted: true });
    // The first page sums the whole history: both charges, nothing topped up or refunded.
    expect(bodyOf<{ totals: unknown }>(r).totals).toEqual({
      charged: (keptEntry?.rows ?? 0) + (goneEntry?.rows ?? 0),
      refunded: 0,
      topped_up: 0,
    });
  });

  it('an entry without a report (a top-up) has no title and is not deleted', async () => {
    const u = await createUser({ email: `history-${randomUUID()}@example.com`, confirmed: true, limits: 0 });
    const { topUp } = await import('../../shared/store/limits.repo');
    await topUp({ userId: u.id, rows: 10 });
    const token = signToken({ user_id: u.id }, 'access');
    const r = await historyHandler(apiEvent({ method: 'GET', path: '/api/auth/limit-history', token }));
    expect(bodyOf<{ totals: unknown }>(r).totals).toEqual({ charged: 0, refunded: 0, topped_up: 10 });
    expect(bodyOf<{ items: unknown[] }>(r).items).toEqual([
      expect.objectContaining({ operation: 'topup', report_id: null, report_title: null, report_deleted: false }),
    ]);
  });
});
