/**
 * WB connections (docs/WB-API.md, docs/ARCHITECTURE.md «The WB sync»): one record per connection in the
 * user's partition, holding the sealed token, the sync cursor and the round's progress; a marker per WB
 * account (one connection per WB account and user); the WB account's call budget (a record outside any
 * user's partition: WB counts its limit per WB account, whoever calls).
 *
 * Every write of a connection is a Put conditional on its `rev` (the revision read), so two steps (a
 * duplicate tick, a request meanwhile) never both write: the loser re-reads. A step's claim is such a
 * write with a lease (`lease_until`); the account budget is claimed in the same transaction.
 */
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conflict } from '../errors';
import type { SyncCursor, ReportRef } from '../marketplaces/wb/finance/sync-plan';
import type { ReportSummary } from '../marketplaces/wb/finance/schemas';
import type { SealedToken } from '../marketplaces/wb/token-crypto';
import type { CostFetchState } from '../marketplaces/wb/sources/costs';
import type { BalanceSyncState } from '../marketplaces/wb/balance/balance-plan';
import { ddb, putNew, tableName } from './client';
import { cancellationCodes, isConditionFailed } from './dynamo-errors';
import { WB_CONNECTION_PREFIX, WB_DUE_PARTITION, wbAccountKey, wbConnectionKey, wbDueIndex, wbRateKey } from './keys';
import { GSI1 } from './table';
import { expiryNoticeAt } from '../marketplaces/wb/token';

export type WbConnectionStatus = 'active' | 'paused' | 'token_invalid' | 'token_no_finance' | 'token_expired';
export type WbSyncStatus = 'scheduled' | 'syncing' | 'limits_exhausted' | 'stopped' | 'error';

export interface WbPage {
  /** The S3 key of the page (gzip'd JSON lines of WB's rows). */
  key: string;
  rows: number;
  /** Rows WB sent on this page again (an rrdId already read): dropped, never stored nor charged. */
  duplicates?: number;
  /** What the page's rows say about the costs the report needs (shared/marketplaces/wb/finance/row-marks.ts). */
  marks?: string[];
}

/** Why the sync stopped or is failing; for WB's failures, its status and the attempts' times. */
export interface WbSyncError {
  code: string;
  message: string;
  /** WB's HTTP status of the last failed call (null: no answer, e.g. a timeout). */
  wb_status?: number | null;
  /** ISO date-times of the last failed attempt and of the next one. */
  last_attempt_at?: string;
  next_attempt_at?: string;
}

/** A report of WB's list whose rows are all read, waiting to be charged and built. */
export interface WbPendingReport {
  /** The id the imported report gets (chosen once: a second import attempt finds the report). */
  report_id: string;
  ref: ReportRef;
  pages: WbPage[];
  rows: number;
}

/** One period of one report from one source, as the connection keeps it. */
export interface WbCostJob {
  report_id: string;
  from: string;
  to: string;
  source: string;
  state: CostFetchState;
  failures: number;
  /** epoch ms: not before. */
  next_at: number;
  /**
   * Queued by the report's import (costs-step.ts `queueImported`): its calls come before the Finance
   * sync's in a step, so the week's costs are asked for right after the import.
   */
  first?: boolean;
}

/** The connection's per-article cost fetches (shared/marketplaces/wb/sync/costs-step.ts); absent until the first. */
export interface WbCostSync {
  jobs: WbCostJob[];
  /** Reports with a job read to its end (while their other jobs run). */
  fetched: string[];
  /** Reports whose costs are stored and that wait for their rebuild. */
  rederive: string[];
  /** report id → the period fetched («from..to»): never queued again for the same period. */
  done: Record<string, string>;
  /** Sources the token may not use (403/401, or no category). */
  refused: string[];
  next_scan_at: number;
  error: { code: string; message: string } | null;
}

export interface WbConnectionRecord {
  id: string;
  user_id: string;
  /** The user's seller the imported reports belong to. */
  seller_id: string;
  /** WB's seller id (the token's `oid`), the owner of the call budget. */
  wb_seller_id: string;
  seller_name: string | null;
  token_hint: string;
  scopes: string[];
  /** ISO date-time of the token's expiry. */
  expires_at: string;
  /** YYYY-MM-DD: reports are imported from this day on. */
  from: string;
  created_at: string;
  status: WbConnectionStatus;
  sealed: SealedToken;
  cursor: SyncCursor;
  /** epoch ms; a step holds the connection until then (0: free). */
  lease_until: number;
  sync_status: WbSyncStatus;
  round: { reports_found: number; reports_imported: number; rows_read: number };
  last_sync: string | null;
  reports_imported: number;
  /** WB report ids this connection has imported, or skipped as already uploaded: never read again. */
  imported_ids: number[];
  /** The list's sums of found reports not imported yet, by WB report id (the reconciliation's WB side). */
  found: Record<string, ReportSummary>;
  /** The report being read: its pages so far. */
  reading: { wb_report_id: number; pages: WbPage[] } | null;
  pending: WbPendingReport[];
  error: WbSyncError | null;
  /** Per-article costs from WB's other APIs (shared/marketplaces/wb/sync/costs-step.ts); absent until the first cost step. */
  costs?: WbCostSync;
  /** When the mail that the token expires soon went out (shared/marketplaces/wb/sync/expiry.ts); null: not yet for this token. */
  expiry_mail_sent_at?: string | null;
  /** WB's balance: when it is read next and why it was not (shared/marketplaces/wb/balance/balance-plan.ts); absent: never called. */
  balance?: BalanceSyncState;
  /** Revision: every write is conditional on the one read. */
  rev: number;
}

const CONNECTION_ID = /^[0-9A-Z]{26}$/;

function fromItem(item: Record<string, unknown>): WbConnectionRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, type: _t, ...rest } = item;
  return rest as unknown as WbConnectionRecord;
}

/**
 * Whether the step watches the connection's token for its expiry notice and its expiry
 * (shared/marketplaces/wb/sync/expiry.ts): an active connection (also one stopped for limits or by a WB error) or a
 * paused one, unless WB refused its token (then a new token is needed anyway, and the seller is told so).
 */
export function watchesToken(c: Pick<WbConnectionRecord, 'status' | 'cursor'>): boolean {
  return (c.status === 'active' || c.status === 'paused') && c.cursor.phase !== 'blocked';
}

/**
 * When the tick should look at a connection next; null: not at all (token refused or expired). No later
 * than the token's expiry notice (shared/marketplaces/wb/sync/expiry.ts) and its expiry, which the step acts on. A
 * paused connection is due for those two alone: its sync stays asleep.
 */
export function dueAt(c: WbConnectionRecord): number | null {
  if (c.status === 'paused') {
    if (!watchesToken(c)) return null;
    const expiry = Date.parse(c.expires_at);
    return Math.min(expiryNoticeAt(c) ?? expiry, expiry);
  }
  if (c.status !== 'active') return null;
  if (c.lease_until > 0) return c.lease_until;
  if (c.pending.length > 0) return 0;
  if (c.cursor.phase === 'blocked') return null;
  const expiry = Date.parse(c.expires_at);
  const finance = Math.min(c.cursor.nextCallAt, expiryNoticeAt(c) ?? expiry, expiry);
  const costs = costsDueAt(c);
  // The balance's next reading (absent: it is read at the connection's next step anyway); a reading waits
  // for the account's budget as the report calls do: mid-round, for the cursor's own next call (a 429, a backoff).
  const balanceAt = c.balance
    ? c.cursor.phase === 'idle'
      ? c.balance.next_at
      : Math.max(c.balance.next_at, c.cursor.nextCallAt)
    : finance;
  const balance = Math.min(finance, balanceAt);
  return costs === null ? balance : Math.min(balance, costs);
}

/** When the connection's cost work is due (epoch ms), or null when it has none. */
export function costsDueAt(c: Pick<WbConnectionRecord, 'costs'>): number | null {
  const s = c.costs;
  if (!s) return null;
  if (s.rederive.length > 0) return 0;
  if (s.jobs.length > 0) return s.jobs[0]!.next_at;
  return s.next_scan_at;
}

function toItem(c: WbConnectionRecord): Record<string, unknown> {
  const due = dueAt(c);
  return {
    ...wbConnectionKey(c.user_id, c.id),
    type: 'wb_connection',
    ...c,
    ...(due === null ? {} : wbDueIndex(c.user_id, c.id, due)),
  };
}

/** The new connection with its WB account marker; the same WB account twice → 409 wb_connection_exists. */
export async function createConnection(c: WbConnectionRecord): Promise<void> {
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          putNew({
            ...wbAccountKey(c.user_id, c.wb_seller_id),
            type: 'wb_account',
            user_id: c.user_id,
            connection_id: c.id,
          }),
          putNew(toItem(c)),
        ],
      }),
    );
  } catch (e) {
    if (cancellationCodes(e)?.[0] === 'ConditionalCheckFailed') {
      throw conflict('wb_connection_exists', 'This WB account is connected already', { wb_seller_id: c.wb_seller_id });
    }
    throw e;
  }
}

export async function getConnection(userId: string, id: string): Promise<WbConnectionRecord | null> {
  if (!CONNECTION_ID.test(id)) return null;
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: wbConnectionKey(userId, id), ConsistentRead: true }),
  );
  return r.Item ? fromItem(r.Item) : null;
}

export async function listConnections(userId: string): Promise<WbConnectionRecord[]> {
  const out: WbConnectionRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':p': WB_CONNECTION_PREFIX },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of r.Items ?? []) out.push(fromItem(item));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * Writes the connection if its revision is still `c.rev` (then stored as rev + 1, which is returned);
 * null when another write came first or the connection is gone.
 */
export async function saveConnection(c: WbConnectionRecord): Promise<WbConnectionRecord | null> {
  const next = { ...c, rev: c.rev + 1 };
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: toItem(next),
        ConditionExpression: 'rev = :rev',
        ExpressionAttributeValues: { ':rev': c.rev },
      }),
    );
    return next;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/**
 * The step's claim: the connection written with its lease (conditional on its revision) and the WB
 * account's budget moved to `budgetUntil` (conditional on it having come: ≤ now), in ONE transaction.
 * `claimed` → the call may be made; `busy` → another step holds the connection; `budget` → another
 * connection of the same WB account called within the interval (`until`: when the budget comes).
 */
export async function claimStep(
  c: WbConnectionRecord,
  now: number,
  budgetUntil: number,
  /** The WB API whose budget is claimed (the Finance API's when absent; e.g. 'advert'). */
  api?: string,
  /** Who holds the budget until WB answers (releaseBudget): the claim's own id. */
  holder?: string,
): Promise<{ kind: 'claimed'; connection: WbConnectionRecord } | { kind: 'busy' } | { kind: 'budget'; until: number }> {
  const next = { ...c, rev: c.rev + 1 };
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: toItem(next),
              ConditionExpression: 'rev = :rev',
              ExpressionAttributeValues: { ':rev': c.rev },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: wbRateKey(c.wb_seller_id, api),
              UpdateExpression: `SET next_call_at = :until, #type = :type${holder ? ', holder = :holder' : ' REMOVE holder'}`,
              ConditionExpression: 'attribute_not_exists(pk) OR next_call_at <= :now',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: {
                ':until': budgetUntil,
                ':now': now,
                ':type': 'wb_rate',
                ...(holder ? { ':holder': holder } : {}),
              },
            },
          },
        ],
      }),
    );
    return { kind: 'claimed', connection: next };
  } catch (e) {
    const codes = cancellationCodes(e);
    if (codes?.[0] === 'ConditionalCheckFailed') return { kind: 'busy' };
    if (codes?.[1] === 'ConditionalCheckFailed') return { kind: 'budget', until: await budgetOf(c.wb_seller_id, api) };
    throw e;
  }
}

/**
 * The budget a step reserved at its call (claimStep with `holder`) set by WB's answer: the account's next
 * call not before `nextAt`. Only the holder's reservation is released (a step whose lease ran out and was
 * taken over releases nothing); true when it was.
 */
export async function releaseBudget(wbSellerId: string, holder: string, nextAt: number): Promise<boolean> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: wbRateKey(wbSellerId),
        UpdateExpression: 'SET next_call_at = :next REMOVE holder',
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':next': nextAt, ':holder': holder },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}

/**
 * A call WB accepted outside a step (the token check on connect): the account's next call not before
 * `until` (a later time already set stays). Nothing is reserved before WB has accepted the token, so a
 * token WB refuses never touches the account's budget.
 */
export async function noteAcceptedCall(wbSellerId: string, until: number): Promise<void> {
  try {
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: wbRateKey(wbSellerId),
        UpdateExpression: 'SET next_call_at = :until, #type = :type',
        ConditionExpression: 'attribute_not_exists(next_call_at) OR next_call_at < :until',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':until': until, ':type': 'wb_rate' },
      }),
    );
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
  }
}

async function budgetOf(wbSellerId: string, api?: string): Promise<number> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: wbRateKey(wbSellerId, api), ConsistentRead: true }),
  );
  return typeof r.Item?.next_call_at === 'number' ? r.Item.next_call_at : 0;
}

/** The connection and its WB account marker. */
export async function deleteConnection(c: WbConnectionRecord): Promise<void> {
  await ddb().send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: tableName(), Key: wbConnectionKey(c.user_id, c.id) } },
        { Delete: { TableName: tableName(), Key: wbAccountKey(c.user_id, c.wb_seller_id) } },
      ],
    }),
  );
}

/** Connections whose next step is due at `now` (every user's; oldest due first), at most `limit`. */
export async function dueConnections(now: number, limit: number): Promise<Array<{ userId: string; id: string }>> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: GSI1,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :due',
      ExpressionAttributeValues: { ':pk': WB_DUE_PARTITION, ':due': `${new Date(now).toISOString()}#~` },
      Limit: limit,
    }),
  );
  return (r.Items ?? []).map((item) => ({ userId: String(item.user_id), id: String(item.id) }));
}
