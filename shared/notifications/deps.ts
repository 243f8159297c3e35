/**
 * The notifications' settings composition (docs/ARCHITECTURE.md «One wiring style»): the settings and
 * history routes and the public unsubscribe link, over the DynamoDB store. The delivery tick is
 * deliver-deps.ts, recording events record-deps.ts, the digest digest-deps.ts.
 */
import { getSettings, notificationStore, putSettings } from '../store/notifications.repo';
import { telegramLinkStore } from '../store/telegram-links.repo';
import { getUserById } from '../store/users.repo';
import type { PreferencesDeps, UnsubscribeDeps } from './preferences';
import { unsubscribeKey } from './unsubscribe-key';

/** The user's address, or null when the user is gone. */
export const userEmail = async (userId: string) => (await getUserById(userId))?.email ?? null;

/** The settings routes and the unsubscribe link. */
export const preferencesDeps: PreferencesDeps = {
  store: notificationStore,
  telegramLinks: telegramLinkStore,
  unsubscribeKey,
  userEmail,
};

/** The public unsubscribe link: the settings alone (no history, no cursor). */
export const unsubscribeDeps: UnsubscribeDeps = { store: { getSettings, putSettings }, unsubscribeKey, userEmail };
