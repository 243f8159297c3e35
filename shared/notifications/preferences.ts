/**
 * The settings routes' use cases (docs/API.md «Notifications»): read and change a user's notification
 * settings, the history of deliveries, and the digest's unsubscribe link (no sign-in).
 */
import { unprocessable } from '../errors';
import { EVENT_KINDS, type EventKind, type TelegramLinks } from './channel';
import type { Delivery, NotificationStore } from './ports';
import { settingsInputSchema, withDefaults, type NotificationSettings, type SettingsInput } from './settings';
import { verifyUnsubscribe } from './unsubscribe-token';

export interface PreferencesDeps {
  store: Pick<NotificationStore, 'getSettings' | 'putSettings' | 'history'>;
  /** The Telegram link (not wired: every user is `not_linked`). */
  telegramLinks?: TelegramLinks;
  /** The key unsubscribe tokens are signed with. */
  unsubscribeKey(): string;
  userEmail(userId: string): Promise<string | null>;
}

export interface SettingsView extends NotificationSettings {
  channels: {
    email: { enabled: boolean; address: string };
    telegram: { status: 'not_linked' | 'linked' | 'broken'; username: string | null; linked_at: string | null };
  };
}

async function view(
  deps: PreferencesDeps,
  userId: string,
  email: string,
  s: NotificationSettings,
): Promise<SettingsView> {
  const link = deps.telegramLinks ? await deps.telegramLinks.getLink(userId) : null;
  return {
    channels: {
      email: { enabled: EVENT_KINDS.some((k) => s.events[k].email), address: email },
      telegram: link
        ? { status: link.status, username: link.username ?? null, linked_at: link.linked_at }
        : { status: 'not_linked', username: null, linked_at: null },
    },
    events: s.events,
    quiet_hours: s.quiet_hours,
    profit_drop_percent: s.profit_drop_percent,
  };
}

/** GET /api/notifications/settings: the stored settings over the defaults, with the channels' state. */
export async function getNotificationSettings(
  deps: PreferencesDeps,
  user: { id: string; email: string },
): Promise<SettingsView> {
  return view(deps, user.id, user.email, withDefaults(await deps.store.getSettings(user.id)));
}

/**
 * PUT /api/notifications/settings: checked (422 `invalid_notification_settings` naming the field), events
 * left out keep what they had, stored, answered as GET answers.
 */
export async function putNotificationSettings(
  deps: PreferencesDeps,
  user: { id: string; email: string },
  body: unknown,
): Promise<SettingsView> {
  const r = settingsInputSchema.safeParse(body);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = issue.path.join('.') || 'body';
    throw unprocessable('invalid_notification_settings', `${field}: ${issue.message}`, { field });
  }
  const current = withDefaults(await deps.store.getSettings(user.id));
  const merged: SettingsInput = {
    events: { ...current.events, ...r.data.events },
    quiet_hours: r.data.quiet_hours,
    profit_drop_percent: r.data.profit_drop_percent,
  };
  await deps.store.putSettings(user.id, merged);
  return view(deps, user.id, user.email, withDefaults(merged));
}

export const HISTORY_PAGE = 20;

/** GET /api/notifications: deliveries newest first, 20 a page. */
export async function notificationHistory(
  deps: PreferencesDeps,
  userId: string,
  cursor?: string,
): Promise<{ items: Delivery[]; next_cursor: string | null }> {
  const page = await deps.store.history(userId, HISTORY_PAGE, cursor);
  return { items: page.items, next_cursor: page.next };
}

const KIND_NAMES: Partial<Record<EventKind, string>> = { digest: 'еженедельную сводку' };

/** What the unsubscribe link needs: the settings, the user's address, the signing key. */
export type UnsubscribeDeps = Pick<PreferencesDeps, 'unsubscribeKey' | 'userEmail'> & {
  store: Pick<NotificationStore, 'getSettings' | 'putSettings'>;
};

export type UnsubscribeResult =
  | { status: 'confirm' | 'unsubscribed'; kind: EventKind; email: string; message: string }
  | { status: 'invalid'; message: string };

/**
 * GET (confirm) and POST (one-click, RFC 8058) /api/notifications/unsubscribe?token=: the token's kind
 * switched off for mail. A bad token answers `invalid` (the page says what to do). Twice answers the same.
 */
export async function unsubscribe(
  deps: UnsubscribeDeps,
  token: string | undefined,
  act: boolean,
): Promise<UnsubscribeResult> {
  const t = token ? verifyUnsubscribe(deps.unsubscribeKey(), token) : null;
  const email = t ? await deps.userEmail(t.userId) : null;
  if (!t || email === null)
    return {
      status: 'invalid',
      message: 'Ссылка для отписки недействительна. Отключить письма можно в разделе «Настройки» → «Уведомления».',
    };
  const what = KIND_NAMES[t.kind] ?? 'эти уведомления';
  if (!act)
    return {
      status: 'confirm',
      kind: t.kind,
      email,
      message: `Отписать ${email} от письма «${what}»? Нажмите «Отписаться» — входить не нужно.`,
    };
  const current = withDefaults(await deps.store.getSettings(t.userId));
  current.events[t.kind] = { ...current.events[t.kind], email: false };
  await deps.store.putSettings(t.userId, current);
  return {
    status: 'unsubscribed',
    kind: t.kind,
    email,
    message: `Готово: ${email} больше не получает ${what}. Включить снова можно в разделе «Настройки» → «Уведомления».`,
  };
}

/** The small page the unsubscribe link opens (Russian): the question with its button, or the outcome. */
export function unsubscribePage(r: UnsubscribeResult, token: string | undefined): string {
  const esc = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const form =
    r.status === 'confirm' && token
      ? `<form method="post" action="?token=${esc(encodeURIComponent(token))}"><button type="submit">Отписаться</button></form>`
      : '';
  return `<!doctype html><html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Отписка</title></head><body style="font-family:sans-serif;max-width:36em;margin:3em auto"><p>${esc(r.message)}</p>${form}</body></html>`;
}
