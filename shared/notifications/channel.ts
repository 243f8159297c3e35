/**
 * What the notification core and its delivery channels agree on (docs/NOTIFICATIONS.md): an event is
 * detected once (its `key` is stable: the same event found again has the same key), and each channel
 * delivers it at most once per user (the ledger in the notification store is keyed by event key and
 * channel). A channel sends one message and says what happened; it never retries by itself: the core
 * keeps the message and tries again with backoff, so a crash or an outage loses nothing and sends
 * nothing twice.
 */

/** The kinds of event a seller can be told of; each can be switched on or off per channel. */
export const EVENT_KINDS = [
  'report_ready',
  'reconciliation_mismatch',
  'sync_problem',
  'token_expiring',
  'limits_low',
  'profit_drop',
  'penalties',
  'payout',
  'digest',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const CHANNELS = ['email', 'telegram'] as const;
export type ChannelName = (typeof CHANNELS)[number];

/** One message for one user on one channel. */
export interface OutgoingMessage {
  userId: string;
  /** The event's stable key, e.g. `report_ready:<report id>`; with the channel, it identifies the delivery. */
  eventKey: string;
  kind: EventKind;
  /** A short title (the mail's subject; Telegram's first line, bold). */
  subject: string;
  /** Plain text, Russian; Telegram sends this (with `link` appended). */
  text: string;
  /** The mail's HTML part (email only). */
  html?: string;
  /** The page in the web app this message is about. */
  link?: string;
  /** Mail headers besides the usual ones (List-Unsubscribe, List-Unsubscribe-Post). */
  headers?: Record<string, string>;
}

/** Where a user's messages go on a channel: the address or chat the channel needs. */
export interface Recipient {
  userId: string;
  email: string;
  /** The linked Telegram chat, when there is one and it is not broken. */
  telegramChatId?: number;
}

export type SendResult =
  | { ok: true }
  /** Try again later: after `retryAfterMs` when the channel said so (Telegram's 429 `retry_after`). */
  | { ok: false; retry: true; retryAfterMs?: number; reason: string }
  /** Never again on this channel until the user acts: the chat blocked the bot (403), no chat linked. */
  | { ok: false; retry: false; reason: 'blocked' | 'not_linked' | 'rejected' };

export interface NotificationChannel {
  name: ChannelName;
  send(to: Recipient, m: OutgoingMessage): Promise<SendResult>;
}

/** The user's Telegram link as the notification core reads it (owned by the Telegram module's store). */
export interface TelegramLink {
  chat_id: number;
  /** `broken` when the chat blocked the bot: the page says so and asks to link again. */
  status: 'linked' | 'broken';
  username?: string;
  linked_at: string;
}

export interface TelegramLinks {
  getLink(userId: string): Promise<TelegramLink | null>;
  /** Marks the link broken (the chat answered 403). */
  markBroken(userId: string): Promise<void>;
}
