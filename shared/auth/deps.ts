/**
 * The real dependencies of the account use cases (shared/auth/accounts.ts): the DynamoDB user and
 * throttle stores, bcrypt at the configured cost and the system clock; shared/auth/mail-deps.ts adds SES for the use cases
 * that mail. The handlers in functions/auth pass these; unit tests pass fakes of the same shape.
 * Two modules, so that sign-in and a password change do not load the SES client.
 */
import { getConfig } from '../config';
import { systemClock } from '../deps';
import * as throttle from '../store/throttle.repo';
import * as users from '../store/users.repo';
import type { AccountDeps } from './accounts';
import { burnPasswordCheck, generatePassword, hashPassword, verifyPassword } from './passwords';

/** What sign-in and a password change use: no mail. */
export const signInDeps: Pick<AccountDeps, 'users' | 'throttle' | 'passwords' | 'clock'> = {
  users,
  throttle,
  passwords: {
    hash: (password) => hashPassword(password, getConfig().BCRYPT_COST),
    verify: verifyPassword,
    burn: (password) => burnPasswordCheck(password, getConfig().BCRYPT_COST),
    generate: () => generatePassword(),
  },
  clock: systemClock,
};
