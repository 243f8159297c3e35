/**
 * The notifications' records (docs/NOTIFICATIONS.md; keys.ts):
 *
 * | record     | pk                   | sk                                         | gsi1 |
 * |------------|----------------------|--------------------------------------------|------|
 * | event      | USER#<userId>        | NEVENT#<event key>                         | while new: NOTIFY#NEW / <created_at>#<userId>#<key> |
 * | delivery   | USER#<userId>        | NDLV#<event created_at>#<event key>#<channel> | while pending or held: NOTIFY#DUE / <due ISO>#<userId>#<key>#<channel> |
 * | settings   | USER#<userId>        | NOTIFYSET                                  | |
 * | digest roster | NDIGEST#<ISO week> | USER#<userId>                              | |
 *
 * An event is written once (conditional Put on its key): a retried worker records nothing new. A
 * delivery is written once per event and channel (conditional Put), claimed by a conditional Update
 * (status pending or held, due ≤ now), and ended only by the claim that holds it. Events, deliveries
 * and roster entries expire after 180 days (`ttl`).
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { CHANNELS, EVENT_KINDS } from '../notifications/channel';
import type {
  Delivery,
  DeliveryOutcome,
  HistoryPage,
  NotificationEvent,
  NotificationStore,
} from '../notifications/ports';
import { settingsInputSchema, type SettingsInput } from '../notifications/settings';
import { ddb, tableName } from './client';
import { decodeCursor, encodeCursor } from './cursor';
import { conditionHeld } from './dynamo-errors';

const KEEP_S = 180 * 86_400;
const NEW_PARTITION = 'NOTIFY#NEW';
const DUE_PARTITION = 'NOTIFY#DUE';
const EVENT_PREFIX = 'NEVENT#';
const DELIVERY_PREFIX = 'NDLV#';
const VERSION = 1;

const userPk = (userId: string) => `USER#${userId}`;
const eventKey = (userId: string, key: string) => ({ pk: userPk(userId), sk: `${EVENT_PREFIX}${key}` });
const deliveryKey = (d: Pick<Delivery, 'user_id' | 'created_at' | 'event_key' | 'channel'>) => ({
  pk: userPk(d.user_id),
  sk: `${DELIVERY_PREFIX}${d.created_at}#${d.event_key}#${d.channel}`,
});
const dueSort = (d: Pick<Delivery, 'user_id' | 'event_key' | 'channel'>, dueMs: number) =>
  `${new Date(dueMs).toISOString()}#${d.user_id}#${d.event_key}#${d.channel}`;
const ttlFrom = (iso: string) => Math.floor(Date.parse(iso) / 1000) + KEEP_S;

const storedEvent = z.looseObject({
  user_id: z.string(),
  key: z.string(),
  kind: z.enum(EVENT_KINDS),
  subject: z.string(),
  text: z.string(),
  html: z.string().optional(),
  link: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  only: z.array(z.enum(CHANNELS)).optional(),
  facts: z.record(z.string(), z.union([z.number(), z.string(), z.null()])).optional(),
  created_at: z.string(),
});
const storedDelivery = z.looseObject({
  user_id: z.string(),
  event_key: z.string(),
  kind: z.enum(EVENT_KINDS),
  channel: z.enum(CHANNELS),
  status: z.enum(['pending', 'held', 'sent', 'failed']),
  subject: z.string(),
  created_at: z.string(),
  due_ms: z.number(),
  attempts: z.number(),
  sent_at: z.string().nullable(),
  reason: z.string().nullable(),
});

function parse<T>(schema: z.ZodType<T>, item: Record<string, unknown>, what: string): T {
  if (item.v !== VERSION)
    throw new Error(`Stored ${what} ${String(item.pk)} / ${String(item.sk)}: version ${String(item.v)}`);
  const r = schema.safeParse(item);
  if (!r.success)
    throw new Error(`Stored ${what} ${String(item.pk)} / ${String(item.sk)} does not parse: ${r.error.message}`);
  return r.data;
}

const toEvent = (item: Record<string, unknown>): NotificationEvent => {
  const e = parse(storedEvent, item, 'notification event');
  return {
    user_id: e.user_id,
    key: e.key,
    kind: e.kind,
    subject: e.subject,
    text: e.text,
    ...(e.html !== undefined ? { html: e.html } : {}),
    ...(e.link !== undefined ? { link: e.link } : {}),
    ...(e.headers ? { headers: e.headers } : {}),
    ...(e.only ? { only: e.only } : {}),
    ...(e.facts ? { facts: e.facts } : {}),
    created_at: e.created_at,
  };
};
const toDelivery = (item: Record<string, unknown>): Delivery => {
  const d = parse(storedDelivery, item, 'notification delivery');
  return {
    user_id: d.user_id,
    event_key: d.event_key,
    kind: d.kind,
    channel: d.channel,
    status: d.status,
    subject: d.subject,
    created_at: d.created_at,
    due_ms: d.due_ms,
    attempts: d.attempts,
    sent_at: d.sent_at,
    reason: d.reason,
  };
};

export async function putEvent(e: NotificationEvent): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...eventKey(e.user_id, e.key),
          type: 'notification_event',
          v: VERSION,
          ...e,
          gsi1pk: NEW_PARTITION,
          gsi1sk: `${e.created_at}#${e.user_id}#${e.key}`,
          ttl: ttlFrom(e.created_at),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

export async function listNewEvents(limit: number): Promise<NotificationEvent[]> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': NEW_PARTITION },
      Limit: limit,
    }),
  );
  return (r.Items ?? []).map(toEvent);
}

export async function getEvent(userId: string, key: string): Promise<NotificationEvent | null> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: eventKey(userId, key) }));
  return r.Item ? toEvent(r.Item) : null;
}

export async function expandEvent(e: NotificationEvent, deliveries: Delivery[]): Promise<void> {
  for (const d of deliveries) {
    await conditionHeld(
      ddb().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...deliveryKey(d),
            type: 'notification_delivery',
            v: VERSION,
            ...d,
            gsi1pk: DUE_PARTITION,
            gsi1sk: dueSort(d, d.due_ms),
            ttl: ttlFrom(d.created_at),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: eventKey(e.user_id, e.key),
      UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
    }),
  );
}

export async function listDue(nowMs: number, limit: number): Promise<Delivery[]> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :due',
      ExpressionAttributeValues: { ':pk': DUE_PARTITION, ':due': `${new Date(nowMs).toISOString()}#~` },
      Limit: limit,
    }),
  );
  return (r.Items ?? []).map(toDelivery);
}

export async function claim(d: Delivery, nowMs: number, leaseUntilMs: number, claimId: string): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(d),
        UpdateExpression: 'SET due_ms = :lease, gsi1sk = :sk, claim_id = :claim, attempts = attempts + :one',
        ConditionExpression: 'attribute_exists(pk) AND #s IN (:pending, :held) AND due_ms <= :now',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':lease': leaseUntilMs,
          ':sk': dueSort(d, leaseUntilMs),
          ':claim': claimId,
          ':one': 1,
          ':pending': 'pending',
          ':held': 'held',
          ':now': nowMs,
        },
      }),
    ),
  );
}

export async function finish(d: Delivery, claimId: string, o: DeliveryOutcome): Promise<boolean> {
  const base = { TableName: tableName(), Key: deliveryKey(d), ConditionExpression: 'claim_id = :claim' };
  if (o.status === 'sent' || o.status === 'failed') {
    return conditionHeld(
      ddb().send(
        new UpdateCommand({
          ...base,
          UpdateExpression: 'SET #s = :s, sent_at = :at, reason = :reason REMOVE gsi1pk, gsi1sk, claim_id',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':claim': claimId,
            ':s': o.status,
            ':at': o.status === 'sent' ? o.at : null,
            ':reason': o.status === 'failed' ? o.reason : null,
          },
        }),
      ),
    );
  }
  return conditionHeld(
    ddb().send(
      new UpdateCommand({
        ...base,
        UpdateExpression: 'SET #s = :s, due_ms = :due, gsi1sk = :sk, reason = :reason REMOVE claim_id',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: {
          ':claim': claimId,
          ':s': o.status,
          ':due': o.due_ms,
          ':sk': dueSort(d, o.due_ms),
          ':reason': o.reason,
        },
      }),
    ),
  );
}

const isDeliverySort = (sk: string) => sk.startsWith(DELIVERY_PREFIX) && sk.length < 600;

export async function history(userId: string, limit: number, cursor?: string): Promise<HistoryPage> {
  const after = cursor ? decodeCursor(cursor, isDeliverySort) : undefined;
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': userPk(userId), ':p': DELIVERY_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
      ...(after ? { ExclusiveStartKey: { pk: userPk(userId), sk: after } } : {}),
    }),
  );
  const last = r.LastEvaluatedKey?.sk;
  return { items: (r.Items ?? []).map(toDelivery), next: typeof last === 'string' ? encodeCursor(last) : null };
}

const settingsKey = (userId: string) => ({ pk: userPk(userId), sk: 'NOTIFYSET' });

export async function getSettings(userId: string): Promise<SettingsInput | null> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: settingsKey(userId) }));
  if (!r.Item) return null;
  return parse(settingsInputSchema, r.Item, 'notification settings');
}

export async function putSettings(userId: string, s: SettingsInput): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...settingsKey(userId), type: 'notification_settings', v: VERSION, ...s },
    }),
  );
}

export async function markForDigest(week: string, userId: string): Promise<void> {
  await ddb().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk: `NDIGEST#${week}`,
        sk: userPk(userId),
        type: 'digest_roster',
        user_id: userId,
        ttl: Math.floor(Date.now() / 1000) + KEEP_S,
      },
    }),
  );
}

export async function digestUsers(week: string): Promise<string[]> {
  const out: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `NDIGEST#${week}` },
        ProjectionExpression: 'user_id',
        ExclusiveStartKey: start,
      }),
    );
    for (const i of r.Items ?? []) if (typeof i.user_id === 'string') out.push(i.user_id);
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** The store as the notification use cases take it. */
export const notificationStore: NotificationStore = {
  putEvent,
  listNewEvents,
  getEvent,
  expandEvent,
  listDue,
  claim,
  finish,
  history,
  getSettings,
  putSettings,
  markForDigest,
  digestUsers,
};
