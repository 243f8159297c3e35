/**
 * Account use cases of docs/API.md "Auth". Handlers in functions/auth parse input and shape output; the
 * rules live here.
 */
import { getConfig } from '../config';
import { badRequest, conflict, tooManyAttempts, unauthorized } from '../errors';
import { accountExistsMail, confirmationMail, confirmLink, passwordMail, resetMail } from '../mail/messages';
import { sendMail } from '../mail/send';
import {
  clearFailures,
  consumeSlot,
  lockedFor,
  recordFailure,
  tryConsume,
  type LockoutPolicy,
} from '../store/throttle.repo';
import {
  confirmUser,
  createUser,
  getUserByEmail,
  changePasswordHash,
  getUserById,
  resetPasswordOnce,
  toPublicUser,
  type PublicUser,
  type UserRecord,
} from '../store/users.repo';
import { burnPasswordCheck, generatePassword, hashPassword, verifyPassword } from './passwords';
import { signToken, verifyToken } from './tokens';

/** docs/API.md: at most 3 confirmation (or reset) mails per hour per address. */
export const MAILS_PER_HOUR = 3;

function mailSlot(kind: 'confirm_mail' | 'reset_mail', email: string): Promise<boolean> {
  return tryConsume({ kind, subject: email, limit: MAILS_PER_HOUR, windowSeconds: 3600 });
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
async function ipSlot(kind: 'register_ip' | 'reset_ip', ip: string | undefined): Promise<void> {
  if (!ip) return;
  const slot = await consumeSlot({ kind, subject: ip, limit: REQUESTS_PER_IP_PER_HOUR, windowSeconds: 3600 });
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
export async function register(email: string, ip?: string): Promise<RegisterOutcome> {
  await ipSlot('register_ip', ip);
  let created = false;
  let refused: unknown = null;
  try {
    await createUser({ email });
    created = true;
  } catch (e) {
    // email_taken, or a concurrent registration of the same address: the account is read next.
    refused = e;
  }
  const user = await getUserByEmail(email);
  if (!user) throw refused ?? new Error('register: the account is missing right after its creation');
  if (!(await mailSlot('confirm_mail', user.email))) return 'throttled';
  if (user.confirmed) {
    await sendMail(accountExistsMail(user.email, getConfig().APP_URL));
    return 'already_confirmed';
  }
  const token = signToken({ user_id: user.id }, 'confirm');
  await sendMail(confirmationMail(user.email, confirmLink(getConfig().APP_URL, token)));
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
export async function confirm(token: string): Promise<ConfirmResult> {
  const payload = verifyToken(token, ['confirm', 'reset']);
  const user = await getUserById(payload.user_id);
  if (!user) throw badRequest('invalid_token', 'The link is invalid or has expired');
  if (payload.scenario === 'confirm') {
    if (user.confirmed) return { status: 'already_confirmed' };
    const password = generatePassword();
    if (!(await confirmUser(user.id, await hashPassword(password)))) return { status: 'already_confirmed' };
    await sendMail(passwordMail(user.email, password, getConfig().APP_URL, 'confirmed'));
    return { status: 'confirmed', email: user.email };
  }
  if (!user.confirmed) throw badRequest('invalid_token', 'The link is invalid or has expired');
  const password = generatePassword();
  const applied = await resetPasswordOnce({
    userId: user.id,
    jti: payload.jti,
    tokenExp: payload.exp,
    passwordHash: await hashPassword(password),
  });
  if (!applied) return { status: 'already_confirmed' };
  await sendMail(passwordMail(user.email, password, getConfig().APP_URL, 'reset'));
  return { status: 'confirmed', email: user.email };
}

export type ForgotOutcome = 'sent' | 'throttled' | 'ignored';

/** Forgot password: a confirmed user gets a one-time reset link (1 h), within the hourly mail budget. */
export async function forgotPassword(email: string, ip?: string): Promise<ForgotOutcome> {
  await ipSlot('reset_ip', ip);
  const user = await getUserByEmail(email);
  if (!user || !user.confirmed) return 'ignored';
  if (!(await mailSlot('reset_mail', user.email))) return 'throttled';
  const token = signToken({ user_id: user.id }, 'reset');
  await sendMail(resetMail(user.email, confirmLink(getConfig().APP_URL, token)));
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
  email: string,
  password: string,
  ip?: string,
): Promise<{ token: string; user: PublicUser }> {
  const [accountWait, ipWait] = await Promise.all([
    lockedFor(ACCOUNT_LOCKOUT, email),
    ip ? lockedFor(IP_LOCKOUT, ip) : Promise.resolve(0),
  ]);
  if (accountWait > 0 || ipWait > 0) throw tooManyAttempts(Math.max(accountWait, ipWait));
  const user: UserRecord | null = await getUserByEmail(email);
  let ok = false;
  if (!user || !user.confirmed || !user.password_hash) await burnPasswordCheck(password);
  else ok = await verifyPassword(password, user.password_hash);
  if (!ok || !user) {
    await Promise.all([recordFailure(ACCOUNT_LOCKOUT, email), ip ? recordFailure(IP_LOCKOUT, ip) : null]);
    throw unauthorized('Wrong email or password', 'invalid_credentials');
  }
  await clearFailures(ACCOUNT_LOCKOUT, email);
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
  user: UserRecord,
  currentPassword: string,
  newPassword: string,
): Promise<{ token: string; user: PublicUser }> {
  if (!user.password_hash || !(await verifyPassword(currentPassword, user.password_hash)))
    throw badRequest('invalid_current_password', 'The current password is wrong');
  if ([...newPassword].length < MIN_PASSWORD_LENGTH)
    throw badRequest('weak_password', `The new password must have at least ${MIN_PASSWORD_LENGTH} characters`, {
      min_length: MIN_PASSWORD_LENGTH,
    });
  const changed = await changePasswordHash({
    userId: user.id,
    expectedHash: user.password_hash,
    passwordHash: await hashPassword(newPassword),
    changedAt: new Date().toISOString(),
  });
  if (!changed) throw conflict('password_changed', 'The password was changed by another request');
  // Signed after the change: its iat_ms is not older than password_changed_at.
  return { token: signToken({ user_id: user.id }, 'access'), user: toPublicUser(user) };
}
