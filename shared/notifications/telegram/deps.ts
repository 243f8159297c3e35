/**
 * The Telegram module's composition: the real store, clock and bot, wired once per process from the
 * settings and the secrets (the handler's HTTP stack loads the secrets before the route runs).
 */
import { getConfig } from '../../config';
import { systemClock } from '../../deps';
import { optionalSecret } from '../../secrets';
import { telegramLinkStore } from '../../store/telegram-links.repo';
import { createBotApi, createPacer, type BotApi } from './bot-api';
import type { LinkDeps, WebhookDeps } from './link';

/** One pacer per process (a Lambda container): Telegram's limits are kept within it (bot-api.ts). */
const pacer = createPacer({ clock: systemClock, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });

/** The bot, or null when no token is set (Telegram not configured). */
export function telegramBot(): BotApi | null {
  const token = optionalSecret('telegramBot');
  if (!token) return null;
  return createBotApi({ apiUrl: getConfig().TELEGRAM_API_URL, token, pacer });
}

export const linkDeps = (): LinkDeps => ({
  store: telegramLinkStore,
  clock: systemClock,
  botName: getConfig().TELEGRAM_BOT_NAME,
});

export const webhookDeps = (): WebhookDeps => ({
  store: telegramLinkStore,
  clock: systemClock,
  secret: optionalSecret('telegramWebhook'),
});
