/**
 * Unit tier (fast, no emulators): the account use cases are real, and so are the tokens (jsonwebtoken)
 * and the mail texts; the user and throttle stores, the mail sender and the password hashing are
 * fakes passed as the use cases' dependencies (AccountDeps), so each rule of
 * register/confirm/forgot/login/change is checked in milliseconds. test/integration/auth.test.ts and
 * account.test.ts run them with the real ones (DynamoDB Local, the SES emulator, bcrypt).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../deps';
import { AppError } from '../errors';
import type { MailMessage } from '../mail/send';
import type { UserRecord } from '../store/users.repo';
import { refusal, setUnitEnv, unitUser } from '../../test/support/unit-fixtures';
import {
  ACCOUNT_FAILURES,
  ACCOUNT_PACE,
  IP_LOCKOUT,
  MAILS_PER_HOUR,
  PAIR_LOCKOUT,
  changePassword as changePasswordOf,
  confirm as confirmOf,
  forgotPassword as forgotPasswordOf,
  login as loginOf,
  register as registerOf,
  type AccountDeps,
} from './accounts';
import { generatePassword } from './passwords';
import { memoryThrottle } from '../../test/support/throttle-fake';
import { signToken, verifyToken } from './tokens';

/** Fakes of every dependency; each test sets the answers it needs. */
function fakeDeps() {
  return {
    users: {
      createUser: vi.fn<AccountDeps['users']['createUser']>(),
      getUserByEmail: vi.fn<AccountDeps['users']['getUserByEmail']>(),
      getUserById: vi.fn<AccountDeps['users']['getUserById']>(),
      confirmUser: vi.fn<AccountDeps['users']['confirmUser']>(),
      resetPasswordOnce: vi.fn<AccountDeps['users']['resetPasswordOnce']>(),
      changePasswordHash: vi.fn<AccountDeps['users']['changePasswordHash']>(),
    },
    throttle: {
      tryConsume: vi.fn<AccountDeps['throttle']['tryConsume']>(async () => true),
      consumeSlot: vi.fn<AccountDeps['throttle']['consumeSlot']>(async () => ({ ok: true })),
      lockedFor: vi.fn<AccountDeps['throttle']['lockedFor']>(async () => 0),
      failureCount: vi.fn<AccountDeps['throttle']['failureCount']>(async () => 0),
      recordFailure: vi.fn<AccountDeps['throttle']['recordFailure']>(async () => 0),
      clearFailures: vi.fn<AccountDeps['throttle']['clearFailures']>(async () => undefined),
      markKnown: vi.fn<AccountDeps['throttle']['markKnown']>(async () => undefined),
      isKnown: vi.fn<AccountDeps['throttle']['isKnown']>(async () => false),
    },
    mail: { send: vi.fn<(m: MailMessage) => Promise<void>>(async () => undefined) },
    passwords: {
      hash: vi.fn(async (p: string) => `hash(${p})`),
      verify: vi.fn(async (p: string, h: string) => h === `hash(${p})`),
      burn: vi.fn(async () => undefined),
      generate: () => generatePassword(),
    },
    clock: manualClock('2024-03-01T10:00:00Z'),
    appUrl: () => 'http://localhost:5173',
    initialLimits: () => 1_000,
  } satisfies AccountDeps;
}

let deps: ReturnType<typeof fakeDeps>;
const register = (email: string, ip?: string) => registerOf(deps, email, ip);
const confirm = (token: string) => confirmOf(deps, token);
const forgotPassword = (email: string, ip?: string) => forgotPasswordOf(deps, email, ip);
const login = (email: string, password: string, ip?: string) => loginOf(deps, email, password, ip);
const changePassword = (user: UserRecord, current: string, next: string) => changePasswordOf(deps, user, current, next);

setUnitEnv();

const EMAIL = 'seller@example.com';
const confirmed = unitUser({ email: EMAIL, confirmed: true, password_hash: 'hash(right-password)' });
const unconfirmed = unitUser({ email: EMAIL, confirmed: false, password_hash: undefined });

/** The token inside the one mail sent (a confirmation or reset link). */
function mailedToken(): string {
  const m = deps.mail.send.mock.calls[0]![0];
  const token = /token=([\w.-]+)/.exec(m.text)?.[1];
  expect(token).toBeDefined();
  return token!;
}

beforeEach(() => {
  deps = fakeDeps();
  deps.users.createUser.mockResolvedValue(unconfirmed);
  deps.users.getUserByEmail.mockResolvedValue(unconfirmed);
});

describe('register (no enumeration: every outcome is the same 202 at the route)', () => {
  it('a new address: created, one confirmation mail with a confirm token', async () => {
    expect(await register(EMAIL, '1.2.3.4')).toBe('created');
    // The account starts with the setting's rows (INITIAL_LIMITS), passed in, not read by the store.
    expect(deps.users.createUser).toHaveBeenCalledWith({ email: EMAIL, limits: 1_000 });
    expect(deps.mail.send).toHaveBeenCalledOnce();
    expect(verifyToken(mailedToken(), 'confirm').user_id).toBe('u1');
  });

  it('a known unconfirmed address: a fresh link is resent', async () => {
    deps.users.createUser.mockRejectedValue(new AppError(409, 'email_taken', 'taken'));
    expect(await register(EMAIL)).toBe('resent');
    expect(verifyToken(mailedToken(), 'confirm').user_id).toBe('u1');
  });

  it('a confirmed address: a note that the account exists, with no link and no password', async () => {
    deps.users.createUser.mockRejectedValue(new AppError(409, 'email_taken', 'taken'));
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
    expect(await register(EMAIL)).toBe('already_confirmed');
    const m = deps.mail.send.mock.calls[0]![0];
    expect(m.text).not.toMatch(/token=/);
  });

  it(`the address's mail budget (${MAILS_PER_HOUR} an hour) spent: throttled, no mail`, async () => {
    deps.throttle.tryConsume.mockResolvedValue(false);
    expect(await register(EMAIL)).toBe('throttled');
    expect(deps.throttle.tryConsume.mock.calls[0]![0]).toMatchObject({ kind: 'confirm_mail', limit: MAILS_PER_HOUR });
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it("the source IP's hourly budget spent: 429 too_many_attempts before any account work", async () => {
    deps.throttle.consumeSlot.mockResolvedValue({ ok: false, retryAfter: 120 });
    const e = await refusal(register(EMAIL, '1.2.3.4'));
    expect([e.status, e.code]).toEqual([429, 'too_many_attempts']);
    expect(deps.users.createUser).not.toHaveBeenCalled();
  });

  it('without an IP no IP budget is consulted', async () => {
    await register(EMAIL);
    expect(deps.throttle.consumeSlot).not.toHaveBeenCalled();
  });

  it('a create that failed and no account to read: the create error is passed on', async () => {
    deps.users.createUser.mockRejectedValue(new Error('table down'));
    deps.users.getUserByEmail.mockResolvedValue(null);
    await expect(register(EMAIL)).rejects.toThrow('table down');
  });
});

describe('confirm', () => {
  it('a confirm link sets a generated password once and mails it', async () => {
    deps.users.getUserById.mockResolvedValue(unconfirmed);
    deps.users.confirmUser.mockResolvedValue(true);
    expect(await confirm(signToken({ user_id: 'u1' }, 'confirm'))).toEqual({ status: 'confirmed', email: EMAIL });
    const hash = deps.users.confirmUser.mock.calls[0]![1];
    const mail = deps.mail.send.mock.calls[0]![0];
    const password = /hash\((.+)\)/.exec(hash)![1]!;
    expect(password).toHaveLength(16);
    expect(mail.text).toContain(password);
  });

  it('a confirm link of a confirmed account: already_confirmed, no password, no mail', async () => {
    deps.users.getUserById.mockResolvedValue(confirmed);
    expect(await confirm(signToken({ user_id: 'u1' }, 'confirm'))).toEqual({ status: 'already_confirmed' });
    expect(deps.users.confirmUser).not.toHaveBeenCalled();
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('a second opener losing the conditional confirm: already_confirmed, no mail', async () => {
    deps.users.getUserById.mockResolvedValue(unconfirmed);
    deps.users.confirmUser.mockResolvedValue(false);
    expect(await confirm(signToken({ user_id: 'u1' }, 'confirm'))).toEqual({ status: 'already_confirmed' });
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('a reset link sets a new password once per token (its jti)', async () => {
    deps.users.getUserById.mockResolvedValue(confirmed);
    deps.users.resetPasswordOnce.mockResolvedValue(true);
    const token = signToken({ user_id: 'u1' }, 'reset');
    expect(await confirm(token)).toEqual({ status: 'confirmed', email: EMAIL });
    expect(deps.users.resetPasswordOnce.mock.calls[0]![0].jti).toBe(verifyToken(token, 'reset').jti);
    expect(deps.mail.send).toHaveBeenCalledOnce();
  });

  it('a reset link used before: already_confirmed, no mail', async () => {
    deps.users.getUserById.mockResolvedValue(confirmed);
    deps.users.resetPasswordOnce.mockResolvedValue(false);
    expect(await confirm(signToken({ user_id: 'u1' }, 'reset'))).toEqual({ status: 'already_confirmed' });
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('a password change after the link was issued voids it → 400 invalid_token, nothing written', async () => {
    const token = signToken({ user_id: 'u1' }, 'reset');
    const issued = verifyToken(token, 'reset').iat_ms!;
    deps.users.getUserById.mockResolvedValue({ ...confirmed, password_changed_at: new Date(issued + 1).toISOString() });
    expect((await refusal(confirm(token))).code).toBe('invalid_token');
    expect(deps.users.resetPasswordOnce).not.toHaveBeenCalled();
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('a change before the link was issued does not void it; the store is told when the link was issued', async () => {
    const token = signToken({ user_id: 'u1' }, 'reset');
    const issued = verifyToken(token, 'reset').iat_ms!;
    deps.users.getUserById.mockResolvedValue({ ...confirmed, password_changed_at: new Date(issued - 1).toISOString() });
    deps.users.resetPasswordOnce.mockResolvedValue(true);
    expect(await confirm(token)).toEqual({ status: 'confirmed', email: EMAIL });
    expect(deps.users.resetPasswordOnce.mock.calls[0]![0].issuedAt).toBe(new Date(issued).toISOString());
  });

  it('the link that set the current password, opened again: already_confirmed (not voided by its own change)', async () => {
    const token = signToken({ user_id: 'u1' }, 'reset');
    const { jti, iat_ms } = verifyToken(token, 'reset');
    deps.users.getUserById.mockResolvedValue({
      ...confirmed,
      password_changed_at: new Date(iat_ms! + 5000).toISOString(),
      password_reset_jti: jti,
    });
    expect(await confirm(token)).toEqual({ status: 'already_confirmed' });
    expect(deps.users.resetPasswordOnce).not.toHaveBeenCalled();
  });

  it('a change racing the reset (the store refuses, the account then shows a newer change) → 400 invalid_token', async () => {
    const token = signToken({ user_id: 'u1' }, 'reset');
    const issued = verifyToken(token, 'reset').iat_ms!;
    deps.users.getUserById
      .mockResolvedValueOnce(confirmed)
      .mockResolvedValueOnce({ ...confirmed, password_changed_at: new Date(issued + 10).toISOString() });
    deps.users.resetPasswordOnce.mockResolvedValue(false);
    expect((await refusal(confirm(token))).code).toBe('invalid_token');
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('a reset link of an unconfirmed account → 400 invalid_token', async () => {
    deps.users.getUserById.mockResolvedValue(unconfirmed);
    expect((await refusal(confirm(signToken({ user_id: 'u1' }, 'reset')))).code).toBe('invalid_token');
    expect(deps.users.resetPasswordOnce).not.toHaveBeenCalled();
  });

  it('an access token, a bad token or an unknown user → 400 invalid_token', async () => {
    deps.users.getUserById.mockResolvedValue(null);
    for (const token of [signToken({ user_id: 'u1' }, 'access'), 'garbage', signToken({ user_id: 'u1' }, 'confirm')])
      expect(await refusal(confirm(token))).toMatchObject({ status: 400, code: 'invalid_token' });
    expect(deps.mail.send).not.toHaveBeenCalled();
  });
});

describe('forgotPassword', () => {
  it('a confirmed account gets a reset link', async () => {
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
    expect(await forgotPassword(EMAIL)).toBe('sent');
    expect(verifyToken(mailedToken(), 'reset').user_id).toBe('u1');
  });

  it('an unknown or unconfirmed address is ignored silently', async () => {
    deps.users.getUserByEmail.mockResolvedValueOnce(null).mockResolvedValueOnce(unconfirmed);
    expect(await forgotPassword(EMAIL)).toBe('ignored');
    expect(await forgotPassword(EMAIL)).toBe('ignored');
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('the reset mail budget spent: throttled, no mail', async () => {
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
    deps.throttle.tryConsume.mockResolvedValue(false);
    expect(await forgotPassword(EMAIL)).toBe('throttled');
    expect(deps.throttle.tryConsume.mock.calls[0]![0].kind).toBe('reset_mail');
    expect(deps.mail.send).not.toHaveBeenCalled();
  });

  it('the IP budget is that of resets, and spent → 429', async () => {
    deps.throttle.consumeSlot.mockResolvedValue({ ok: false, retryAfter: 5 });
    expect((await refusal(forgotPassword(EMAIL, '9.9.9.9'))).status).toBe(429);
    expect(deps.throttle.consumeSlot.mock.calls[0]![0]).toMatchObject({ kind: 'reset_ip', subject: '9.9.9.9' });
  });
});

describe('login', () => {
  it('the right password of a confirmed account: an access token, the failure count cleared', async () => {
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
    const r = await login(EMAIL, 'right-password', '1.2.3.4');
    expect(verifyToken(r.token, 'access').user_id).toBe('u1');
    expect(deps.throttle.clearFailures).toHaveBeenCalledWith(PAIR_LOCKOUT, `${EMAIL}|1.2.3.4`);
    expect(deps.throttle.clearFailures).not.toHaveBeenCalledWith(ACCOUNT_FAILURES, EMAIL);
    expect(deps.throttle.recordFailure).not.toHaveBeenCalled();
  });

  it('a wrong password → 401 invalid_credentials, a failure counted for the pair, the IP and the address', async () => {
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
    const e = await refusal(login(EMAIL, 'wrong', '1.2.3.4'));
    expect([e.status, e.code]).toEqual([401, 'invalid_credentials']);
    const now = deps.clock.now().getTime();
    expect(deps.throttle.recordFailure).toHaveBeenCalledWith(PAIR_LOCKOUT, `${EMAIL}|1.2.3.4`, now);
    expect(deps.throttle.recordFailure).toHaveBeenCalledWith(ACCOUNT_FAILURES, EMAIL, now);
    expect(deps.throttle.recordFailure).toHaveBeenCalledWith(IP_LOCKOUT, '1.2.3.4', deps.clock.now().getTime());
  });

  it('an unknown address and an unconfirmed account answer the same 401, after a burned bcrypt check', async () => {
    for (const u of [null, unconfirmed]) {
      deps.users.getUserByEmail.mockResolvedValue(u);
      const e = await refusal(login(EMAIL, 'right-password'));
      expect([e.status, e.code]).toEqual([401, 'invalid_credentials']);
    }
    expect(deps.passwords.burn).toHaveBeenCalledTimes(2);
    expect(deps.passwords.verify).not.toHaveBeenCalled();
  });

  it('an unconfirmed account is refused even with its right password', async () => {
    deps.users.getUserByEmail.mockResolvedValue({ ...unconfirmed, password_hash: 'hash(right-password)' });
    expect((await refusal(login(EMAIL, 'right-password'))).code).toBe('invalid_credentials');
    expect(deps.throttle.clearFailures).not.toHaveBeenCalled();
  });

  it('a locked (address, IP) → 429 before the password is looked at, with the longer wait', async () => {
    deps.throttle.lockedFor.mockImplementation(async (policy) => (policy.kind === 'login_pair' ? 30 : 90));
    const e = await refusal(login(EMAIL, 'right-password', '1.2.3.4'));
    expect([e.status, e.code]).toEqual([429, 'too_many_attempts']);
    expect(e.message).toContain('90');
    expect(deps.users.getUserByEmail).not.toHaveBeenCalled();
    expect(deps.throttle.recordFailure).not.toHaveBeenCalled();
  });
});

describe('login throttling (the store rules in memory, on the injected clock)', () => {
  let throttle: ReturnType<typeof memoryThrottle>;
  const attempt = async (password: string, ip: string) => {
    try {
      await login(EMAIL, password, ip);
      return { status: 200, retryAfter: 0 };
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return { status: e.status, retryAfter: Number(e.details?.retry_after_seconds ?? 0) };
    }
  };
  beforeEach(() => {
    throttle = memoryThrottle();
    Object.assign(deps, { throttle });
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
  });

  it('5 failures from one source lock that source for this address; the owner elsewhere signs in', async () => {
    for (let i = 0; i < 5; i++) expect((await attempt('wrong', '6.6.6.6')).status).toBe(401);
    expect(await attempt('right-password', '6.6.6.6')).toEqual({ status: 429, retryAfter: 30 });
    expect((await attempt('right-password', '1.1.1.1')).status).toBe(200);
    // The lock doubles for the guessing source and runs out on the clock.
    deps.clock.advance(30_000);
    expect((await attempt('wrong', '6.6.6.6')).status).toBe(401);
    expect(await attempt('wrong', '6.6.6.6')).toEqual({ status: 429, retryAfter: 60 });
  });

  it(`${IP_LOCKOUT.free} failures from one source over many addresses lock the source`, async () => {
    for (let i = 0; i < IP_LOCKOUT.free; i++) {
      deps.users.getUserByEmail.mockResolvedValue(null);
      await refusal(loginOf(deps, `other-${i}@example.com`, 'guess', '6.6.6.6'));
    }
    deps.users.getUserByEmail.mockResolvedValue(confirmed);
    expect((await attempt('right-password', '6.6.6.6')).status).toBe(429);
    expect((await attempt('right-password', '1.1.1.1')).status).toBe(200);
  });

  it(`${ACCOUNT_PACE.after} failures from many sources only pace the address: one check per ${ACCOUNT_PACE.intervalSeconds} s, never a long lock`, async () => {
    for (let i = 0; i < ACCOUNT_PACE.after; i++) expect((await attempt('wrong', `10.0.0.${i}`)).status).toBe(401);
    // The next check is allowed (and fails), the one right after it waits for the interval.
    expect((await attempt('wrong', '10.0.1.1')).status).toBe(401);
    const paced = await attempt('right-password', '1.1.1.1');
    expect(paced.status).toBe(429);
    expect(paced.retryAfter).toBeGreaterThan(0);
    expect(paced.retryAfter).toBeLessThanOrEqual(ACCOUNT_PACE.intervalSeconds);
    // A paced request is not checked, so it is not a failure either.
    expect(deps.passwords.verify).toHaveBeenCalledTimes(ACCOUNT_PACE.after + 1);
    deps.clock.advance(paced.retryAfter * 1000);
    expect((await attempt('right-password', '1.1.1.1')).status).toBe(200);
  });

  it('a guesser taking every paced check: one check per interval; the owner from a known source is not paced', async () => {
    expect((await attempt('right-password', '1.1.1.1')).status).toBe(200); // the owner's usual source
    let checked = 0;
    for (let second = 0; second < 120; second++) {
      for (let g = 0; g < 5; g++) if ((await attempt('wrong', `10.1.${second}.${g}`)).status === 401) checked++;
      deps.clock.advance(1000);
    }
    // 20 free checks, then one per interval over the remaining 116 s.
    expect(checked).toBeLessThanOrEqual(ACCOUNT_PACE.after + Math.ceil(116 / ACCOUNT_PACE.intervalSeconds) + 1);
    expect((await attempt('right-password', '1.1.1.1')).status).toBe(200);
    // A new source of the owner competes for the paced check: 429 with a Retry-After of seconds.
    const fresh = await attempt('right-password', '2.2.2.2');
    expect(fresh.status).toBe(429);
    expect(fresh.retryAfter).toBeLessThanOrEqual(ACCOUNT_PACE.intervalSeconds);
  });

  it('failures older than the window no longer pace the address', async () => {
    for (let i = 0; i < ACCOUNT_PACE.after; i++) await attempt('wrong', `10.0.0.${i}`);
    deps.clock.advance(ACCOUNT_FAILURES.windowSeconds * 1000 + 1);
    for (let i = 0; i < 3; i++) expect((await attempt('wrong', `10.0.2.${i}`)).status).toBe(401);
  });
});

describe('changePassword', () => {
  it('a wrong current password → 400 invalid_current_password (never 401)', async () => {
    const e = await refusal(changePassword(confirmed, 'wrong', 'new-password-1'));
    expect([e.status, e.code]).toEqual([400, 'invalid_current_password']);
    expect(deps.users.changePasswordHash).not.toHaveBeenCalled();
  });

  it('a new password under 8 characters → 400 weak_password (characters, not UTF-16 units)', async () => {
    expect((await refusal(changePassword(confirmed, 'right-password', 'short'))).code).toBe('weak_password');
    // Seven emoji are 14 UTF-16 units but 7 characters.
    expect((await refusal(changePassword(confirmed, 'right-password', '😀'.repeat(7)))).code).toBe('weak_password');
    deps.users.changePasswordHash.mockResolvedValue(true);
    await changePassword(confirmed, 'right-password', 'пароль12');
    expect(deps.users.changePasswordHash).toHaveBeenCalledOnce();
  });

  it('conditional on the old hash; a concurrent change first → 409 password_changed', async () => {
    deps.users.changePasswordHash.mockResolvedValue(false);
    const e = await refusal(changePassword(confirmed, 'right-password', 'new-password-1'));
    expect([e.status, e.code]).toEqual([409, 'password_changed']);
    expect(deps.users.changePasswordHash.mock.calls[0]![0]).toMatchObject({
      expectedHash: 'hash(right-password)',
      passwordHash: 'hash(new-password-1)',
      changedAt: '2024-03-01T10:00:00.000Z',
    });
  });

  it('a successful change answers a fresh access token', async () => {
    deps.users.changePasswordHash.mockResolvedValue(true);
    const r = await changePassword(confirmed, 'right-password', 'new-password-1');
    expect(verifyToken(r.token, 'access').user_id).toBe('u1');
  });
});
