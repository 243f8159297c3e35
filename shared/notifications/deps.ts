/**
 * The notifications' composition (docs/ARCHITECTURE.md «One wiring style»): the delivery tick (the
 * DynamoDB store, the mail channel over SES, the real clock) and the settings routes. Recording events
 * is record-deps.ts, the digest digest-deps.ts.
 */
import { systemClock } from '../deps';
import { sendMail } from '../mail/send';
import { newId } from '../store/keys';
import { getSettings, notificationStore, putSettings } from '../store/notifications.repo';
import { telegramLinkStore } from '../store/telegram-links.repo';
import { getUserById } from '../store/users.repo';
import type { DeliverDeps } from './deliver';
import { emailChannel } from './email-channel';
import type { PreferencesDeps, UnsubscribeDeps } from './preferences';
import { telegramChannel } from './telegram/channel';
import { telegramBot } from './telegram/deps';
import { unsubscribeKey } from './unsubscribe-key';

const userEmail = async (userId: string) => (await getUserById(userId))?.email ?? null;

const mail = emailChannel(sendMail);

/**
 * The delivery tick's dependencies: mail always, Telegram when the service has a bot (its token set or
 * loaded from its parameter before this is called), with the chats of the link store.
 */
export function deliverDeps(): DeliverDeps {
  const bot = telegramBot();
  return {
    store: notificationStore,
    channels: bot ? { email: mail, telegram: telegramChannel({ bot, links: telegramLinkStore }) } : { email: mail },
    telegramLinks: telegramLinkStore,
    userEmail,
    clock: systemClock,
    ids: { newId: () => newId() },
  };
}

/** The settings routes and the unsubscribe link. */
export const preferencesDeps: PreferencesDeps = {
  store: notificationStore,
  telegramLinks: telegramLinkStore,
  unsubscribeKey,
  userEmail,
};

/** The public unsubscribe link: the settings alone (no history, no cursor). */
export const unsubscribeDeps: UnsubscribeDeps = { store: { getSettings, putSettings }, unsubscribeKey, userEmail };
