/** Every dependency of the account use cases, SES included: for register, confirm and forgot password. */
import { getConfig } from '../config';
import { sendMail } from '../mail/send';
import type { AccountDeps } from './accounts';
import { signInDeps } from './deps';

export const accountDeps: AccountDeps = {
  ...signInDeps,
  mail: { send: sendMail },
  appUrl: () => getConfig().APP_URL,
  initialLimits: () => getConfig().INITIAL_LIMITS,
};
