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
import type { LockoutPolicy, ThrottleInput } from '../store/throttle.repo';
import { toPublicUser, type PublicUser, type UserRecord } from '../store/users.repo';
import { issuedAtMs, signToken, verifyToken } from './tokens';

/** The accounts the use cases read and write (shared/store/users.repo.ts in production). */
export interface AccountUsers {
  /** Creates an account with its email marker at once; 409 `email_taken` when the address has one. */
  createUser(input: { email: string; limits: number }): Promise<UserRecord>;
  getUserByEmail(email: string): Promise<UserRecord | null>;
  getUserById(id: string): Promise<UserRecord | null>;
  /** Confirms the account with its first password; false when it was confirmed before. */
  confirmUser(userId: string, passwordHash: string): Promise<boolean>;
  /** Sets a new password once per reset link (its jti), only if no password changed after it was signed. */
  resetPasswordOnce(input: {
    userId: string;
    jti: string;
    tokenExp: number;
    issuedAt: string;
    passwordHash: string;
  }): Promise<boolean>;
  /** Replaces the password when the stored hash is still `expectedHash`. */
  changePasswordHash(input: {
    userId: string;
    expectedHash: string;
    passwordHash: string;
    changedAt: string;
  }): Promise<boolean>;
}

/** The budgets and lockouts of sign-up, sign-in and resets (shared/store/throttle.repo.ts in production). */
export interface AccountThrottle {
  tryConsume(input: ThrottleInput): Promise<boolean>;
  consumeSlot(input: ThrottleInput): Promise<{ ok: true } | { ok: false; retryAfter: number }>;
  lockedFor(policy: LockoutPolicy, subject: string, now?: number): Promise<number>;
  failureCount(policy: LockoutPolicy, subject: string, now?: number): Promise<number>;
  recordFailure(policy: LockoutPolicy, subject: string, now?: number): Promise<number>;
  clearFailures(policy: LockoutPolicy, subject: string): Promise<void>;
  markKnown(kind: string, subject: string, seconds: number, now?: number): Promise<void>;
  isKnown(kind: string, subject: string, now?: number): Promise<boolean>;
}

/**
 * What the account use cases talk to. Production: shared/auth/deps.ts (DynamoDB stores, bcrypt, the
 * system clock) and shared/auth/mail-deps.ts (adds SES); unit tests pass fakes.
 */
export interface AccountDeps {
  users: AccountUsers;
  throttle: AccountThrottle;
  /** Rows a new account starts with (INITIAL_LIMITS). */
  initialLimits(): number;
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

/**
 * Sign-in failures are counted three ways (issue 22: a lock per address let anyone keep a known seller
 * out). Per (address, source IP): 5 failures in 15 minutes, then locks of 30 s doubling up to 15
 * minutes — the guesser's own source is locked, the owner elsewhere is not.
 */
export const PAIR_LOCKOUT: LockoutPolicy = {
  kind: 'login_pair',
  free: 5,
  windowSeconds: 15 * 60,
  baseSeconds: 30,
  maxSeconds: 15 * 60,
};

/** Per source IP over all addresses: more room (offices share an address), same doubling locks. */
export const IP_LOCKOUT: LockoutPolicy = {
  kind: 'login_ip',
  free: 20,
  windowSeconds: 15 * 60,
  baseSeconds: 30,
  maxSeconds: 15 * 60,
};

/**
 * Per address over all sources: counted, never locked (`baseSeconds: 0`). From ACCOUNT_PACE.after
 * failures in the window on, the address is paced instead: at most one password check per
 * ACCOUNT_PACE.intervalSeconds, the rest answered 429 with a Retry-After of a few seconds. A guesser
 * spread over many sources gets 90 guesses per 15 minutes; the owner waits seconds, not minutes.
 */
export const ACCOUNT_FAILURES: LockoutPolicy = {
  kind: 'login_account',
  free: 20,
  windowSeconds: 15 * 60,
  baseSeconds: 0,
  maxSeconds: 0,
};

export const ACCOUNT_PACE = { after: ACCOUNT_FAILURES.free, intervalSeconds: 10 } as const;

/**
 * A source IP that signed in to an address is known to it for 30 days and skips the pace: a guesser
 * who takes every paced check cannot keep the owner out from where the owner signs in. (The pair and
 * IP locks still apply to it.) A new source of the owner competes for the paced check, answered
 * 429 with a Retry-After of at most ACCOUNT_PACE.intervalSeconds.
 */
export const KNOWN_SOURCE_SECONDS = 30 * 24 * 3600;

/** The per-(address, source) subject; without a source IP, every unknown source counts as one. */
function pairSubject(email: string, ip: string | undefined): string {
  return `${email}|${ip ?? '-'}`;
}

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
    await deps.users.createUser({ email, limits: deps.initialLimits() });
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
 * new password, once per token (its jti is recorded as used), and only while the password has not
 * changed since the link was issued: a later change (another link, the user's own) voids it → 400
 * invalid_token, also when the change lands between the read and the write (the store's condition).
 * The password goes out by mail only. Bad, expired or access tokens → 400 invalid_token.
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
  const issuedAt = issuedAtMs(payload);
  const before = resetLinkState(user, payload.jti, issuedAt);
  if (before === 'used') return { status: 'already_confirmed' };
  if (before === 'voided') throw badRequest('invalid_token', 'The link is invalid or has expired');
  const password = deps.passwords.generate();
  const applied = await deps.users.resetPasswordOnce({
    userId: user.id,
    jti: payload.jti,
    tokenExp: payload.exp,
    issuedAt: new Date(issuedAt).toISOString(),
    passwordHash: await deps.passwords.hash(password),
  });
  if (!applied) {
    // Lost a race: another open of this link (already_confirmed), or a password change in between,
    // which the store's condition refused (the link is void).
    const after = await deps.users.getUserById(user.id);
    if (after && resetLinkState(after, payload.jti, issuedAt) === 'voided')
      throw badRequest('invalid_token', 'The link is invalid or has expired');
    return { status: 'already_confirmed' };
  }
  await deps.mail.send(passwordMail(user.email, password, deps.appUrl(), 'reset'));
  return { status: 'confirmed', email: user.email };
}

/**
 * A reset link against the account as stored: `used` when this very link set the current password,
 * `voided` when the password changed after the link was issued by anything else (another link, a
 * change by the user), `usable` otherwise.
 */
function resetLinkState(user: UserRecord, jti: string, issuedAt: number): 'usable' | 'used' | 'voided' {
  if (user.password_reset_jti === jti) return 'used';
  if (user.password_changed_at && Date.parse(user.password_changed_at) > issuedAt) return 'voided';
  return 'usable';
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
 * Throttled before the password is looked at, known address or not (issues 12, 22): 429
 * too_many_attempts with Retry-After when this (address, source IP) or this source IP is locked
 * (PAIR_LOCKOUT, IP_LOCKOUT), or when the address has ACCOUNT_PACE.after failures in the window and
 * its one check per ACCOUNT_PACE.intervalSeconds is taken (a source known to the address skips the
 * pace, KNOWN_SOURCE_SECONDS). Every failure is counted for the pair, the
 * IP and the address; a success clears the pair's count and marks the source known (the address's
 * count runs out with its window, so a guesser cannot reset it through the owner's sign-in).
 */
export async function login(
  deps: Pick<AccountDeps, 'users' | 'throttle' | 'passwords' | 'clock'>,
  email: string,
  password: string,
  ip?: string,
): Promise<{ token: string; user: PublicUser }> {
  const now = nowMs(deps.clock);
  const pair = pairSubject(email, ip);
  const [pairWait, ipWait, addressFailures] = await Promise.all([
    deps.throttle.lockedFor(PAIR_LOCKOUT, pair, now),
    ip ? deps.throttle.lockedFor(IP_LOCKOUT, ip, now) : Promise.resolve(0),
    deps.throttle.failureCount(ACCOUNT_FAILURES, email, now),
  ]);
  if (pairWait > 0 || ipWait > 0) throw tooManyAttempts(Math.max(pairWait, ipWait));
  if (addressFailures >= ACCOUNT_PACE.after && !(ip && (await deps.throttle.isKnown('login_known', pair, now)))) {
    const slot = await deps.throttle.consumeSlot({
      kind: 'login_pace',
      subject: email,
      limit: 1,
      windowSeconds: ACCOUNT_PACE.intervalSeconds,
      now,
    });
    if (!slot.ok) throw tooManyAttempts(slot.retryAfter);
  }
  const user: UserRecord | null = await deps.users.getUserByEmail(email);
  let ok = false;
  if (!user || !user.confirmed || !user.password_hash) await deps.passwords.burn(password);
  else ok = await deps.passwords.verify(password, user.password_hash);
  if (!ok || !user) {
    await Promise.all([
      deps.throttle.recordFailure(PAIR_LOCKOUT, pair, now),
      ip ? deps.throttle.recordFailure(IP_LOCKOUT, ip, now) : null,
      deps.throttle.recordFailure(ACCOUNT_FAILURES, email, now),
    ]);
    throw unauthorized('Wrong email or password', 'invalid_credentials');
  }
  await Promise.all([
    deps.throttle.clearFailures(PAIR_LOCKOUT, pair),
    ip ? deps.throttle.markKnown('login_known', pair, KNOWN_SOURCE_SECONDS, now) : null,
  ]);
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
