/**
 * The notifications in the contract (docs/API.md «Notifications»; docs/NOTIFICATIONS.md): settings per
 * user, the history of what was sent, the unsubscribe link of the digest.
 */
import { z } from 'zod';
import { CHANNELS, EVENT_KINDS } from '../notifications/channel';

const eventChannels = z.object({ email: z.boolean(), telegram: z.boolean() });
const hhmm = z.string().describe('HH:MM, Moscow time');

export const notificationSettingsSchema = z.object({
  channels: z.object({
    email: z.object({ enabled: z.boolean(), address: z.string() }),
    telegram: z.object({
      status: z.enum(['not_linked', 'linked', 'broken']),
      username: z.string().nullable(),
      linked_at: z.string().nullable(),
    }),
  }),
  events: z.record(z.enum(EVENT_KINDS), eventChannels).describe('Per event kind: on for mail, on for Telegram'),
  quiet_hours: z.object({ from: hhmm, to: hhmm }).nullable().describe('Telegram messages wait until they end'),
  profit_drop_percent: z.number().int(),
});

/**
 * PUT: the settings a user may change (events left out keep what they had). Read loosely here; the use
 * case checks the values and answers 422 `invalid_notification_settings` naming the field
 * (shared/notifications/settings.ts settingsInputSchema).
 */
export const notificationSettingsBodySchema = z
  .object({
    events: z.record(z.string().max(64), eventChannels).describe('Event kind → {email, telegram}'),
    quiet_hours: z
      .object({ from: z.string().max(16), to: z.string().max(16) })
      .nullable()
      .describe('HH:MM–HH:MM Moscow time, may cross midnight; null: none'),
    profit_drop_percent: z.number().describe('A whole number of percent, 1–100'),
  })
  .describe('Which events on which channel, the quiet hours, the profit-drop threshold');

export const notificationHistoryQuerySchema = z.object({ cursor: z.string().max(1500).optional() });

export const notificationHistorySchema = z.object({
  items: z.array(
    z.object({
      event_key: z.string(),
      kind: z.enum(EVENT_KINDS),
      channel: z.enum(CHANNELS),
      status: z.enum(['sent', 'pending', 'held', 'failed']),
      subject: z.string(),
      created_at: z.string(),
      sent_at: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const unsubscribeQuerySchema = z.object({ token: z.string().max(2000).optional() });
