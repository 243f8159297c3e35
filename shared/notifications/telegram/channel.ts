/**
 * The Telegram channel of the notification core (shared/notifications/channel.ts): one message to the
 * user's linked chat by `sendMessage`, as HTML (`<b>subject</b>`, the text, the link), everything of ours
 * escaped. It never retries by itself; a chat that blocked the bot is marked broken in the link store, so
 * the page asks the seller to link again and the core stops trying.
 */
import type { NotificationChannel, OutgoingMessage, TelegramLinks } from '../channel';
import { MAX_MESSAGE_CHARS, type BotApi } from './bot-api';

export interface TelegramChannelDeps {
  bot: BotApi;
  links: Pick<TelegramLinks, 'markBroken'>;
}

/** Text for Telegram's HTML parse mode: `&`, `<`, `>` and `"` as entities (its documented set). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
}

/** The message's HTML: the subject in bold, the text, the link; the text cut to fit Telegram's 4096 characters. */
export function telegramText(m: Pick<OutgoingMessage, 'subject' | 'text' | 'link'>): string {
  const head = `<b>${escapeHtml(m.subject)}</b>\n`;
  // The link, unless the text already gives it.
  const tail = m.link && !m.text.includes(m.link) ? `\n${escapeHtml(m.link)}` : '';
  let body = escapeHtml(m.text);
  const room = MAX_MESSAGE_CHARS - head.length - tail.length;
  if (body.length > room) {
    // Cut before an entity rather than through it, and say that the rest is on the page.
    let cut = body.slice(0, Math.max(0, room - 1));
    const amp = cut.lastIndexOf('&');
    if (amp >= 0 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
    body = `${cut}…`;
  }
  return `${head}${body}${tail}`;
}

export function telegramChannel(deps: TelegramChannelDeps): NotificationChannel {
  return {
    name: 'telegram',
    async send(to, m) {
      if (to.telegramChatId === undefined) return { ok: false, retry: false, reason: 'not_linked' };
      const r = await deps.bot.sendMessage({
        chat_id: to.telegramChatId,
        text: telegramText(m),
        parse_mode: 'HTML',
        disable_web_page_preview: true,
      });
      if (!r.ok && !r.retry && r.reason === 'blocked') await deps.links.markBroken(to.userId);
      return r;
    },
  };
}
