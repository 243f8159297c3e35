/**
 * The notifications' composition (docs/ARCHITECTURE.md «One wiring style»): the delivery tick (the
 * DynamoDB store, the mail channel over SES, the real clock) and the settings routes. Recording events
 * is record-deps.ts, the digest digest-deps.ts.
 */
import { systemClock } from '../deps';
import { sendMail } from '../mail/send';
import { newId } from '../store/keys';
import { getSettings, notificationStore, putSettings } from '../store/notifications.repo';
import { getUserById } from '../store/users.repo';
import type { DeliverDeps } from './deliver';
import { emailChannel } from './email-channel';
import type { PreferencesDeps, UnsubscribeDeps } from './preferences';
import { unsubscribeKey } from './unsubscribe-key';

const userEmail = async (userId: string) => (await getUserById(userId))?.email ?? null;

export const deliverDeps: DeliverDeps = {
  store: notificationStore,
  // telegram channel: wired at merge (`telegram: telegramChannel(...)`, and `telegramLinks` below)
  channels: { email: emailChannel(sendMail) },
  userEmail,
  clock: systemClock,
  ids: { newId: () => newId() },
};

/** The settings routes and the unsubscribe link. */
export const preferencesDeps: PreferencesDeps = {
  store: notificationStore,
  // telegram links: wired at merge (`telegramLinks: <the Telegram link store>`)
  unsubscribeKey,
  userEmail,
};

/** The public unsubscribe link: the settings alone (no history, no cursor). */
export const unsubscribeDeps: UnsubscribeDeps = { store: { getSettings, putSettings }, unsubscribeKey, userEmail };
