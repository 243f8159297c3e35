/**
 * The account routes in-process (their middy handlers with hand-built HTTP API events) against
 * DynamoDB Local and the SES emulator: the whole sign-up path a person takes, and what must not happen.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as changePasswordHandler } from '../../functions/auth/change-password.handler';
import { handler as confirmHandler } from '../../functions/auth/confirm.handler';
import { handler as forgotHandler } from '../../functions/auth/forgot-password.handler';
import { handler as historyHandler } from '../../functions/auth/limit-history.handler';
import { handler as loginHandler } from '../../functions/auth/login.handler';
import { handler as meHandler } from '../../functions/auth/me.handler';
import { handler as registerHandler } from '../../functions/auth/register.handler';
import { handler as topUpHandler } from '../../functions/auth/top-up.handler';
import { handler as updateMeHandler } from '../../functions/auth/update-me.handler';
import { grantAdmin } from '../../scripts/admin';
import { signToken } from '../../shared/auth/tokens';
import { getConfig } from '../../shared/config';
import { apiEvent, bodyOf } from '../support/test-event';
import { ddb, tableName } from '../../shared/store/client';
import { signInDeps } from '../../shared/auth/deps';
import { ensureDemoUser, ensureSeed } from '../../shared/store/seed';
import { getUserByEmail, resetPasswordOnce } from '../../shared/store/users.repo';
import { readMail, waitForMail, type SentMail } from '../support/emulators';
import { CONFIRM_SUBJECT, PASSWORD_SUBJECT, confirmLinkOf, passwordOf } from '../support/sign-up';

const NEW_PASSWORD_SUBJECT = 'Ваш новый пароль';
const RESET_SUBJECT = 'Сброс пароля';

interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}
interface UserBody {
  id: string;
  email: string;
  role: string;
  confirmed: boolean;
  limits: number;
  initial_limits: number;
  tax: { tax_system: string; usn_rate: number; vat_rate: number };
}

const ses = () => getConfig().SES_ENDPOINT as string;
const newEmail = () => `user-${randomUUID()}@example.com`;

async function mailTo(email: string, subject?: string): Promise<SentMail[]> {
  return (await readMail(ses())).filter(
    (m) => m.to.includes(email) && (subject === undefined || m.subject === subject),
  );
}

/** The token of the mail's link, which must lead to the web app. */
function tokenOf(mail: SentMail): string {
  const link = confirmLinkOf(mail);
  expect(link.startsWith(`${getConfig().APP_URL}/confirm?token=`)).toBe(true);
  return new URL(link).searchParams.get('token') as string;
}

const register = (email: string) =>
  registerHandler(apiEvent({ method: 'POST', path: '/api/auth/register', body: { email } }));
const confirm = (token: string) =>
  confirmHandler(apiEvent({ method: 'GET', path: '/api/auth/confirm', query: { token } }));
const login = (email: string, password: string) =>
  loginHandler(apiEvent({ method: 'POST', path: '/api/auth/login', body: { email, password } }));
const me = (token: string) => meHandler(apiEvent({ method: 'GET', path: '/api/auth/me', token }));
const forgot = (email: string) =>
  forgotHandler(apiEvent({ method: 'POST', path: '/api/auth/forgot-password', body: { email } }));
const topUp = (token: string, body: unknown) =>
  topUpHandler(apiEvent({ method: 'POST', path: '/api/auth/top-up', token, body }));
const history = (token: string, cursor?: string) =>
  historyHandler(
    apiEvent({ method: 'GET', path: '/api/auth/limit-history', token, query: cursor ? { cursor } : undefined }),
  );

/** Register, follow the confirm link, read the password, sign in. */
async function signUp(email = newEmail()): Promise<{ email: string; password: string; token: string; user: UserBody }> {
  expect((await register(email)).statusCode).toBe(202);
  const confirmMail = await waitForMail(ses(), email, (m) => m.subject === CONFIRM_SUBJECT);
  expect((await confirm(tokenOf(confirmMail))).statusCode).toBe(200);
  const password = passwordOf(await waitForMail(ses(), email, (m) => m.subject === PASSWORD_SUBJECT));
  const r = await login(email, password);
  expect(r.statusCode).toBe(200);
  const body = bodyOf<{ token: string; user: UserBody }>(r);
  return { email, password, token: body.token, user: body.user };
}

async function adminToken(): Promise<string> {
  const email = `admin-${randomUUID()}@example.com`;
  const password = 'AdminPassw0rdForTests';
  await ensureDemoUser({ email, passwordHash: await signInDeps.passwords.hash(password) });
  await grantAdmin(email);
  const r = await login(email, password);
  expect(r.statusCode).toBe(200);
  return bodyOf<{ token: string }>(r).token;
}

beforeAll(async () => {
  await ensureSeed();
});

describe('sign-up path', () => {
  it('register → confirm mail → password mail → login → me → admin top-up → limit history', async () => {
    const email = newEmail();
    const reg = await register(email);
    expect(reg.statusCode).toBe(202);
    expect(bodyOf(reg)).toEqual({ status: 'confirmation_sent' });

    const confirmMail = await waitForMail(ses(), email, (m) => m.subject === CONFIRM_SUBJECT);
    expect(confirmMail.from).toContain(getConfig().MAIL_FROM);
    expect(confirmMail.html).toContain('/confirm?token=');
    const c = await confirm(tokenOf(confirmMail));
    expect(c.statusCode).toBe(200);
    expect(bodyOf(c)).toEqual({ status: 'confirmed', email });

    const password = passwordOf(await waitForMail(ses(), email, (m) => m.subject === PASSWORD_SUBJECT));
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(password).not.toMatch(/[0O1lI]/);

    const l = await login(email.toUpperCase(), password);
    expect(l.statusCode).toBe(200);
    const { token, user } = bodyOf<{ token: string; user: UserBody }>(l);
    expect(jwt.decode(token)).toMatchObject({ user_id: user.id, scenario: 'access' });
    expect(user).toEqual({
      id: expect.any(String),
      email,
      role: 'seller',
      confirmed: true,
      limits: getConfig().INITIAL_LIMITS,
      initial_limits: getConfig().INITIAL_LIMITS,
      tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
      tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
      allocation: 'realization',
    });

    const m = await me(token);
    expect(m.statusCode).toBe(200);
    expect(bodyOf<{ user: UserBody }>(m).user).toEqual(user);

    const admin = await adminToken();
    const t = await topUp(admin, { email, rows: 5000 });
    expect(t.statusCode).toBe(200);
    expect(bodyOf(t)).toEqual({ user_id: user.id, limits: 15000, initial_limits: 15000 });
    expect(bodyOf<{ user: UserBody }>(await me(token)).user).toMatchObject({ limits: 15000, initial_limits: 15000 });

    const h = await history(token);
    expect(h.statusCode).toBe(200);
    expect(bodyOf(h)).toEqual({
      items: [
        {
          id: expect.any(String),
          operation: 'topup',
          rows: 5000,
          limits_after: 15000,
          report_id: null,
          report_title: null,
          report_deleted: false,
          created_at: expect.any(String),
        },
      ],
      next_cursor: null,
      totals: { charged: 0, refunded: 0, topped_up: 5000 },
    });
  });

  it('PATCH /me updates the default tax profile, merging fields and validating the rates', async () => {
    const { token } = await signUp();
    const patch = (tax: unknown) =>
      updateMeHandler(apiEvent({ method: 'PATCH', path: '/api/auth/me', token, body: { tax } }));
    const ok = await patch({ usn_rate: 7, vat_rate: 5 });
    expect(ok.statusCode).toBe(200);
    expect(bodyOf<{ user: UserBody }>(ok).user.tax).toEqual({ tax_system: 'usn_income', usn_rate: 7, vat_rate: 5 });
    expect((await patch({ tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 22 })).statusCode).toBe(200);
    expect(bodyOf<{ user: UserBody }>(await me(token)).user.tax).toEqual({
      tax_system: 'usn_income_expenses',
      usn_rate: 15,
      vat_rate: 22,
    });

    for (const bad of [{ vat_rate: 18 }, { usn_rate: 16 }, { usn_rate: -1 }, { tax_system: 'osno' }, { extra: 1 }]) {
      const r = await patch(bad);
      expect(r.statusCode).toBe(400);
      expect(bodyOf<ErrorBody>(r).error.code).toBe('validation_error');
    }
    expect(bodyOf<{ user: UserBody }>(await me(token)).user.tax).toEqual({
      tax_system: 'usn_income_expenses',
      usn_rate: 15,
      vat_rate: 22,
    });
  });
});

describe('what must not happen', () => {
  it('one answer (401 invalid_credentials) for a wrong password, an unknown address and an unconfirmed account', async () => {
    const { email } = await signUp();
    const unconfirmed = newEmail();
    await register(unconfirmed);
    const answers = [
      await login(email, 'WrongPassword123'),
      await login(newEmail(), 'WhateverPass123'),
      await login(unconfirmed, 'WhateverPass123'),
    ];
    for (const r of answers) {
      expect(r.statusCode).toBe(401);
      expect(bodyOf(r)).toEqual({
        error: { code: 'invalid_credentials', message: 'Wrong email or password', details: {} },
      });
    }
  });

  it('rejects an invalid email with 400', async () => {
    const r = await register('not-an-email');
    expect(r.statusCode).toBe(400);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('validation_error');
  });

  it('rejects expired, forged and wrong-scenario links with 400 invalid_token', async () => {
    const email = newEmail();
    await register(email);
    const user = await getUserByEmail(email);
    const expired = jwt.sign(
      { user_id: user!.id, scenario: 'confirm', exp: Math.floor(Date.now() / 1000) - 5 },
      getConfig().JWT_SECRET!,
      { algorithm: 'HS256', jwtid: randomUUID() },
    );
    const forged = jwt.sign({ user_id: user!.id, scenario: 'confirm' }, 'some-other-secret-of-32-characters', {
      algorithm: 'HS256',
      jwtid: randomUUID(),
      expiresIn: 600,
    });
    const access = signToken({ user_id: user!.id }, 'access');
    for (const token of [expired, forged, access, 'garbage']) {
      const r = await confirm(token);
      expect(r.statusCode).toBe(400);
      expect(bodyOf<ErrorBody>(r).error.code).toBe('invalid_token');
    }
    expect((await confirmHandler(apiEvent({ method: 'GET', path: '/api/auth/confirm' }))).statusCode).toBe(400);
    expect((await getUserByEmail(email))?.confirmed).toBe(false);
    expect(await mailTo(email, PASSWORD_SUBJECT)).toHaveLength(0);
  });

  it('never accepts a confirm link token as a session', async () => {
    const email = newEmail();
    await register(email);
    const confirmToken = tokenOf(await waitForMail(ses(), email, (m) => m.subject === CONFIRM_SUBJECT));
    const r = await me(confirmToken);
    expect(r.statusCode).toBe(401);
    await confirm(confirmToken);
    expect((await me(confirmToken)).statusCode).toBe(401);
  });

  it('forbids top-up to a seller (403) and changes nothing', async () => {
    const { token, email, user } = await signUp();
    const r = await topUp(token, { email, rows: 1000 });
    expect(r.statusCode).toBe(403);
    expect(bodyOf<ErrorBody>(r).error.code).toBe('forbidden');
    expect(bodyOf<{ user: UserBody }>(await me(token)).user.limits).toBe(user.limits);
    expect((await topUp('', { email, rows: 1000 })).statusCode).toBe(401);
  });

  it('duplicate registration: still 202, one account; once confirmed, a note that the account exists (no link, no password)', async () => {
    const { email, user } = await signUp();
    const before = await mailTo(email);
    const again = await register(email);
    expect(again.statusCode).toBe(202);
    expect(bodyOf(again)).toEqual({ status: 'confirmation_sent' });
    const after = await mailTo(email);
    expect(after.length).toBe(before.length + 1);
    const note = after.find((m) => !before.some((b) => b.subject === m.subject && b.text === m.text));
    expect(note?.subject).toBe('Вы уже зарегистрированы');
    expect(note?.links.some((l) => l.includes('token='))).toBe(false);
    expect((await getUserByEmail(email))?.id).toBe(user.id);
  });

  it('concurrent registrations of one new address create exactly one account', async () => {
    const email = newEmail();
    const answers = await Promise.all(Array.from({ length: 5 }, () => register(email)));
    expect(answers.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202]);
    // Every page of the scan: a filter applies within each page of 1 MB, and the table holds the whole suite's data.
    const users: unknown[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await ddb().send(
        new ScanCommand({
          TableName: tableName(),
          FilterExpression: '#t = :user AND email = :e',
          ExpressionAttributeNames: { '#t': 'type' },
          ExpressionAttributeValues: { ':user': 'user', ':e': email },
          ExclusiveStartKey: start,
        }),
      );
      users.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    expect(users).toHaveLength(1);
    // Five requests, but the hourly budget lets only three mails out.
    expect(await mailTo(email, CONFIRM_SUBJECT)).toHaveLength(3);
  });

  it('resend throttle: the 4th confirmation mail within an hour is not sent (the answer is still 202)', async () => {
    const email = newEmail();
    for (let i = 0; i < 4; i++) expect((await register(email)).statusCode).toBe(202);
    expect(await mailTo(email, CONFIRM_SUBJECT)).toHaveLength(3);
  });

  it('double confirm (mail scanner, second click, an older resent link): one password mail only', async () => {
    const email = newEmail();
    await register(email);
    await register(email);
    const links = (await mailTo(email, CONFIRM_SUBJECT)).map(tokenOf);
    expect(links).toHaveLength(2);
    const first = await confirm(links[1]!);
    expect(bodyOf(first)).toEqual({ status: 'confirmed', email });
    const second = await confirm(links[1]!);
    expect(second.statusCode).toBe(200);
    expect(bodyOf(second)).toEqual({ status: 'already_confirmed' });
    expect(bodyOf(await confirm(links[0]!))).toEqual({ status: 'already_confirmed' });
    expect(await mailTo(email, PASSWORD_SUBJECT)).toHaveLength(1);
  });

  it('simultaneous opens of one confirm link mail exactly one password', async () => {
    const email = newEmail();
    await register(email);
    const token = tokenOf(await waitForMail(ses(), email, (m) => m.subject === CONFIRM_SUBJECT));
    const answers = await Promise.all([confirm(token), confirm(token), confirm(token)]);
    expect(answers.map((r) => bodyOf<{ status: string }>(r).status).sort()).toEqual([
      'already_confirmed',
      'already_confirmed',
      'confirmed',
    ]);
    const passwordMails = await mailTo(email, PASSWORD_SUBJECT);
    expect(passwordMails).toHaveLength(1);
    expect((await login(email, passwordOf(passwordMails[0]!))).statusCode).toBe(200);
  });
});

describe('forgot password', () => {
  it('mails a one-time reset link that sets a new password; the old one stops working', async () => {
    const { email, password, token: oldSession } = await signUp();
    expect((await me(oldSession)).statusCode).toBe(200);
    const f = await forgot(email);
    expect(f.statusCode).toBe(202);
    const resetToken = tokenOf(await waitForMail(ses(), email, (m) => m.subject === RESET_SUBJECT));
    expect(jwt.decode(resetToken)).toMatchObject({ scenario: 'reset' });
    expect((await me(resetToken)).statusCode).toBe(401);

    const c = await confirm(resetToken);
    expect(c.statusCode).toBe(200);
    expect(bodyOf(c)).toEqual({ status: 'confirmed', email });
    const newPassword = passwordOf(await waitForMail(ses(), email, (m) => m.subject === NEW_PASSWORD_SUBJECT));
    expect(newPassword).not.toBe(password);
    expect((await login(email, password)).statusCode).toBe(401);
    const fresh = await login(email, newPassword);
    expect(fresh.statusCode).toBe(200);
    // A reset ends the sessions signed in with the old password; the new one works at once.
    expect((await me(oldSession)).statusCode).toBe(401);
    expect((await me(bodyOf<{ token: string }>(fresh).token)).statusCode).toBe(200);

    // The same link again: no new password.
    expect(bodyOf(await confirm(resetToken))).toEqual({ status: 'already_confirmed' });
    expect(await mailTo(email, NEW_PASSWORD_SUBJECT)).toHaveLength(1);
    expect((await login(email, newPassword)).statusCode).toBe(200);
  });

  it('a password change voids the reset links issued before it (400 invalid_token, no new password)', async () => {
    const { email, password, token: session } = await signUp();
    expect((await forgot(email)).statusCode).toBe(202);
    const earlier = tokenOf(await waitForMail(ses(), email, (m) => m.subject === RESET_SUBJECT));
    // The seller changes the password while the link waits in the mailbox.
    const changed = await changePasswordHandler(
      apiEvent({
        method: 'POST',
        path: '/api/auth/change-password',
        token: session,
        body: { current_password: password, new_password: 'Brand-New-Password-1' },
      }),
    );
    expect(changed.statusCode).toBe(200);
    const r = await confirm(earlier);
    expect(r.statusCode).toBe(400);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('invalid_token');
    expect(await mailTo(email, NEW_PASSWORD_SUBJECT)).toHaveLength(0);
    expect((await login(email, 'Brand-New-Password-1')).statusCode).toBe(200);
  });

  it('the store refuses a reset issued before the last change even when the read raced it', async () => {
    const { email } = await signUp();
    const user = (await getUserByEmail(email))!;
    const issuedBefore = new Date(Date.parse(user.password_changed_at!) - 1).toISOString();
    const attempt = (jti: string, issuedAt: string) =>
      resetPasswordOnce({
        userId: user.id,
        jti,
        tokenExp: Math.floor(Date.now() / 1000) + 3600,
        issuedAt,
        passwordHash: 'x',
      });
    expect(await attempt(randomUUID(), issuedBefore)).toBe(false);
    expect((await getUserByEmail(email))!.password_hash).toBe(user.password_hash);
    expect(await attempt(randomUUID(), new Date().toISOString())).toBe(true);
  });

  it('answers 202 but sends nothing for unknown and unconfirmed addresses', async () => {
    const unknown = newEmail();
    const unconfirmed = newEmail();
    await register(unconfirmed);
    expect((await forgot(unknown)).statusCode).toBe(202);
    expect((await forgot(unconfirmed)).statusCode).toBe(202);
    expect(await mailTo(unknown)).toHaveLength(0);
    expect(await mailTo(unconfirmed, RESET_SUBJECT)).toHaveLength(0);
  });

  it('sends at most 3 reset mails per hour', async () => {
    const { email } = await signUp();
    for (let i = 0; i < 4; i++) expect((await forgot(email)).statusCode).toBe(202);
    expect(await mailTo(email, RESET_SUBJECT)).toHaveLength(3);
  });
});

describe('top-up', () => {
  it('by user_id, idempotent with a key: a repeat returns the first result and changes nothing', async () => {
    const { token, user } = await signUp();
    const admin = await adminToken();
    const key = randomUUID();
    const first = await topUp(admin, { user_id: user.id, rows: 2500, idempotency_key: key });
    expect(first.statusCode).toBe(200);
    expect(bodyOf(first)).toEqual({ user_id: user.id, limits: 12500, initial_limits: 12500 });
    const repeat = await topUp(admin, { user_id: user.id, rows: 2500, idempotency_key: key });
    expect(bodyOf(repeat)).toEqual(bodyOf(first));
    expect(bodyOf<{ user: UserBody }>(await me(token)).user.limits).toBe(12500);
    expect(bodyOf<{ items: unknown[] }>(await history(token)).items).toHaveLength(1);
  });

  it('validates its input and answers 404 for an unknown user', async () => {
    const admin = await adminToken();
    for (const body of [
      { email: newEmail(), rows: 0 },
      { email: newEmail(), rows: 1.5 },
      { rows: 10 },
      { email: newEmail(), user_id: 'x', rows: 10 },
    ]) {
      expect((await topUp(admin, body)).statusCode).toBe(400);
    }
    const r = await topUp(admin, { email: newEmail(), rows: 10 });
    expect(r.statusCode).toBe(404);
  });
});
