/**
 * Row limits against DynamoDB Local: charges never overdraw under concurrency, every history record's
 * limits_after is the exact balance after its change, refunds and top-ups are one-shot.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { ddb, tableName } from '../../shared/store/client';
import {
  chargeLimits,
  listLimitHistory,
  refundLimits,
  topUp,
  type LimitHistoryEntry,
} from '../../shared/store/limits.repo';
import { createUser, getUserById } from '../../shared/store/users.repo';

async function newUser(limits = 10_000): Promise<string> {
  const u = await createUser({ email: `limits-${randomUUID()}@example.com`, confirmed: true, limits });
  return u.id;
}

async function allHistory(userId: string): Promise<LimitHistoryEntry[]> {
  const out: LimitHistoryEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await listLimitHistory(userId, cursor);
    out.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

async function failureOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a failure');
}

describe('chargeLimits', () => {
  it('10 concurrent charges of 3000 against 10000: exactly 3 succeed, 1000 left, 3 exact history records', async () => {
    const userId = await newUser(10_000);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => chargeLimits({ userId, rows: 3000, reportId: `r${i}` })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(AppError);
      expect((r.reason as AppError).status).toBe(402);
      expect((r.reason as AppError).code).toBe('insufficient_limits');
      expect((r.reason as AppError).details).toEqual({ rows: 3000, limits: 1000 });
    }
    expect((await getUserById(userId))?.limits).toBe(1000);
    const history = await allHistory(userId);
    expect(history).toHaveLength(3);
    expect(history.every((h) => h.operation === 'expense' && h.rows === 3000)).toBe(true);
    expect(history.map((h) => h.limits_after).sort((a, b) => b - a)).toEqual([7000, 4000, 1000]);
  });

  it('mixed concurrent charges: the balances recorded chain exactly and never go below zero', async () => {
    const userId = await newUser(1000);
    const sizes = [100, 250, 50, 400, 300, 120, 80, 200];
    await Promise.allSettled(sizes.map((rows) => chargeLimits({ userId, rows })));
    const history = (await allHistory(userId)).reverse();
    let balance = 1000;
    for (const h of history) {
      balance -= h.rows;
      expect(h.limits_after).toBe(balance);
    }
    expect(balance).toBeGreaterThanOrEqual(0);
    expect((await getUserById(userId))?.limits).toBe(balance);
  });

  it('charging more than is left: 402 {rows, limits}, nothing written', async () => {
    const userId = await newUser(500);
    const e = await failureOf(chargeLimits({ userId, rows: 501 }));
    expect(e.status).toBe(402);
    expect(e.details).toEqual({ rows: 501, limits: 500 });
    expect((await getUserById(userId))?.limits).toBe(500);
    expect(await allHistory(userId)).toHaveLength(0);
  });

  it('commits the caller’s items in the same transaction, or nothing when one of them fails', async () => {
    const userId = await newUser(1000);
    const marker = { pk: `TEST#${randomUUID()}`, sk: 'STATE' };
    const put = {
      Put: {
        TableName: tableName(),
        Item: { ...marker, state: 'charged' },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
    const r = await chargeLimits({ userId, rows: 100, reportId: 'rep1', extraItems: [put] });
    expect(r.limits_after).toBe(900);
    expect(r.history).toMatchObject({ operation: 'expense', rows: 100, limits_after: 900, report_id: 'rep1' });
    expect((await ddb().send(new GetCommand({ TableName: tableName(), Key: marker }))).Item?.state).toBe('charged');

    // Same marker again: its condition fails, so the charge must not happen either.
    const e = await failureOf(chargeLimits({ userId, rows: 100, extraItems: [put] }));
    expect(e.status).toBe(409);
    expect(e.details).toEqual({ item_index: 0 });
    expect((await getUserById(userId))?.limits).toBe(900);
    expect(await allHistory(userId)).toHaveLength(1);
  });
});

describe('refundLimits', () => {
  it('restores the charge once per report and records a `refund`', async () => {
    const userId = await newUser(10_000);
    const first = `rep-${randomUUID()}`;
    await chargeLimits({ userId, rows: 3000, reportId: first });
    const r = await refundLimits({ userId, rows: 3000, reportId: first });
    expect(r?.limits_after).toBe(10_000);
    expect(r?.history).toMatchObject({ operation: 'refund', rows: 3000, report_id: first });
    const reportId = `rep-${randomUUID()}`;
    await chargeLimits({ userId, rows: 2000, reportId });
    expect((await refundLimits({ userId, rows: 2000, reportId }))?.limits_after).toBe(10_000);
    expect(await refundLimits({ userId, rows: 2000, reportId })).toBeNull();
    expect((await getUserById(userId))?.limits).toBe(10_000);
    const ops = (await allHistory(userId)).map((h) => `${h.operation}:${h.rows}:${h.limits_after}`);
    expect(ops).toEqual(['refund:2000:10000', 'expense:2000:8000', 'refund:3000:10000', 'expense:3000:7000']);
  });
});

describe('topUp', () => {
  it('adds rows, sets initial_limits to the new limits, records `topup`', async () => {
    const userId = await newUser(1000);
    await chargeLimits({ userId, rows: 400 });
    expect(await topUp({ userId, rows: 5000 })).toEqual({ user_id: userId, limits: 5600, initial_limits: 5600 });
    const u = await getUserById(userId);
    expect([u?.limits, u?.initial_limits]).toEqual([5600, 5600]);
    expect((await allHistory(userId))[0]).toMatchObject({
      operation: 'topup',
      rows: 5000,
      limits_after: 5600,
      report_id: null,
    });
  });

  it('the same idempotency key applies once, even when repeated concurrently', async () => {
    const userId = await newUser(0);
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => topUp({ userId, rows: 700, idempotencyKey: key })),
    );
    for (const r of results) expect(r).toEqual({ user_id: userId, limits: 700, initial_limits: 700 });
    expect((await getUserById(userId))?.limits).toBe(700);
    expect(await allHistory(userId)).toHaveLength(1);
  });
});

describe('listLimitHistory', () => {
  it('pages newest first with an opaque cursor and rejects a malformed one', async () => {
    const userId = await newUser(1000);
    for (let i = 1; i <= 55; i++) await chargeLimits({ userId, rows: 1 });
    const first = await listLimitHistory(userId);
    expect(first.items).toHaveLength(50);
    expect(first.items[0]!.limits_after).toBe(945);
    expect(first.items[49]!.limits_after).toBe(994);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await listLimitHistory(userId, first.next_cursor);
    expect(second.items.map((h) => h.limits_after)).toEqual([995, 996, 997, 998, 999]);
    expect(second.next_cursor).toBeNull();

    const bad = await failureOf(listLimitHistory(userId, '%%%'));
    expect([bad.status, bad.code]).toEqual([400, 'invalid_cursor']);
    // A cursor only moves within the caller's own history.
    const other = await newUser(10);
    expect((await listLimitHistory(other, first.next_cursor)).items).toEqual([]);
  });
});
