/**
 * The delivery tick's composition (docs/ARCHITECTURE.md «One wiring style»): the DynamoDB store, the
 * mail channel over SES, the Telegram channel when the service has a bot, the real clock. Apart from
 * deps.ts (the settings routes), so that those functions carry no mail or Telegram client.
 */
import { systemClock } from '../deps';
import { sendMail } from '../mail/send';
import { newId } from '../store/keys';
import { notificationStore } from '../store/notifications.repo';
import { telegramLinkStore } from '../store/telegram-links.repo';
import type { DeliverDeps } from './deliver';
import { userEmail } from './deps';
import { emailChannel } from './email-channel';
import { telegramChannel } from './telegram/channel';
import { telegramBot } from './telegram/deps';

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
