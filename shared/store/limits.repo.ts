/**
 * Row limits: charge, refund, top-up and their history.
 *
 * Exactness of `limits_after` under concurrency: every change is an optimistic read-modify-write.
 * We read the user's limits L (strongly consistent), then write ONE TransactWriteItems that sets
 * limits to the computed value on the condition `limits = L` (and, for a charge, `limits >= rows`),
 * together with the history record carrying that same computed value. If another change landed in
 * between, the condition fails and we re-read and retry; when a charge's re-read shows too few
 * limits it becomes a 402. So a history record's limits_after is always the balance right after its
 * own change, and limits can never go below zero: the store refuses the write, not our arithmetic.
 * (An UpdateItem with ReturnValues could report the new balance, but not inside a transaction
 * together with the history record and the caller's items.)
 *
 * Operations recorded: `expense` (charge), `topup`, and `refund` (the counterpart of a charge whose
 * upload failed afterwards; kept visible as its own operation rather than disguised as a top-up).
 */
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest, conflict, notFound, paymentRequired } from '../errors';
import { ddb, putNew, tableName, type DocTransactItem } from './client';
import { backoff, cancellationCodes, isTransactionConflict, sleep } from './dynamo-errors';
import { getIdempotentResultFor, idempotencyPut, payloadHash } from './idempotency.repo';
import { LIMIT_PREFIX, limitHistoryKey, newId, userKey } from './keys';

export type { DocTransactItem };

export type LimitOperation = 'expense' | 'topup' | 'refund';

export interface LimitHistoryEntry {
  id: string;
  operation: LimitOperation;
  rows: number;
  limits_after: number;
  report_id: string | null;
  created_at: string;
}

const MAX_ATTEMPTS = 40;

interface Balance {
  limits: number;
  initial_limits: number;
}

async function readBalance(userId: string): Promise<Balance> {
  const r = await ddb().send(
    new GetCommand({
      TableName: tableName(),
      Key: userKey(userId),
      ConsistentRead: true,
      ProjectionExpression: '#l, initial_limits',
      ExpressionAttributeNames: { '#l': 'limits' },
    }),
  );
  if (!r.Item) throw notFound('User not found');
  return { limits: Number(r.Item.limits ?? 0), initial_limits: Number(r.Item.initial_limits ?? 0) };
}

function historyPut(userId: string, entry: LimitHistoryEntry): DocTransactItem {
  return putNew({ ...limitHistoryKey(userId, entry.id), type: 'limit_history', user_id: userId, ...entry });
}

function newEntry(operation: LimitOperation, rows: number, limitsAfter: number, reportId?: string): LimitHistoryEntry {
  return {
    id: newId(),
    operation,
    rows,
    limits_after: limitsAfter,
    report_id: reportId ?? null,
    created_at: new Date().toISOString(),
  };
}

function assertRows(rows: number): void {
  if (!Number.isSafeInteger(rows) || rows < 0)
    throw badRequest('validation_error', 'rows must be a non-negative integer', { rows });
}

interface BalanceChange<R> {
  userId: string;
  /** For the balance just read: the history record, whose limits_after is the new balance (or a throw, e.g. a 402). */
  entry: (limits: number) => LimitHistoryEntry;
  /** A top-up also makes the new balance the initial one. */
  setInitial?: boolean;
  /** The store refuses the write, not only our arithmetic, when the balance is below this. */
  atLeast?: number;
  /** The caller's items, written in the same transaction after the update and the history record. */
  items?: (entry: LimitHistoryEntry) => DocTransactItem[];
  result: (entry: LimitHistoryEntry) => R;
  /**
   * The transaction was cancelled and the caller's item at `index` failed its condition: `{ result }`
   * ends the change with it, a throw ends it with the throw, undefined treats it as any cancellation.
   */
  onItemFailed?: (index: number) => Promise<{ result: R } | undefined>;
}

/**
 * The optimistic read-modify-write of the header, shared by every change: read the balance, write the
 * limits on the condition that they are still what was read, together with the history record and the
 * caller's items; when another change came in between, read again and retry.
 */
async function changeBalance<R>(change: BalanceChange<R>): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const { limits } = await readBalance(change.userId);
    const entry = change.entry(limits);
    const floor = change.atLeast === undefined ? {} : { ':atLeast': change.atLeast };
    const update: DocTransactItem = {
      Update: {
        TableName: tableName(),
        Key: userKey(change.userId),
        UpdateExpression: change.setInitial ? 'SET #l = :after, initial_limits = :after' : 'SET #l = :after',
        ConditionExpression: change.atLeast === undefined ? '#l = :prev' : '#l = :prev AND #l >= :atLeast',
        ExpressionAttributeNames: { '#l': 'limits' },
        ExpressionAttributeValues: { ':after': entry.limits_after, ':prev': limits, ...floor },
      },
    };
    try {
      await ddb().send(
        new TransactWriteCommand({
          TransactItems: [update, historyPut(change.userId, entry), ...(change.items?.(entry) ?? [])],
        }),
      );
      return change.result(entry);
    } catch (e) {
      const codes = cancellationCodes(e);
      const itemFailed = codes?.slice(2).findIndex((c) => c === 'ConditionalCheckFailed') ?? -1;
      if (itemFailed >= 0 && change.onItemFailed) {
        const end = await change.onItemFailed(itemFailed);
        if (end) return end.result;
      }
      if (!(codes?.[0] === 'ConditionalCheckFailed' || isTransactionConflict(e)) || attempt >= MAX_ATTEMPTS) throw e;
      await sleep(backoff(attempt));
    }
  }
}

export interface ChargeInput {
  userId: string;
  rows: number;
  reportId?: string;
  /** The caller's own writes (e.g. the report's state change), committed in the same transaction. */
  extraItems?: DocTransactItem[];
}

export interface ChargeResult {
  limits_after: number;
  history: LimitHistoryEntry;
}

/**
 * Charges `rows` limits: ONE TransactWriteItems of the conditional decrement, an `expense` history
 * record and the caller's extra items. Not enough limits → 402 `insufficient_limits` {rows, limits}
 * and nothing is written. A failed condition on one of the caller's items → 409 `transaction_conflict`
 * {item_index} (index within extraItems), nothing written. Missing user → 404.
 */
export async function chargeLimits(input: ChargeInput): Promise<ChargeResult> {
  assertRows(input.rows);
  return changeBalance({
    userId: input.userId,
    entry: (limits) => {
      if (limits < input.rows) throw paymentRequired(input.rows, limits);
      return newEntry('expense', input.rows, limits - input.rows, input.reportId);
    },
    atLeast: input.rows,
    items: () => input.extraItems ?? [],
    result: (entry) => ({ limits_after: entry.limits_after, history: entry }),
    onItemFailed: async (index) => {
      throw conflict('transaction_conflict', 'The change conflicts with the current state', { item_index: index });
    },
  });
}

export interface RefundInput {
  userId: string;
  rows: number;
  reportId: string;
  /**
   * The caller's own writes, committed with the refund (e.g. the report's `failed` state). When one of
   * them fails its condition, nothing is written and 409 `transaction_conflict` {item_index} is thrown.
   */
  extraItems?: DocTransactItem[];
}

/**
 * Gives back what a charge for `reportId` took (an upload that failed after charging): limits += rows
 * and a `refund` history record, in one transaction with a marker that makes a second refund of the
 * same report a no-op (returns null then). Returns the new balance otherwise.
 */
export async function refundLimits(
  input: RefundInput,
): Promise<{ limits_after: number; history: LimitHistoryEntry } | null> {
  assertRows(input.rows);
  return changeBalance<{ limits_after: number; history: LimitHistoryEntry } | null>({
    userId: input.userId,
    entry: (limits) => newEntry('refund', input.rows, limits + input.rows, input.reportId),
    // Kept without TTL: a report id is refunded once, ever.
    items: (entry) => [
      idempotencyPut('refund', input.reportId, { limits_after: entry.limits_after }, { user_id: input.userId }, null),
      ...(input.extraItems ?? []),
    ],
    result: (entry) => ({ limits_after: entry.limits_after, history: entry }),
    // Index 0, the marker, exists: this report was refunded before. Another: the caller's condition.
    onItemFailed: async (index) => {
      if (index === 0) return { result: null };
      throw conflict('transaction_conflict', 'The change conflicts with the current state', { item_index: index - 1 });
    },
  });
}

export interface TopUpInput {
  userId: string;
  rows: number;
  idempotencyKey?: string;
}

export interface TopUpResult {
  user_id: string;
  limits: number;
  initial_limits: number;
}

/**
 * Admin top-up (docs/API.md): limits += rows, initial_limits := the new limits, a `topup` history record
 * and, with a key, the idempotency record holding the result — ONE transaction. A key seen before
 * returns the first result and changes nothing (keys are global across users: one key, one operation);
 * a key seen before with another user or another number of rows → 422 `idempotency_key_reused`.
 */
export async function topUp(input: TopUpInput): Promise<TopUpResult> {
  if (!Number.isSafeInteger(input.rows) || input.rows <= 0)
    throw badRequest('validation_error', 'rows must be a positive integer', { rows: input.rows });
  const idem = input.idempotencyKey;
  // What the key stands for: this user, this many rows. The same key with another payload → 422.
  const hash = payloadHash({ user_id: input.userId, rows: input.rows });
  if (idem) {
    const prior = await getIdempotentResultFor<TopUpResult>('topup', idem, hash);
    if (prior) return prior;
  }
  const resultOf = (entry: LimitHistoryEntry): TopUpResult => ({
    user_id: input.userId,
    limits: entry.limits_after,
    initial_limits: entry.limits_after,
  });
  return changeBalance({
    userId: input.userId,
    entry: (limits) => newEntry('topup', input.rows, limits + input.rows),
    setInitial: true,
    items: (entry) =>
      idem
        ? [
            idempotencyPut('topup', idem, resultOf(entry), {
              user_id: input.userId,
              rows: input.rows,
              payload_hash: hash,
            }),
          ]
        : [],
    result: resultOf,
    // The key was taken in between (a concurrent repeat): its result, once it can be read.
    onItemFailed: async () => {
      const prior = idem ? await getIdempotentResultFor<TopUpResult>('topup', idem, hash) : null;
      return prior ? { result: prior } : undefined;
    },
  });
}

export interface HistoryPage {
  items: LimitHistoryEntry[];
  next_cursor: string | null;
}

const PAGE_SIZE = 50;

/**
 * The user's limit history, newest first, `PAGE_SIZE` per page. The cursor is opaque (base64url of the
 * last sort key); only the sort key travels, the partition is always the caller's, so a forged cursor
 * cannot reach another user's records. A malformed cursor → 400 `invalid_cursor`.
 */
export async function listLimitHistory(
  userId: string,
  cursor?: string | null,
  limit = PAGE_SIZE,
): Promise<HistoryPage> {
  const pk = userKey(userId).pk;
  let startKey: Record<string, string> | undefined;
  if (cursor) {
    const sk = decodeCursor(cursor);
    if (!sk || !sk.startsWith(LIMIT_PREFIX)) throw badRequest('invalid_cursor', 'Malformed cursor');
    startKey = { pk, sk };
  }
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': LIMIT_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: startKey,
      ConsistentRead: true,
    }),
  );
  const items = (r.Items ?? []).map((i) => ({
    id: String(i.id),
    operation: i.operation as LimitOperation,
    rows: Number(i.rows),
    limits_after: Number(i.limits_after),
    report_id: (i.report_id as string | null | undefined) ?? null,
    created_at: String(i.created_at),
  }));
  const last = r.LastEvaluatedKey?.sk;
  return { items, next_cursor: typeof last === 'string' ? encodeCursor(last) : null };
}

export interface HistoryTotals {
  /** Rows charged by uploads (expense records). */
  charged: number;
  /** Rows given back for failed uploads (refund records). */
  refunded: number;
  /** Rows added by operators (topup records). */
  topped_up: number;
}

/**
 * Sums of the user's whole history by operation (every page of the partition's LIMIT# records, only
 * `operation` and `rows` read). With the balance they tell the whole story:
 * limits = granted at registration + topped_up − charged + refunded.
 */
export async function sumLimitHistory(userId: string): Promise<HistoryTotals> {
  const totals: HistoryTotals = { charged: 0, refunded: 0, topped_up: 0 };
  let startKey: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': userKey(userId).pk, ':prefix': LIMIT_PREFIX },
        ProjectionExpression: 'operation, #rows',
        ExpressionAttributeNames: { '#rows': 'rows' },
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    for (const i of r.Items ?? []) {
      const rows = Number(i.rows ?? 0);
      if (i.operation === 'expense') totals.charged += rows;
      else if (i.operation === 'refund') totals.refunded += rows;
      else if (i.operation === 'topup') totals.topped_up += rows;
    }
    startKey = r.LastEvaluatedKey;
  } while (startKey);
  return totals;
}

export function encodeCursor(sk: string): string {
  return Buffer.from(sk, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null;
  return Buffer.from(cursor, 'base64url').toString('utf8');
}
