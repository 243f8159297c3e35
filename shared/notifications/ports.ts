/**
 * What the notification use cases talk to (docs/NOTIFICATIONS.md): the outbox of events, the ledger of
 * deliveries (one per user, event key and channel), the settings, the digest roster. The DynamoDB
 * implementation is shared/store/notifications.repo.ts; unit tests pass an in-memory one
 * (memory-store.ts).
 */
import type { ChannelName, EventKind } from './channel';
import type { SettingsInput } from './settings';

/** One recorded event: what happened, with its message already written (Russian). */
export interface NotificationEvent {
  user_id: string;
  /** Stable: the same event found again has the same key (`report_ready:<report id>`). */
  key: string;
  kind: EventKind;
  subject: string;
  text: string;
  html?: string;
  link?: string;
  headers?: Record<string, string>;
  /** Only these channels (the digest goes by mail only); absent: every channel. */
  only?: ChannelName[];
  /** Numbers behind the message (for the history and tests; kopecks, percents). */
  facts?: Record<string, number | string | null>;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'held' | 'sent' | 'failed';

/** One event on one channel for one user: the ledger record. */
export interface Delivery {
  user_id: string;
  event_key: string;
  kind: EventKind;
  channel: ChannelName;
  status: DeliveryStatus;
  subject: string;
  /** The event's time (also the ledger's order). */
  created_at: string;
  /** Epoch ms: when a tick may take it (a claim moves it to the claim's lease end). */
  due_ms: number;
  attempts: number;
  sent_at: string | null;
  reason: string | null;
}

export type DeliveryOutcome =
  | { status: 'sent'; at: string }
  | { status: 'pending' | 'held'; due_ms: number; reason: string | null }
  | { status: 'failed'; reason: string };

export interface HistoryPage {
  items: Delivery[];
  next: string | null;
}

export interface NotificationStore {
  /** The event written once: false when its key was recorded before (nothing changes then). */
  putEvent(e: NotificationEvent): Promise<boolean>;
  /** Events recorded and not yet turned into deliveries, oldest first. */
  listNewEvents(limit: number): Promise<NotificationEvent[]>;
  getEvent(userId: string, key: string): Promise<NotificationEvent | null>;
  /** Writes the event's deliveries (each once: an existing one is left as it is) and takes it off the new list. */
  expandEvent(e: NotificationEvent, deliveries: Delivery[]): Promise<void>;
  /** Deliveries due at `nowMs` (pending, held, or claimed by a tick whose lease ran out), oldest due first. */
  listDue(nowMs: number, limit: number): Promise<Delivery[]>;
  /**
   * Takes a due delivery for one tick: a conditional write (still pending or held, still due), which
   * moves it out of reach until `leaseUntilMs` and records `claimId`. False when another tick has it.
   */
  claim(d: Delivery, nowMs: number, leaseUntilMs: number, claimId: string): Promise<boolean>;
  /** Ends a claim with its outcome: only while the claim is still `claimId`'s (false otherwise). */
  finish(d: Delivery, claimId: string, outcome: DeliveryOutcome): Promise<boolean>;
  history(userId: string, limit: number, cursor?: string): Promise<HistoryPage>;
  getSettings(userId: string): Promise<SettingsInput | null>;
  putSettings(userId: string, s: SettingsInput): Promise<void>;
  /** The digest run `week` (ISO week of the Monday) has something to tell `userId`. */
  markForDigest(week: string, userId: string): Promise<void>;
  digestUsers(week: string): Promise<string[]>;
}
