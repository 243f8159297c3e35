/**
 * An in-memory NotificationStore (shared/notifications/ports.ts) for the unit tests of the notification
 * use cases: the same conditions as the DynamoDB store (an event and a delivery written once, a claim only
 * of a due pending or held delivery, an end only by its claim), so the rules are tested on one clock.
 */
import type { Delivery, DeliveryOutcome, NotificationEvent, NotificationStore } from '../../shared/notifications/ports';
import type { SettingsInput } from '../../shared/notifications/settings';

interface Row extends Delivery {
  claim_id?: string;
}

export function memoryNotificationStore() {
  const events = new Map<string, NotificationEvent & { isNew: boolean }>();
  const deliveries = new Map<string, Row>();
  const settings = new Map<string, SettingsInput>();
  const roster = new Map<string, Set<string>>();
  const ek = (u: string, k: string) => `${u}|${k}`;
  const dk = (d: Pick<Delivery, 'user_id' | 'event_key' | 'channel'>) => `${d.user_id}|${d.event_key}|${d.channel}`;
  const store: NotificationStore = {
    async putEvent(e) {
      if (events.has(ek(e.user_id, e.key))) return false;
      events.set(ek(e.user_id, e.key), { ...structuredClone(e), isNew: true });
      return true;
    },
    async listNewEvents(limit) {
      return [...events.values()]
        .filter((e) => e.isNew)
        .slice(0, limit)
        .map(({ isNew: _, ...e }) => e);
    },
    async getEvent(u, k) {
      const e = events.get(ek(u, k));
      if (!e) return null;
      const { isNew: _, ...rest } = e;
      return rest;
    },
    async expandEvent(e, ds) {
      for (const d of ds) if (!deliveries.has(dk(d))) deliveries.set(dk(d), { ...d });
      events.get(ek(e.user_id, e.key))!.isNew = false;
    },
    async listDue(now, limit) {
      return [...deliveries.values()]
        .filter((d) => (d.status === 'pending' || d.status === 'held') && d.due_ms <= now)
        .sort((a, b) => a.due_ms - b.due_ms)
        .slice(0, limit)
        .map(({ claim_id: _, ...d }) => ({ ...d }));
    },
    async claim(d, now, lease, claimId) {
      const row = deliveries.get(dk(d));
      if (!row || (row.status !== 'pending' && row.status !== 'held') || row.due_ms > now) return false;
      row.due_ms = lease;
      row.claim_id = claimId;
      row.attempts += 1;
      return true;
    },
    async finish(d, claimId, o: DeliveryOutcome) {
      const row = deliveries.get(dk(d));
      if (!row || row.claim_id !== claimId) return false;
      delete row.claim_id;
      row.status = o.status;
      if (o.status === 'sent') row.sent_at = o.at;
      if (o.status === 'failed') row.reason = o.reason;
      if (o.status === 'pending' || o.status === 'held') {
        row.due_ms = o.due_ms;
        row.reason = o.reason;
      }
      return true;
    },
    async history(u, limit) {
      const items = [...deliveries.values()]
        .filter((d) => d.user_id === u)
        .sort((a, b) => b.created_at.localeCompare(a.created_at))
        .slice(0, limit)
        .map(({ claim_id: _, ...d }) => d);
      return { items, next: null };
    },
    async getSettings(u) {
      return settings.get(u) ?? null;
    },
    async putSettings(u, s) {
      settings.set(u, structuredClone(s));
    },
    async markForDigest(week, u) {
      if (!roster.has(week)) roster.set(week, new Set());
      roster.get(week)!.add(u);
    },
    async digestUsers(week) {
      return [...(roster.get(week) ?? [])];
    },
  };
  return { store, events, deliveries, settings, roster };
}
