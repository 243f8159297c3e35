/**
 * Schemas of the Telegram routes (docs/NOTIFICATIONS.md «Telegram»): the caller's link, a link code, the webhook's update
 * and its answer.
 */
import { z } from 'zod';

export const telegramLinkSchema = z
  .object({
    chat_id: z.number().int(),
    status: z.enum(['linked', 'broken']).describe('`broken`: the chat blocked the bot; link again'),
    username: z.string().optional().describe('The Telegram username (without @), when the chat has one'),
    linked_at: z.string().describe('ISO date-time'),
  })
  .meta({ id: 'TelegramLink' });

export const telegramStatusSchema = z
  .object({
    configured: z.boolean().describe('false: the service has no bot (TELEGRAM_BOT_NAME unset)'),
    bot_name: z.string().nullable(),
    link: telegramLinkSchema.nullable(),
  })
  .meta({ id: 'TelegramStatus' });

export const telegramLinkCodeSchema = z
  .object({
    code: z.string().describe('One-time code, valid 15 minutes'),
    url: z.string().describe('`https://t.me/<bot>?start=<code>`: opens the bot, which receives the code'),
    expires_at: z.string().describe('ISO date-time'),
  })
  .meta({ id: 'TelegramLinkCode' });

/** Telegram's Update as it arrives: read by the use case, which ignores what it does not know. */
export const telegramUpdateSchema = z
  .looseObject({})
  .describe('A Telegram Update (https://core.telegram.org/bots/api#update)');

export const telegramWebhookReplySchema = z
  .union([z.object({ method: z.literal('sendMessage'), chat_id: z.number().int(), text: z.string() }), z.object({})])
  .describe("The bot's answer as a webhook reply (Telegram performs the sendMessage), or {} for nothing to say");
