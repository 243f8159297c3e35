/**
 * The real dependencies of the account use cases (shared/auth/accounts.ts): the DynamoDB user and
 * throttle stores, SES, bcrypt and the system clock. The handlers in functions/auth pass these;
 * unit tests pass fakes of the same shape.
 */
import { getConfig } from '../config';
import { systemClock } from '../deps';
import { sendMail } from '../mail/send';
import * as throttle from '../store/throttle.repo';
import * as users from '../store/users.repo';
import type { AccountDeps } from './accounts';
import { burnPasswordCheck, generatePassword, hashPassword, verifyPassword } from './passwords';

export const accountDeps: AccountDeps = {
  users,
  throttle,
  mail: { send: sendMail },
  passwords: { hash: hashPassword, verify: verifyPassword, burn: burnPasswordCheck, generate: () => generatePassword() },
  clock: systemClock,
  appUrl: () => getConfig().APP_URL,
};
