import { noContent, routes } from '../../shared/http';
import { createLinkCode, telegramStatus, unlinkTelegram } from '../../shared/notifications/telegram/link';
import { linkDeps, telegramBot } from '../../shared/notifications/telegram/deps';

/** ONE Lambda serves the caller's three Telegram routes (docs/NOTIFICATIONS.md «Telegram»). */
export const handler = routes(
  {
    /** GET /api/notifications/telegram → {configured, bot_name, link}: link null, linked or broken. */
    telegramStatus: async (req) => ({ status: 200, body: await telegramStatus(linkDeps(), req.user.id) }),
    /** POST /api/notifications/telegram/link → 201 {code, url, expires_at}; 503 telegram_not_configured. */
    telegramLink: async (req) => ({ status: 201, body: await createLinkCode(linkDeps(), req.user.id) }),
    /** DELETE /api/notifications/telegram → 204; the chat is told, best effort. */
    telegramUnlink: async (req) => {
      await unlinkTelegram({ store: linkDeps().store, bot: telegramBot() }, req.user.id);
      return noContent();
    },
  },
  // Only unlinking talks to Telegram (to tell the chat).
  {
    telegramUnlink: { secrets: ['jwt', 'telegramBot'] },
  },
);
