/**
 * Account use cases of docs/API.md "Auth". Handlers in functions/auth parse input and shape output; the
 * rules live here. Each takes its dependencies first (`register(deps, email, ip)`): the handlers pass
 * the real ones (shared/auth/deps.ts), unit tests pass fakes.
 */
import type { Clock } from '../deps';
import { nowMs } from '../deps';
import { badRequest, conflict, tooManyAttempts, unauthorized } from '../errors';
import { accountExistsMail, confirmationMail, confirmLink, passwordMail, resetMail } from '../mail/messages';
import type { MailMessage } from '../mail/send';
import type * as throttleRepo from '../store/throttle.repo';
import type { LockoutPolicy } from '../store/throttle.repo';
import type * as usersRepo from '../store/users.repo';
import { toPublicUser, type PublicUser, type UserRecord } from '../store/users.repo';
import { signToken, verifyToken } from './tokens';

/**
 * What the account use cases talk to. Production: shared/auth/deps.ts (DynamoDB stores, bcrypt, the
 * system clock) and shared/auth/mail-deps.ts (adds SES); unit tests pass fakes.
 */
export interface AccountDeps {
  users: Pick<
    typeof usersRepo,
    'createUser' | 'getUserByEmail' | 'getUserById' | 'confirmUser' | 'resetPasswordOnce' | 'changePasswordHash'
  >;
  throttle: Pick<typeof throttleRepo, 'tryConsume' | 'consumeSlot' | 'lockedFor' | 'recordFailure' | 'clearFailures'>;
  mail: { send(m: MailMessage): Promise<void> };
  /** Hashing is bcrypt in production (shared/auth/passwords.ts); generate makes a mailed password. */
  passwords: {
    hash(password: string): Promise<string>;
    verify(password: string, hash: string): Promise<boolean>;
    /** One comparison's worth of work for an unknown account (timing tells nothing). */
    burn(password: string): Promise<void>;
    generate(): string;
  };
  clock: Clock;
  /** The web app's address, for the links in mails. */
  appUrl(): string;
}

/** docs/API.md: at most 3 confirmation (or reset) mails per hour per address. */
export const MAILS_PER_HOUR = 3;

function mailSlot(deps: AccountDeps, kind: 'confirm_mail' | 'reset_mail', email: string): Promise<boolean> {
  return deps.throttle.tryConsume({ kind, subject: email, limit: MAILS_PER_HOUR, windowSeconds: 3600 });
}

/** Registrations, and reset requests, per source IP per hour (besides the per-address mail budget). */
export const REQUESTS_PER_IP_PER_HOUR = 10;

/** Sign-in: 5 failures per address in 15 minutes, then locks of 30 s doubling up to 15 minutes. */
export const ACCOUNT_LOCKOUT: LockoutPolicy = {
  kind: 'login_account',
  free: 5,
  windowSeconds: 15 * 60,
  baseSeconds: 30,
  maxSeconds: 15 * 60,
};

/** Sign-in per source IP: more room (offices share an address), same doubling locks. */
export const IP_LOCKOUT: LockoutPolicy = {
  kind: 'login_ip',
  free: 20,
  windowSeconds: 15 * 60,
  baseSeconds: 30,
  maxSeconds: 15 * 60,
};

/** 429 too_many_attempts unless the source IP may make another request of `kind` this hour. */
async function ipSlot(deps: AccountDeps, kind: 'register_ip' | 'reset_ip', ip: string | undefined): Promise<void> {
  if (!ip) return;
  const slot = await deps.throttle.consumeSlot({
    kind,
    subject: ip,
    limit: REQUESTS_PER_IP_PER_HOUR,
    windowSeconds: 3600,
  });
  if (!slot.ok) throw tooManyAttempts(slot.retryAfter);
}

export type RegisterOutcome = 'created' | 'resent' | 'throttled' | 'already_confirmed';

/**
 * Register `email` (already normalized). Input: an address. Output: what happened, for logs and tests
 * only — the route answers the same 202 in every case (no account enumeration).
 * Steps, the same store and mail work whatever the address (issue 12: a confirmed address answered in
 * 12 ms, a new one in 60 ms): the source IP's hourly budget; one conditional create (refused for a known
 * address, which also covers concurrent registrations of one address); one read of the account; the
 * address's hourly mail budget; one mail — a fresh confirmation link, or for a confirmed account a note
 * that it exists (no link, no password).
 */
export async function register(deps: AccountDeps, email: string, ip?: string): Promise<RegisterOutcome> {
  await ipSlot(deps, 'register_ip', ip);
  let created = false;
  let refused: unknown = null;
  try {
    await deps.users.createUser({ email });
    created = true;
  } catch (e) {
    // email_taken, or a concurrent registration of the same address: the account is read next.
    refused = e;
  }
  const user = await deps.users.getUserByEmail(email);
  if (!user) throw refused ?? new Error('register: the account is missing right after its creation');
  if (!(await mailSlot(deps, 'confirm_mail', user.email))) return 'throttled';
  if (user.confirmed) {
    await deps.mail.send(accountExistsMail(user.email, deps.appUrl()));
    return 'already_confirmed';
  }
  const token = signToken({ user_id: user.id }, 'confirm');
  await deps.mail.send(confirmationMail(user.email, confirmLink(deps.appUrl(), token)));
  return created ? 'created' : 'resent';
}

export type ConfirmResult = { status: 'confirmed'; email: string } | { status: 'already_confirmed' };

/**
 * Open a mailed link. A `confirm` token confirms the address with a generated password, once: the
 * conditional update lets exactly one opener win, every later opener (a mail scanner's pre-fetch, a
 * second click, an older resent link) gets `already_confirmed` and no password. A `reset` token sets a
 * new password, once per token (its jti is recorded as used). The password goes out by mail only.
 * Bad, expired or access tokens → 400 invalid_token.
 */
export async function confirm(deps: AccountDeps, token: string): Promise<ConfirmResult> {
  const payload = verifyToken(token, ['confirm', 'reset']);
  const user = await deps.users.getUserById(payload.user_id);
  if (!user) throw badRequest('invalid_token', 'The link is invalid or has expired');
  if (payload.scenario === 'confirm') {
    if (user.confirmed) return { status: 'already_confirmed' };
    const password = deps.passwords.generate();
    if (!(await deps.users.confirmUser(user.id, await deps.passwords.hash(password))))
      return { status: 'already_confirmed' };
    await deps.mail.send(passwordMail(user.email, password, deps.appUrl(), 'confirmed'));
    return { status: 'confirmed', email: user.email };
  }
  if (!user.confirmed) throw badRequest('invalid_token', 'The link is invalid or has expired');
  const password = deps.passwords.generate();
  const applied = await deps.users.resetPasswordOnce({
    userId: user.id,
    jti: payload.jti,
    tokenExp: payload.exp,
    passwordHash: await deps.passwords.hash(password),
  });
  if (!applied) return { status: 'already_confirmed' };
  await deps.mail.send(passwordMail(user.email, password, deps.appUrl(), 'reset'));
  return { status: 'confirmed', email: user.email };
}

export type ForgotOutcome = 'sent' | 'throttled' | 'ignored';

/** Forgot password: a confirmed user gets a one-time reset link (1 h), within the hourly mail budget. */
export async function forgotPassword(deps: AccountDeps, email: string, ip?: string): Promise<ForgotOutcome> {
  await ipSlot(deps, 'reset_ip', ip);
  const user = await deps.users.getUserByEmail(email);
  if (!user || !user.confirmed) return 'ignored';
  if (!(await mailSlot(deps, 'reset_mail', user.email))) return 'throttled';
  const token = signToken({ user_id: user.id }, 'reset');
  await deps.mail.send(resetMail(user.email, confirmLink(deps.appUrl(), token)));
  return 'sent';
}

/**
 * Sign in. One answer (401 invalid_credentials) for an unknown address, a wrong password and an
 * unconfirmed account; the unknown cases still spend one bcrypt comparison so timing tells nothing.
 * Throttled (issue 12): an address or source IP locked after repeated failures answers 429
 * too_many_attempts with Retry-After before the password is looked at, known address or not; every
 * failure is counted for both, a success clears the address's count.
 */
export async function login(
  deps: Pick<AccountDeps, 'users' | 'throttle' | 'passwords' | 'clock'>,
  email: string,
  password: string,
  ip?: string,
): Promise<{ token: string; user: PublicUser }> {
  const now = nowMs(deps.clock);
  const [accountWait, ipWait] = await Promise.all([
    deps.throttle.lockedFor(ACCOUNT_LOCKOUT, email, now),
    ip ? deps.throttle.lockedFor(IP_LOCKOUT, ip, now) : Promise.resolve(0),
  ]);
  if (accountWait > 0 || ipWait > 0) throw tooManyAttempts(Math.max(accountWait, ipWait));
  const user: UserRecord | null = await deps.users.getUserByEmail(email);
  let ok = false;
  if (!user || !user.confirmed || !user.password_hash) await deps.passwords.burn(password);
  else ok = await deps.passwords.verify(password, user.password_hash);
  if (!ok || !user) {
    await Promise.all([
      deps.throttle.recordFailure(ACCOUNT_LOCKOUT, email, now),
      ip ? deps.throttle.recordFailure(IP_LOCKOUT, ip, now) : null,
    ]);
    throw unauthorized('Wrong email or password', 'invalid_credentials');
  }
  await deps.throttle.clearFailures(ACCOUNT_LOCKOUT, email);
  return { token: signToken({ user_id: user.id }, 'access'), user: toPublicUser(user) };
}

/** The shortest password a user may choose (generated ones are longer). */
export const MIN_PASSWORD_LENGTH = 8;

/**
 * Change the password of the signed-in `user`: the current password must match (else 400
 * `invalid_current_password`, never a 401, which the page reads as "the session ended"), the new one
 * must have at least MIN_PASSWORD_LENGTH characters (400 `weak_password`). The change ends every
 * session issued before it, the caller's included (its token is older than `password_changed_at`);
 * the answer carries a fresh token signed after the change. A concurrent change that won first → 409
 * `password_changed`.
 */
export async function changePassword(
  deps: Pick<AccountDeps, 'users' | 'passwords' | 'clock'>,
  user: UserRecord,
  currentPassword: string,
  newPassword: string,
): Promise<{ token: string; user: PublicUser }> {
  if (!user.password_hash || !(await deps.passwords.verify(currentPassword, user.password_hash)))
    throw badRequest('invalid_current_password', 'The current password is wrong');
  if ([...newPassword].length < MIN_PASSWORD_LENGTH)
    throw badRequest('weak_password', `The new password must have at least ${MIN_PASSWORD_LENGTH} characters`, {
      min_length: MIN_PASSWORD_LENGTH,
    });
  const changed = await deps.users.changePasswordHash({
    userId: user.id,
    expectedHash: user.password_hash,
    passwordHash: await deps.passwords.hash(newPassword),
    changedAt: deps.clock.now().toISOString(),
  });
  if (!changed) throw conflict('password_changed', 'The password was changed by another request');
  // Signed after the change: its iat_ms is not older than password_changed_at.
  return { token: signToken({ user_id: user.id }, 'access'), user: toPublicUser(user) };
}
