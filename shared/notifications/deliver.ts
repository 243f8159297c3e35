/**
 * The delivery tick (docs/NOTIFICATIONS.md «Delivery»), run by a schedule every minute.
 *
 * Input: the store, the channels wired, the Telegram link port (when wired), the user's address, a clock.
 * Output: what the tick did (counts).
 * Steps:
 *   1. New events become deliveries: one per channel the user's settings switch on for the event's kind
 *      (and the event allows) that is wired (Telegram: linked), written once each, due now.
 *   2. Due deliveries are claimed one by one (a conditional write: two ticks never take the same one; a
 *      claim holds for LEASE_MS, after which another tick may take it — a crash between claim and send
 *      loses nothing). Telegram inside the user's quiet hours is held until they end. The message goes
 *      through its channel; the delivery is marked sent, retried with backoff (`retryAfterMs` honoured),
 *      or failed with the reason (a chat that blocked the bot: the link is marked broken).
 *
 * Once per channel: at most once while nothing crashes; a crash after the channel accepted a message and
 * before the ledger recorded it sends it again after the lease (at-least-once in that window, which is
 * one store write long).
 */
import { log, describeError } from '../log';
import { nowMs, type Clock, type IdSource } from '../deps';
import { CHANNELS, type ChannelName, type NotificationChannel, type Recipient, type TelegramLinks } from './channel';
import type { Delivery, DeliveryOutcome, NotificationEvent, NotificationStore } from './ports';
import { backoffMs, MAX_ATTEMPTS, quietUntil } from './rules';
import { wants, withDefaults } from './settings';

/** How long a claim holds a delivery: a tick (≤ 55 s) ends well within it. */
export const LEASE_MS = 5 * 60_000;
/** Deliveries (and new events) a tick takes at most. */
export const TICK_BATCH = 200;

export interface DeliverDeps {
  store: NotificationStore;
  channels: Partial<Record<ChannelName, NotificationChannel>>;
  telegramLinks?: TelegramLinks;
  /** The user's mail address (null: no such user any more). */
  userEmail(userId: string): Promise<string | null>;
  clock: Clock;
  ids: IdSource;
}

export interface TickResult {
  expanded: number;
  sent: number;
  held: number;
  retried: number;
  failed: number;
  skipped: number;
}

/** Step 1: each new event's deliveries, by the user's settings now. */
export async function expandNewEvents(deps: DeliverDeps, limit = TICK_BATCH): Promise<number> {
  const events = await deps.store.listNewEvents(limit);
  for (const e of events) {
    const settings = withDefaults(await deps.store.getSettings(e.user_id));
    // A channel not wired, or Telegram without a working link, gets no delivery at all (nothing to wait for).
    const linked = async () => (await deps.telegramLinks?.getLink(e.user_id))?.status === 'linked';
    const channels: ChannelName[] = [];
    for (const c of CHANNELS) {
      if ((e.only && !e.only.includes(c)) || !wants(settings, e.kind, c) || !deps.channels[c]) continue;
      if (c === 'telegram' && !(await linked())) continue;
      channels.push(c);
    }
    const due = nowMs(deps.clock);
    await deps.store.expandEvent(
      e,
      channels.map((channel): Delivery => ({
        user_id: e.user_id,
        event_key: e.key,
        kind: e.kind,
        channel,
        status: 'pending',
        subject: e.subject,
        created_at: e.created_at,
        due_ms: due,
        attempts: 0,
        sent_at: null,
        reason: null,
      })),
    );
  }
  return events.length;
}

async function recipientOf(deps: DeliverDeps, userId: string): Promise<Recipient | null> {
  const email = await deps.userEmail(userId);
  if (email === null) return null;
  const link = deps.telegramLinks ? await deps.telegramLinks.getLink(userId) : null;
  return { userId, email, ...(link && link.status === 'linked' ? { telegramChatId: link.chat_id } : {}) };
}

/** What to do with one claimed delivery: its outcome (the send happens inside). */
async function deliverOne(deps: DeliverDeps, d: Delivery, attempt: number): Promise<DeliveryOutcome> {
  const now = nowMs(deps.clock);
  const channel = deps.channels[d.channel];
  if (!channel) return { status: 'failed', reason: 'channel_unavailable' };
  const event: NotificationEvent | null = await deps.store.getEvent(d.user_id, d.event_key);
  if (!event) return { status: 'failed', reason: 'event_missing' };
  const to = await recipientOf(deps, d.user_id);
  if (!to) return { status: 'failed', reason: 'user_missing' };
  if (d.channel === 'telegram') {
    if (to.telegramChatId === undefined) return { status: 'failed', reason: 'not_linked' };
    const settings = withDefaults(await deps.store.getSettings(d.user_id));
    const until = quietUntil(settings.quiet_hours, now);
    if (until !== null) return { status: 'held', due_ms: until, reason: 'quiet_hours' };
  }
  const r = await channel.send(to, {
    userId: d.user_id,
    eventKey: d.event_key,
    kind: d.kind,
    subject: event.subject,
    text: event.text,
    ...(event.html !== undefined ? { html: event.html } : {}),
    ...(event.link !== undefined ? { link: event.link } : {}),
    ...(event.headers ? { headers: event.headers } : {}),
  });
  if (r.ok) return { status: 'sent', at: deps.clock.now().toISOString() };
  if (r.retry) {
    if (attempt >= MAX_ATTEMPTS) return { status: 'failed', reason: `gave_up: ${r.reason}` };
    return { status: 'pending', due_ms: now + backoffMs(attempt, r.retryAfterMs), reason: r.reason };
  }
  if (r.reason === 'blocked' && deps.telegramLinks) await deps.telegramLinks.markBroken(d.user_id);
  return { status: 'failed', reason: r.reason };
}

/** Step 2: every due delivery this tick can claim. */
export async function deliverDue(deps: DeliverDeps, limit = TICK_BATCH): Promise<Omit<TickResult, 'expanded'>> {
  const out = { sent: 0, held: 0, retried: 0, failed: 0, skipped: 0 };
  const now = nowMs(deps.clock);
  for (const d of await deps.store.listDue(now, limit)) {
    const claimId = deps.ids.newId();
    if (!(await deps.store.claim(d, now, now + LEASE_MS, claimId))) {
      out.skipped++;
      continue;
    }
    const attempt = d.attempts + 1;
    let outcome: DeliveryOutcome;
    try {
      outcome = await deliverOne(deps, d, attempt);
    } catch (e) {
      // A channel that threw (a network error, SES refusing): as a retry.
      log('warn', 'notification send failed', { event_key: d.event_key, channel: d.channel, ...describeError(e) });
      outcome =
        attempt >= MAX_ATTEMPTS
          ? { status: 'failed', reason: 'gave_up: error' }
          : { status: 'pending', due_ms: nowMs(deps.clock) + backoffMs(attempt), reason: 'error' };
    }
    await deps.store.finish(d, claimId, outcome);
    if (outcome.status === 'sent') out.sent++;
    else if (outcome.status === 'held') out.held++;
    else if (outcome.status === 'pending') out.retried++;
    else out.failed++;
  }
  return out;
}

/** One tick: new events into deliveries, then the due deliveries. */
export async function notificationsTick(deps: DeliverDeps): Promise<TickResult> {
  const expanded = await expandNewEvents(deps);
  return { expanded, ...(await deliverDue(deps)) };
}
