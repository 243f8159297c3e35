import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../errors';
import { DEFAULT_ALLOCATION } from '../engine/allocation';
import { periodInForce, sortPeriods, type TaxPeriod } from '../engine/periods';
import { DEFAULT_TAX_PROFILE, type AllocationMethod, type TaxProfile } from '../engine/types';
import { ddb, putNew, tableName, updateExisting } from './client';
import { cancellationCodes, conditionHeld } from './dynamo-errors';
import { emailKey, newId, normalizeEmail, usedTokenKey, userKey } from './keys';
import { roleExists } from './roles.repo';
import { parseStored, RECORD_VERSIONS, storedUser } from './records';
import type { User } from '../contract/shapes';

export interface UserRecord {
  id: string;
  email: string;
  role: string;
  confirmed: boolean;
  /** bcrypt hash; absent until the confirmation link sets the first password. */
  password_hash?: string;
  limits: number;
  initial_limits: number;
  /** The default tax profile in force today (the period of tax_periods that applies now). */
  tax: TaxProfile;
  /** The default tax profile by date (docs/METRICS.md); one period from the beginning unless dated. */
  tax_periods: TaxPeriod[];
  /** How «Без артикула» costs are spread over the articles of this user's reports (default `realization`). */
  allocation: AllocationMethod;
  created_at: string;
  confirmed_at?: string;
  password_changed_at?: string;
  /** The jti of the reset link that set the current password (a second open of it is told apart from a voided link). */
  password_reset_jti?: string;
}

/** What the API shows of a user (the contract's User, `GET /api/auth/me`). */
export type PublicUser = User;

export function toPublicUser(u: UserRecord): PublicUser {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    confirmed: u.confirmed,
    limits: u.limits,
    initial_limits: u.initial_limits,
    tax: u.tax,
    tax_periods: u.tax_periods,
    allocation: u.allocation,
  };
}

/** The user of a stored item; StoredRecordError (naming the key) when it is not of the current shape. */
function fromItem(item: Record<string, unknown>): UserRecord {
  const u = parseStored('user', storedUser, item);
  const periods = u.tax_periods.map(cleanPeriod);
  return { ...u, tax: profileToday(periods), tax_periods: periods };
}

export function cleanPeriod(p: TaxPeriod): TaxPeriod {
  return {
    valid_from: p.valid_from ?? null,
    tax_system: p.tax_system,
    usn_rate: Number(p.usn_rate),
    vat_rate: Number(p.vat_rate),
  };
}

/** The profile of the period in force today. */
export function profileToday(periods: readonly TaxPeriod[]): TaxProfile {
  const p = periodInForce(periods, null) ?? { ...DEFAULT_TAX_PROFILE, valid_from: null };
  return { tax_system: p.tax_system, usn_rate: Number(p.usn_rate), vat_rate: Number(p.vat_rate) };
}

export interface NewUser {
  email: string;
  /** Defaults to `seller` when that role exists in the store, else `user`. */
  role?: string;
  confirmed?: boolean;
  passwordHash?: string;
  /** Rows the account starts with (the caller's setting: INITIAL_LIMITS for a sign-up). */
  limits: number;
}

/**
 * Creates a user and its email marker in ONE transaction; the marker's `attribute_not_exists`
 * condition is what makes emails unique under concurrent registrations.
 * Throws 409 `email_taken` when the address already has an account.
 */
export async function createUser(input: NewUser): Promise<UserRecord> {
  const email = normalizeEmail(input.email);
  const role = input.role ?? ((await roleExists('seller')) ? 'seller' : 'user');
  const limits = input.limits;
  const now = new Date().toISOString();
  const user: UserRecord = {
    id: newId(),
    email,
    role,
    confirmed: input.confirmed ?? false,
    limits,
    initial_limits: limits,
    tax: { ...DEFAULT_TAX_PROFILE },
    tax_periods: [{ valid_from: null, ...DEFAULT_TAX_PROFILE }],
    allocation: DEFAULT_ALLOCATION,
    created_at: now,
    ...(input.passwordHash ? { password_hash: input.passwordHash, password_changed_at: now } : {}),
    ...(input.confirmed ? { confirmed_at: now } : {}),
  };
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          putNew({ ...emailKey(email), type: 'email', email, user_id: user.id }),
          putNew({ ...userKey(user.id), type: 'user', v: RECORD_VERSIONS.user, ...user }),
        ],
      }),
    );
  } catch (e) {
    const codes = cancellationCodes(e);
    if (codes && codes[0] === 'ConditionalCheckFailed')
      throw conflict('email_taken', 'This email already has an account');
    throw e;
  }
  return user;
}

export async function getUserById(id: string): Promise<UserRecord | null> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: userKey(id), ConsistentRead: true }));
  return r.Item ? fromItem(r.Item) : null;
}

export async function getUserByEmail(email: string): Promise<UserRecord | null> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: emailKey(email), ConsistentRead: true }));
  const userId = r.Item?.user_id;
  return typeof userId === 'string' ? getUserById(userId) : null;
}

/**
 * Marks the user confirmed with their first password, only if not confirmed yet: when a mail scanner
 * and the person open the link at once, exactly one call returns true (and mails a password).
 */
export async function confirmUser(userId: string, passwordHash: string): Promise<boolean> {
  const now = new Date().toISOString();
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(userId),
        UpdateExpression: 'SET confirmed = :t, confirmed_at = :now, password_hash = :h, password_changed_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND confirmed = :f',
        ExpressionAttributeValues: { ':t': true, ':f': false, ':now': now, ':h': passwordHash },
      }),
    ),
  );
}

/** Replaces the password hash of an existing user (seed, admin tooling). */
export async function setPasswordHash(userId: string, passwordHash: string): Promise<void> {
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: userKey(userId),
      UpdateExpression: 'SET password_hash = :h, password_changed_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':h': passwordHash, ':now': new Date().toISOString() },
    }),
  );
}

/**
 * Sets a new password from a one-time reset link: the link's jti is recorded as used in the same
 * transaction, so each link sets a password at most once, and the update holds only while the password
 * was not changed after the link was issued (`issuedAt`, ISO; a change in between, by another link or
 * by the user, voids it). Returns false when the link was used before, was voided by a later change,
 * or the user is gone / not confirmed.
 */
export async function resetPasswordOnce(input: {
  userId: string;
  jti: string;
  tokenExp: number;
  /** When the link was signed (ISO 8601, the token's iat_ms). */
  issuedAt: string;
  passwordHash: string;
}): Promise<boolean> {
  const now = new Date().toISOString();
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          // Kept until the token expires anyway; DynamoDB's TTL sweeps it afterwards.
          putNew({
            ...usedTokenKey(input.jti),
            type: 'used_token',
            user_id: input.userId,
            used_at: now,
            ttl: input.tokenExp,
          }),
          {
            Update: {
              TableName: tableName(),
              Key: userKey(input.userId),
              UpdateExpression: 'SET password_hash = :h, password_changed_at = :now, password_reset_jti = :jti',
              ConditionExpression:
                'attribute_exists(pk) AND confirmed = :t AND (attribute_not_exists(password_changed_at) OR password_changed_at <= :issued)',
              ExpressionAttributeValues: {
                ':h': input.passwordHash,
                ':now': now,
                ':t': true,
                ':issued': input.issuedAt,
                ':jti': input.jti,
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (e) {
    if (cancellationCodes(e)?.includes('ConditionalCheckFailed')) return false;
    throw e;
  }
}

/**
 * Sets a new password chosen by the signed-in user, on the condition that the stored hash is still the
 * one the current password was checked against (two changes at once: one wins, the other gets false).
 * `password_changed_at` moves to now, which ends every session issued before it.
 */
export async function changePasswordHash(input: {
  userId: string;
  expectedHash: string;
  passwordHash: string;
  changedAt: string;
}): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userKey(input.userId),
        UpdateExpression: 'SET password_hash = :h, password_changed_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND password_hash = :old',
        ExpressionAttributeValues: { ':h': input.passwordHash, ':now': input.changedAt, ':old': input.expectedHash },
      }),
    ),
  );
}

/** Replaces the user-level default tax profile with one profile from the beginning (validated by the caller). */
export async function updateTax(userId: string, tax: TaxProfile): Promise<UserRecord> {
  return updateUserSettings(userId, { tax_periods: [{ valid_from: null, ...tax }] });
}

export interface UserSettingsPatch {
  /** Replaces the whole dated default profile (validated by the caller). */
  tax_periods?: TaxPeriod[];
  allocation?: AllocationMethod;
}

/** Sets the user's default tax periods (and `tax`, the one in force today) and/or the allocation method. */
export async function updateUserSettings(userId: string, patch: UserSettingsPatch): Promise<UserRecord> {
  const sets: string[] = [];
  const values: Record<string, unknown> = {};
  if (patch.tax_periods !== undefined) {
    const periods = sortPeriods(patch.tax_periods.map(cleanPeriod));
    sets.push('tax = :tax', 'tax_periods = :periods');
    values[':tax'] = profileToday(periods);
    values[':periods'] = periods;
  }
  if (patch.allocation !== undefined) {
    sets.push('allocation = :allocation');
    values[':allocation'] = patch.allocation;
  }
  if (sets.length === 0) {
    const u = await getUserById(userId);
    if (!u) throw notFound('User not found');
    return u;
  }
  const attributes = await updateExisting(
    {
      Key: userKey(userId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    },
    () => notFound('User not found'),
  );
  return fromItem(attributes ?? {});
}

export async function setRole(userId: string, role: string): Promise<void> {
  await updateExisting(
    {
      Key: userKey(userId),
      UpdateExpression: 'SET #role = :role',
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':role': role },
    },
    () => notFound('User not found'),
  );
}
