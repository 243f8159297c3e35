import { publicRoute, ROUTES } from '../../shared/http/public';
import { handleUpdate } from '../../shared/notifications/telegram/link';
import { webhookDeps } from '../../shared/notifications/telegram/deps';

/**
 * POST /api/telegram/webhook (public; Telegram alone calls it) → 200 with the bot's answer as a webhook
 * reply, or {}; 401 when the X-Telegram-Bot-Api-Secret-Token header is not the webhook secret.
 */
export const handler = publicRoute(ROUTES.telegramWebhook, { secrets: ['telegramWebhook'] }, async (req) => ({
  status: 200,
  body: (await handleUpdate(webhookDeps(), req.headers['x-telegram-bot-api-secret-token'], req.body)) ?? {},
}));
