import { randomInt } from 'node:crypto';
import bcrypt from 'bcryptjs';

/**
 * Letters and digits without the look-alikes 0/O, 1/l/I: the password arrives by mail and people
 * retype it. 56 symbols → 16 characters carry ~93 bits.
 */
export const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
export const PASSWORD_LENGTH = 16;

/** A random password from a CSPRNG (crypto.randomInt has no modulo bias). */
export function generatePassword(length = PASSWORD_LENGTH): string {
  if (length < 12) throw new Error('Passwords are at least 12 characters');
  let out = '';
  for (let i = 0; i < length; i++) out += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return out;
}

/** bcrypt hash of `cost` (the composition passes BCRYPT_COST; config enforces ≥ 10). */
export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

let dummyHash: string | undefined;

/**
 * Spends the time of one bcrypt comparison for a login whose email is unknown or unconfirmed, so the
 * answer time does not tell which addresses have accounts.
 */
export async function burnPasswordCheck(password: string, cost: number): Promise<void> {
  dummyHash ??= await bcrypt.hash(generatePassword(), cost);
  await bcrypt.compare(password, dummyHash);
}
