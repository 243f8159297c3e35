/**
 * Unit tier (fast, no emulators): the account use cases are real, and so are the tokens (jsonwebtoken)
 * and the mail texts; the user and throttle stores, the mail sender and bcrypt (passwords.ts hashing)
 * are vi.mock'ed, so each rule of register/confirm/forgot/login/change is checked in milliseconds.
 * test/integration/auth.test.ts and account.test.ts run them against DynamoDB Local and the SES emulator.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors';
import { sendMail } from '../mail/send';
import { clearFailures, consumeSlot, lockedFor, recordFailure, tryConsume } from '../store/throttle.repo';
import {
  changePasswordHash,
  confirmUser,
  createUser,
  getUserByEmail,
  getUserById,
  resetPasswordOnce,
} from '../store/users.repo';
import { refusal, setUnitEnv, unitUser } from '../../test/support/unit-fixtures';
import {
  ACCOUNT_LOCKOUT,
  IP_LOCKOUT,
  MAILS_PER_HOUR,
  changePassword,
  confirm,
  forgotPassword,
  login,
  register,
} from './accounts';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords';
import { signToken, verifyToken } from './tokens';

vi.mock('../mail/send', () => ({ sendMail: vi.fn() }));
vi.mock('../store/throttle.repo', () => ({
  clearFailures: vi.fn(),
  consumeSlot: vi.fn(),
  lockedFor: vi.fn(),
  recordFailure: vi.fn(),
  tryConsume: vi.fn(),
}));
vi.mock('../store/users.repo', () => ({
  changePasswordHash: vi.fn(),
  confirmUser: vi.fn(),
  createUser: vi.fn(),
  getUserByEmail: vi.fn(),
  getUserById: vi.fn(),
  resetPasswordOnce: vi.fn(),
  toPublicUser: (u: { id: string; email: string }) => ({ id: u.id, email: u.email }),
}));
vi.mock('./passwords', async (actual) => ({
  ...(await actual<typeof import('./passwords')>()),
  hashPassword: vi.fn(async (p: string) => `hash(${p})`),
  verifyPassword: vi.fn(async (p: string, h: string) => h === `hash(${p})`),
  burnPasswordCheck: vi.fn(async () => undefined),
}));

setUnitEnv();

const EMAIL = 'seller@example.com';
const confirmed = unitUser({ email: EMAIL, confirmed: true, password_hash: 'hash(right-password)' });
const unconfirmed = unitUser({ email: EMAIL, confirmed: false, password_hash: undefined });

/** The token inside the one mail sent (a confirmation or reset link). */
function mailedToken(): string {
  const m = vi.mocked(sendMail).mock.calls[0]![0];
  const token = /token=([\w.-]+)/.exec(m.text)?.[1];
  expect(token).toBeDefined();
  return token!;
}

beforeEach(() => {
  vi.resetAllMocks();
  vi.mocked(consumeSlot).mockResolvedValue({ ok: true });
  vi.mocked(tryConsume).mockResolvedValue(true);
  vi.mocked(lockedFor).mockResolvedValue(0);
  vi.mocked(createUser).mockResolvedValue(unconfirmed as never);
  vi.mocked(getUserByEmail).mockResolvedValue(unconfirmed);
  vi.mocked(hashPassword).mockImplementation(async (p: string) => `hash(${p})`);
  vi.mocked(verifyPassword).mockImplementation(async (p: string, h: string) => h === `hash(${p})`);
});

describe('register (no enumeration: every outcome is the same 202 at the route)', () => {
  it('a new address: created, one confirmation mail with a confirm token', async () => {
    expect(await register(EMAIL, '1.2.3.4')).toBe('created');
    expect(sendMail).toHaveBeenCalledOnce();
    expect(verifyToken(mailedToken(), 'confirm').user_id).toBe('u1');
  });

  it('a known unconfirmed address: a fresh link is resent', async () => {
    vi.mocked(createUser).mockRejectedValue(new AppError(409, 'email_taken', 'taken'));
    expect(await register(EMAIL)).toBe('resent');
    expect(verifyToken(mailedToken(), 'confirm').user_id).toBe('u1');
  });

  it('a confirmed address: a note that the account exists, with no link and no password', async () => {
    vi.mocked(createUser).mockRejectedValue(new AppError(409, 'email_taken', 'taken'));
    vi.mocked(getUserByEmail).mockResolvedValue(confirmed);
    expect(await register(EMAIL)).toBe('already_confirmed');
    const m = vi.mocked(sendMail).mock.calls[0]![0];
    expect(m.text).not.toMatch(/token=/);
  });

  it(`the address's mail budget (${MAILS_PER_HOUR} an hour) spent: throttled, no mail`, async () => {
    vi.mocked(tryConsume).mockResolvedValue(false);
    expect(await register(EMAIL)).toBe('throttled');
    expect(vi.mocked(tryConsume).mock.calls[0]![0]).toMatchObject({ kind: 'confirm_mail', limit: MAILS_PER_HOUR });
    expect(sendMail).not.toHaveBeenCalled();
  });

  it("the source IP's hourly budget spent: 429 too_many_attempts before any account work", async () => {
    vi.mocked(consumeSlot).mockResolvedValue({ ok: false, retryAfter: 120 });
    const e = await refusal(register(EMAIL, '1.2.3.4'));
    expect([e.status, e.code]).toEqual([429, 'too_many_attempts']);
    expect(createUser).not.toHaveBeenCalled();
  });

  it('without an IP no IP budget is consulted', async () => {
    await register(EMAIL);
    expect(consumeSlot).not.toHaveBeenCalled();
  });

  it('a create that failed and no account to read: the create error is passed on', async () => {
    vi.mocked(createUser).mockRejectedValue(new Error('table down'));
    vi.mocked(getUserByEmail).mockResolvedValue(null);
    await expect(register(EMAIL)).rejects.toThrow('table down');
  });
});

describe('confirm', () => {
  it('a confirm link sets a generated password once and mails it', async () => {
    vi.mocked(getUserById).mockResolvedValue(unconfirmed);
    vi.mocked(confirmUser).mockResolvedValue(true as never);
    expect(await confirm(signToken({ user_id: 'u1' }, 'confirm'))).toEqual({ status: 'confirmed', email: EMAIL });
    const hash = vi.mocked(confirmUser).mock.calls[0]![1];
    const mail = vi.mocked(sendMail).mock.calls[0]![0];
    const password = /hash\((.+)\)/.exec(hash)![1]!;
    expect(password).toHaveLength(16);
    expect(mail.text).toContain(password);
  });

  it('a confirm link of a confirmed account: already_confirmed, no password, no mail', async () => {
    vi.mocked(getUserById).mockResolvedValue(confirmed);
    expect(await confirm(signToken({ user_id: 'u1' }, 'confirm'))).toEqual({ status: 'already_confirmed' });
    expect(confirmUser).not.toHaveBeenCalled();
    expect(sendMail).not.toHaveBeenCalled();
  });

  it('a second opener losing the conditional confirm: already_confirmed, no mail', async () => {
    vi.mocked(getUserById).mockResolvedValue(unconfirmed);
    vi.mocked(confirmUser).mockResolvedValue(false as never);
    expect(await confirm(signToken({ user_id: 'u1' }, 'confirm'))).toEqual({ status: 'already_confirmed' });
    expect(sendMail).not.toHaveBeenCalled();
  });

  it('a reset link sets a new password once per token (its jti)', async () => {
    vi.mocked(getUserById).mockResolvedValue(confirmed);
    vi.mocked(resetPasswordOnce).mockResolvedValue(true as never);
    const token = signToken({ user_id: 'u1' }, 'reset');
    expect(await confirm(token)).toEqual({ status: 'confirmed', email: EMAIL });
    expect(vi.mocked(resetPasswordOnce).mock.calls[0]![0].jti).toBe(verifyToken(token, 'reset').jti);
    expect(sendMail).toHaveBeenCalledOnce();
  });

  it('a reset link used before: already_confirmed, no mail', async () => {
    vi.mocked(getUserById).mockResolvedValue(confirmed);
    vi.mocked(resetPasswordOnce).mockResolvedValue(false as never);
    expect(await confirm(signToken({ user_id: 'u1' }, 'reset'))).toEqual({ status: 'already_confirmed' });
    expect(sendMail).not.toHaveBeenCalled();
  });

  it('a reset link of an unconfirmed account → 400 invalid_token', async () => {
    vi.mocked(getUserById).mockResolvedValue(unconfirmed);
    expect((await refusal(confirm(signToken({ user_id: 'u1' }, 'reset')))).code).toBe('invalid_token');
    expect(resetPasswordOnce).not.toHaveBeenCalled();
  });

  it('an access token, a bad token or an unknown user → 400 invalid_token', async () => {
    vi.mocked(getUserById).mockResolvedValue(null);
    for (const token of [signToken({ user_id: 'u1' }, 'access'), 'garbage', signToken({ user_id: 'u1' }, 'confirm')])
      expect(await refusal(confirm(token))).toMatchObject({ status: 400, code: 'invalid_token' });
    expect(sendMail).not.toHaveBeenCalled();
  });
});

describe('forgotPassword', () => {
  it('a confirmed account gets a reset link', async () => {
    vi.mocked(getUserByEmail).mockResolvedValue(confirmed);
    expect(await forgotPassword(EMAIL)).toBe('sent');
    expect(verifyToken(mailedToken(), 'reset').user_id).toBe('u1');
  });

  it('an unknown or unconfirmed address is ignored silently', async () => {
    vi.mocked(getUserByEmail).mockResolvedValueOnce(null).mockResolvedValueOnce(unconfirmed);
    expect(await forgotPassword(EMAIL)).toBe('ignored');
    expect(await forgotPassword(EMAIL)).toBe('ignored');
    expect(sendMail).not.toHaveBeenCalled();
  });

  it('the reset mail budget spent: throttled, no mail', async () => {
    vi.mocked(getUserByEmail).mockResolvedValue(confirmed);
    vi.mocked(tryConsume).mockResolvedValue(false);
    expect(await forgotPassword(EMAIL)).toBe('throttled');
    expect(vi.mocked(tryConsume).mock.calls[0]![0].kind).toBe('reset_mail');
    expect(sendMail).not.toHaveBeenCalled();
  });

  it('the IP budget is that of resets, and spent → 429', async () => {
    vi.mocked(consumeSlot).mockResolvedValue({ ok: false, retryAfter: 5 });
    expect((await refusal(forgotPassword(EMAIL, '9.9.9.9'))).status).toBe(429);
    expect(vi.mocked(consumeSlot).mock.calls[0]![0]).toMatchObject({ kind: 'reset_ip', subject: '9.9.9.9' });
  });
});

describe('login', () => {
  it('the right password of a confirmed account: an access token, the failure count cleared', async () => {
    vi.mocked(getUserByEmail).mockResolvedValue(confirmed);
    const r = await login(EMAIL, 'right-password', '1.2.3.4');
    expect(verifyToken(r.token, 'access').user_id).toBe('u1');
    expect(clearFailures).toHaveBeenCalledWith(ACCOUNT_LOCKOUT, EMAIL);
    expect(recordFailure).not.toHaveBeenCalled();
  });

  it('a wrong password → 401 invalid_credentials, a failure counted for the address and the IP', async () => {
    vi.mocked(getUserByEmail).mockResolvedValue(confirmed);
    const e = await refusal(login(EMAIL, 'wrong', '1.2.3.4'));
    expect([e.status, e.code]).toEqual([401, 'invalid_credentials']);
    expect(recordFailure).toHaveBeenCalledWith(ACCOUNT_LOCKOUT, EMAIL);
    expect(recordFailure).toHaveBeenCalledWith(IP_LOCKOUT, '1.2.3.4');
  });

  it('an unknown address and an unconfirmed account answer the same 401, after a burned bcrypt check', async () => {
    for (const u of [null, unconfirmed]) {
      vi.mocked(getUserByEmail).mockResolvedValue(u);
      const e = await refusal(login(EMAIL, 'right-password'));
      expect([e.status, e.code]).toEqual([401, 'invalid_credentials']);
    }
    expect(burnPasswordCheck).toHaveBeenCalledTimes(2);
    expect(verifyPassword).not.toHaveBeenCalled();
  });

  it('an unconfirmed account is refused even with its right password', async () => {
    vi.mocked(getUserByEmail).mockResolvedValue({ ...unconfirmed, password_hash: 'hash(right-password)' });
    expect((await refusal(login(EMAIL, 'right-password'))).code).toBe('invalid_credentials');
    expect(clearFailures).not.toHaveBeenCalled();
  });

  it('a locked address → 429 before the password is looked at, with the longer wait', async () => {
    vi.mocked(lockedFor).mockImplementation(async (policy) => (policy.kind === 'login_account' ? 30 : 90));
    const e = await refusal(login(EMAIL, 'right-password', '1.2.3.4'));
    expect([e.status, e.code]).toEqual([429, 'too_many_attempts']);
    expect(e.message).toContain('90');
    expect(getUserByEmail).not.toHaveBeenCalled();
    expect(recordFailure).not.toHaveBeenCalled();
  });
});

describe('changePassword', () => {
  it('a wrong current password → 400 invalid_current_password (never 401)', async () => {
    const e = await refusal(changePassword(confirmed, 'wrong', 'new-password-1'));
    expect([e.status, e.code]).toEqual([400, 'invalid_current_password']);
    expect(changePasswordHash).not.toHaveBeenCalled();
  });

  it('a new password under 8 characters → 400 weak_password (characters, not UTF-16 units)', async () => {
    expect((await refusal(changePassword(confirmed, 'right-password', 'short'))).code).toBe('weak_password');
    // Seven emoji are 14 UTF-16 units but 7 characters.
    expect((await refusal(changePassword(confirmed, 'right-password', '😀'.repeat(7)))).code).toBe('weak_password');
    vi.mocked(changePasswordHash).mockResolvedValue(true as never);
    await changePassword(confirmed, 'right-password', 'пароль12');
    expect(changePasswordHash).toHaveBeenCalledOnce();
  });

  it('conditional on the old hash; a concurrent change first → 409 password_changed', async () => {
    vi.mocked(changePasswordHash).mockResolvedValue(false as never);
    const e = await refusal(changePassword(confirmed, 'right-password', 'new-password-1'));
    expect([e.status, e.code]).toEqual([409, 'password_changed']);
    expect(vi.mocked(changePasswordHash).mock.calls[0]![0]).toMatchObject({
      expectedHash: 'hash(right-password)',
      passwordHash: 'hash(new-password-1)',
    });
  });

  it('a successful change answers a fresh access token', async () => {
    vi.mocked(changePasswordHash).mockResolvedValue(true as never);
    const r = await changePassword(confirmed, 'right-password', 'new-password-1');
    expect(verifyToken(r.token, 'access').user_id).toBe('u1');
  });
});
