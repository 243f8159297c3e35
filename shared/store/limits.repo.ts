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
import { ddb, tableName } from './client';
import { backoff, cancellationCodes, isTransactionConflict, sleep } from './dynamo-errors';
import { getIdempotentResult, idempotencyPut, type DocTransactItem } from './idempotency.repo';
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
  return {
    Put: {
      TableName: tableName(),
      Item: { ...limitHistoryKey(userId, entry.id), type: 'limit_history', user_id: userId, ...entry },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

function newEntry(operation: LimitOperation, rows: number, limitsAfter: number, reportId?: string): LimitHistoryEntry {
  return { id: newId(), operation, rows, limits_after: limitsAfter, report_id: reportId ?? null, created_at: new Date().toISOString() };
}

function assertRows(rows: number): void {
  if (!Number.isSafeInteger(rows) || rows < 0) throw badRequest('validation_error', 'rows must be a non-negative integer', { rows });
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
  const extra = input.extraItems ?? [];
  for (let attempt = 0; ; attempt++) {
    const { limits } = await readBalance(input.userId);
    if (limits < input.rows) throw paymentRequired(input.rows, limits);
    const entry = newEntry('expense', input.rows, limits - input.rows, input.reportId);
    try {
      await ddb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: userKey(input.userId),
                UpdateExpression: 'SET #l = :after',
                ConditionExpression: '#l = :prev AND #l >= :rows',
                ExpressionAttributeNames: { '#l': 'limits' },
                ExpressionAttributeValues: { ':after': entry.limits_after, ':prev': limits, ':rows': input.rows },
              },
            },
            historyPut(input.userId, entry),
            ...extra,
          ],
        }),
      );
      return { limits_after: entry.limits_after, history: entry };
    } catch (e) {
      const codes = cancellationCodes(e);
      const extraFailed = codes?.slice(2).findIndex((c) => c === 'ConditionalCheckFailed') ?? -1;
      if (extraFailed >= 0) throw conflict('transaction_conflict', 'The change conflicts with the current state', { item_index: extraFailed });
      if (!(codes?.[0] === 'ConditionalCheckFailed' || isTransactionConflict(e)) || attempt >= MAX_ATTEMPTS) throw e;
      await sleep(backoff(attempt));
    }
  }
}

export interface RefundInput {
  userId: string;
  rows: number;
  reportId: string;
}

/**
 * Gives back what a charge for `reportId` took (an upload that failed after charging): limits += rows
 * and a `refund` history record, in one transaction with a marker that makes a second refund of the
 * same report a no-op (returns null then). Returns the new balance otherwise.
 */
export async function refundLimits(input: RefundInput): Promise<{ limits_after: number; history: LimitHistoryEntry } | null> {
  assertRows(input.rows);
  for (let attempt = 0; ; attempt++) {
    const { limits } = await readBalance(input.userId);
    const entry = newEntry('refund', input.rows, limits + input.rows, input.reportId);
    try {
      await ddb().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: userKey(input.userId),
                UpdateExpression: 'SET #l = :after',
                ConditionExpression: '#l = :prev',
                ExpressionAttributeNames: { '#l': 'limits' },
                ExpressionAttributeValues: { ':after': entry.limits_after, ':prev': limits },
              },
            },
            historyPut(input.userId, entry),
            // Kept without TTL: a report id is refunded once, ever.
            idempotencyPut('refund', input.reportId, { limits_after: entry.limits_after }, { user_id: input.userId }, null),
          ],
        }),
      );
      return { limits_after: entry.limits_after, history: entry };
    } catch (e) {
      const codes = cancellationCodes(e);
      if (codes?.[2] === 'ConditionalCheckFailed') return null;
      if (!(codes?.[0] === 'ConditionalCheckFailed' || isTransactionConflict(e)) || attempt >= MAX_ATTEMPTS) throw e;
      await sleep(backoff(attempt));
    }
  }
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
 * Admin top-up (API.md): limits += rows, initial_limits := the new limits, a `topup` history record
 * and, with a key, the idempotency record holding the result — ONE transaction. A key seen before
 * returns the first result and changes nothing (keys are global across users: one key, one operation).
 */
export async function topUp(input: TopUpInput): Promise<TopUpResult> {
  if (!Number.isSafeInteger(input.rows) || input.rows <= 0) throw badRequest('validation_error', 'rows must be a positive integer', { rows: input.rows });
  const idem = input.idempotencyKey;
  if (idem) {
    const prior = await getIdempotentResult<TopUpResult>('topup', idem);
    if (prior) return prior;
  }
  for (let attempt = 0; ; attempt++) {
    const { limits } = await readBalance(input.userId);
    const after = limits + input.rows;
    const result: TopUpResult = { user_id: input.userId, limits: after, initial_limits: after };
    const entry = newEntry('topup', input.rows, after);
    const items: DocTransactItem[] = [
      {
        Update: {
          TableName: tableName(),
          Key: userKey(input.userId),
          UpdateExpression: 'SET #l = :after, initial_limits = :after',
          ConditionExpression: '#l = :prev',
          ExpressionAttributeNames: { '#l': 'limits' },
          ExpressionAttributeValues: { ':after': after, ':prev': limits },
        },
      },
      historyPut(input.userId, entry),
    ];
    if (idem) items.push(idempotencyPut('topup', idem, result, { user_id: input.userId, rows: input.rows }));
    try {
      await ddb().send(new TransactWriteCommand({ TransactItems: items }));
      return result;
    } catch (e) {
      const codes = cancellationCodes(e);
      if (idem && codes?.[2] === 'ConditionalCheckFailed') {
        const prior = await getIdempotentResult<TopUpResult>('topup', idem);
        if (prior) return prior;
      }
      if (!(codes?.[0] === 'ConditionalCheckFailed' || isTransactionConflict(e)) || attempt >= MAX_ATTEMPTS) throw e;
      await sleep(backoff(attempt));
    }
  }
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
export async function listLimitHistory(userId: string, cursor?: string | null, limit = PAGE_SIZE): Promise<HistoryPage> {
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

export function encodeCursor(sk: string): string {
  return Buffer.from(sk, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null;
  return Buffer.from(cursor, 'base64url').toString('utf8');
}
