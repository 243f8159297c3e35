/**
 * Linking a seller's Telegram chat (docs/NOTIFICATIONS.md «Telegram»): the page asks for a one-time code and opens the
 * deep link `https://t.me/<bot>?start=<code>`; Telegram sends the bot `/start <code>` from the seller's
 * chat, and the webhook links that chat to the code's user. `/stop` in the chat or «Отвязать» on the page
 * unlinks. No AWS and no HTTP here: the store, the bot and the clock come in `deps`.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../deps';
import { appError, unauthorized } from '../../errors';
import type { TelegramLink } from '../channel';
import type { TelegramLinkStore } from '../../store/telegram-links.repo';
import type { BotApi } from './bot-api';

/** How long a link code may be used. */
export const LINK_CODE_TTL_MS = 15 * 60_000;

/** A fresh code: 24 random bytes (192 bits), base64url (Telegram's start parameter takes A–Z a–z 0–9 _ -). */
export const newLinkCode = (): string => randomBytes(24).toString('base64url');

export interface LinkDeps {
  store: TelegramLinkStore;
  clock: Clock;
  /** TELEGRAM_BOT_NAME; empty: Telegram is not configured. */
  botName: string;
  newCode?: () => string;
}

/** What the page shows of the caller's link: null when none. */
export interface TelegramStatus {
  configured: boolean;
  bot_name: string | null;
  link: TelegramLink | null;
}

export async function telegramStatus(deps: LinkDeps, userId: string): Promise<TelegramStatus> {
  return {
    configured: deps.botName !== '',
    bot_name: deps.botName || null,
    link: await deps.store.getLink(userId),
  };
}

/**
 * A one-time code for the caller, valid LINK_CODE_TTL_MS, and the deep link that sends it to the bot.
 * 503 telegram_not_configured when the service has no bot.
 */
export async function createLinkCode(
  deps: LinkDeps,
  userId: string,
): Promise<{ code: string; url: string; expires_at: string }> {
  if (!deps.botName) throw appError('telegram_not_configured', 'TELEGRAM_BOT_NAME is not set');
  const code = (deps.newCode ?? newLinkCode)();
  const expiresAt = new Date(deps.clock.now().getTime() + LINK_CODE_TTL_MS);
  await deps.store.createCode(userId, code, expiresAt);
  return { code, url: `https://t.me/${deps.botName}?start=${code}`, expires_at: expiresAt.toISOString() };
}

export const UNLINKED_FROM_PAGE =
  'Telegram отвязан от сервиса в Настройках: уведомления сюда больше не придут. Привязать снова можно там же.';

/**
 * Unlinks the caller's chat (nothing linked: nothing to do) and tells the chat so, best effort: a chat
 * that blocked the bot, or Telegram down, does not stop the unlinking.
 */
export async function unlinkTelegram(deps: { store: TelegramLinkStore; bot: BotApi | null }, userId: string) {
  const removed = await deps.store.unlink(userId);
  if (removed && removed.status === 'linked' && deps.bot)
    await deps.bot.sendMessage({ chat_id: removed.chat_id, text: UNLINKED_FROM_PAGE }).catch(() => undefined);
}

// --- the webhook ---

/** What the bot says (Russian, plain text). */
export const BOT_TEXT = {
  linked:
    'Готово: уведомления сервиса будут приходить сюда. Какие события присылать, выберите в Настройках → Уведомления. Отключить: /stop',
  expired:
    'Код привязки устарел: он действует 15 минут. Получите новый в Настройках сервиса (раздел «Уведомления», кнопка «Привязать Telegram») и откройте ссылку ещё раз.',
  used: 'Этот код привязки уже использован. Если чат ещё не привязан, получите новый код в Настройках сервиса (раздел «Уведомления», кнопка «Привязать Telegram»).',
  unknown:
    'Код привязки не найден. Получите новый в Настройках сервиса (раздел «Уведомления», кнопка «Привязать Telegram») и откройте ссылку оттуда.',
  stopped: 'Уведомления отключены: этот чат отвязан от сервиса. Привязать снова можно в Настройках сервиса.',
  notLinked: 'Этот чат не привязан к сервису. Привязать его можно в Настройках сервиса (раздел «Уведомления»).',
  help: 'Это бот уведомлений сервиса отчётов WB. Привязать чат: Настройки → Уведомления → «Привязать Telegram». Отключить уведомления: /stop',
  privateOnly: 'Привязать можно только личный чат с ботом.',
} as const;

/** The parts of Telegram's Update the bot reads; anything else in it is ignored. */
const updateSchema = z
  .object({
    update_id: z.number().int(),
    message: z
      .object({
        chat: z.object({ id: z.number().int(), type: z.string().max(32) }).loose(),
        from: z
          .object({ username: z.string().max(64).optional() })
          .loose()
          .optional(),
        text: z.string().max(4096).optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

/** The webhook's answer: a sendMessage in the reply (Telegram performs it), or nothing to say. */
export type WebhookReply = { method: 'sendMessage'; chat_id: number; text: string } | null;

export interface WebhookDeps {
  store: TelegramLinkStore;
  clock: Clock;
  /** TELEGRAM_WEBHOOK_SECRET; undefined: not configured, and every update is refused. */
  secret: string | undefined;
}

/** The header's value against the secret, in time that does not depend on where they differ. */
export function secretMatches(given: string | undefined, expected: string | undefined): boolean {
  if (!expected || given === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

const START = /^\/start(?:@\w+)?(?:\s+(\S+))?\s*$/;
const STOP = /^\/stop(?:@\w+)?\s*$/;

/**
 * One update from Telegram. Throws 401 (nothing read, nothing changed) when the secret header does not
 * match. Otherwise answers for every update, handled or ignored, so Telegram does not send it again:
 * `/start <code>` links the chat (or says why not), `/stop` unlinks it, other text gets the help, and
 * anything that is not a text message in a chat is ignored.
 */
export async function handleUpdate(
  deps: WebhookDeps,
  secretHeader: string | undefined,
  body: unknown,
): Promise<WebhookReply> {
  if (!secretMatches(secretHeader, deps.secret)) throw unauthorized('Wrong X-Telegram-Bot-Api-Secret-Token');
  const u = updateSchema.safeParse(body);
  const m = u.success ? u.data.message : undefined;
  if (!m || m.text === undefined) return null;
  const reply = (text: string): WebhookReply => ({ method: 'sendMessage', chat_id: m.chat.id, text });
  const text = m.text.trim();

  const start = START.exec(text);
  if (start) {
    const code = start[1];
    if (!code) return reply(BOT_TEXT.help);
    if (m.chat.type !== 'private') return reply(BOT_TEXT.privateOnly);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(code)) return reply(BOT_TEXT.unknown);
    const now = deps.clock.now();
    const used = await deps.store.useCode(code, now);
    if (!used.ok) return reply(BOT_TEXT[used.reason]);
    await deps.store.link(used.userId, { chat_id: m.chat.id, username: m.from?.username }, now);
    return reply(BOT_TEXT.linked);
  }
  if (STOP.test(text)) {
    const userId = await deps.store.userOfChat(m.chat.id);
    if (!userId) return reply(BOT_TEXT.notLinked);
    await deps.store.unlink(userId);
    return reply(BOT_TEXT.stopped);
  }
  return reply(BOT_TEXT.help);
}
