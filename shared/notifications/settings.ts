/**
 * A user's notification settings (docs/NOTIFICATIONS.md): which events go on which channel, the quiet
 * hours (Moscow time) and the profit-drop threshold. Stored once per user; a user who never saved any
 * has the defaults: every event by mail and Telegram (Telegram only once linked), the digest by mail.
 */
import { z } from 'zod';
import { EVENT_KINDS, type ChannelName, type EventKind } from './channel';
import type { QuietHours } from './rules';

export interface EventChannels {
  email: boolean;
  telegram: boolean;
}

export interface NotificationSettings {
  events: Record<EventKind, EventChannels>;
  quiet_hours: QuietHours | null;
  /** A week's profit this many percent under the previous four weeks' average is a drop. */
  profit_drop_percent: number;
}

export const DEFAULT_PROFIT_DROP_PERCENT = 20;

export function defaultSettings(): NotificationSettings {
  const events = {} as Record<EventKind, EventChannels>;
  for (const k of EVENT_KINDS) events[k] = { email: true, telegram: k !== 'digest' };
  return { events, quiet_hours: null, profit_drop_percent: DEFAULT_PROFIT_DROP_PERCENT };
}

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM');
const eventChannels = z.object({ email: z.boolean(), telegram: z.boolean() });

/** The settings as a user sends them (PUT) and as stored: every event optional (a missing one keeps its default). */
export const settingsInputSchema = z.object({
  events: z.partialRecord(z.enum(EVENT_KINDS), eventChannels),
  quiet_hours: z.object({ from: hhmm, to: hhmm }).nullable(),
  profit_drop_percent: z.number().int().min(1).max(100),
});
export type SettingsInput = z.infer<typeof settingsInputSchema>;

/** Stored or sent settings over the defaults. */
export function withDefaults(input: SettingsInput | null): NotificationSettings {
  const d = defaultSettings();
  if (!input) return d;
  for (const k of EVENT_KINDS) {
    const e = input.events[k];
    if (e) d.events[k] = { email: e.email, telegram: e.telegram };
  }
  return { events: d.events, quiet_hours: input.quiet_hours, profit_drop_percent: input.profit_drop_percent };
}

/** Is `kind` on for `channel`? */
export const wants = (s: NotificationSettings, kind: EventKind, channel: ChannelName): boolean =>
  s.events[kind][channel];
