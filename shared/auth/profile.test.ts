import { describe, expect, it, vi } from 'vitest';
import type { HistoryPage } from '../store/limits.repo';
import type { UserRecord } from '../store/users.repo';
import { limitHistory, presentMe, topUpUser, updateMe, type LimitHistoryDeps, type TopUpDeps } from './profile';

const tax = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 } as UserRecord['tax'];
const user: UserRecord = {
  id: 'u1',
  email: 'a@example.org',
  role: 'seller',
  confirmed: true,
  password_hash: 'secret-hash',
  limits: 100,
  initial_limits: 100,
  tax,
  tax_periods: [{ valid_from: null, ...tax }],
  allocation: 'realization',
  created_at: '2026-01-01T00:00:00.000Z',
};

describe('presentMe', () => {
  it('shows the public fields only (no password hash)', () => {
    const me = presentMe(user);
    expect(me.user.email).toBe('a@example.org');
    expect(me.user).not.toHaveProperty('password_hash');
  });
});

describe('updateMe', () => {
  it('merges a partial plain profile into today’s and stores it from the beginning', async () => {
    const updateUserSettings = vi.fn(async () => user);
    await updateMe({ users: { updateUserSettings } }, user, { tax: { usn_rate: 5 } });
    expect(updateUserSettings).toHaveBeenCalledWith('u1', {
      tax_periods: [{ valid_from: null, ...tax, usn_rate: 5 }],
      allocation: undefined,
    });
  });
  it('refuses a merged profile that is not valid, naming the field under tax', async () => {
    const updateUserSettings = vi.fn(async () => user);
    await expect(updateMe({ users: { updateUserSettings } }, user, { tax: { usn_rate: 99 } })).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(updateUserSettings).not.toHaveBeenCalled();
  });
});

describe('limitHistory', () => {
  const entry = (id: string, report_id: string | null) => ({
    id,
    operation: 'charge' as const,
    rows: 1,
    limits_after: 1,
    report_id,
    created_at: '2026-01-01T00:00:00.000Z',
  });
  const page = { items: [entry('e1', 'r1'), entry('e2', 'gone'), entry('e3', null)], next_cursor: null };
  const deps = (): LimitHistoryDeps => ({
    limits: {
      listLimitHistory: vi.fn(async () => page as unknown as HistoryPage),
      sumLimitHistory: vi.fn(async () => ({ charged: 3, refunded: 0, topped_up: 0 })),
    },
    reports: { getReportTitles: vi.fn(async () => new Map([['r1', 'Week 1']])) },
  });
  it('names each report, marks a gone one deleted, and gives the totals on the first page', async () => {
    const d = deps();
    const r = await limitHistory(d, 'u1', undefined);
    expect(r.items.map((e) => [e.report_title, e.report_deleted])).toEqual([
      ['Week 1', false],
      [null, true],
      [null, false],
    ]);
    expect(r.totals).toEqual({ charged: 3, refunded: 0, topped_up: 0 });
    expect(d.reports.getReportTitles).toHaveBeenCalledWith('u1', ['r1', 'gone']);
  });
  it('a later page carries no totals', async () => {
    const d = deps();
    expect(await limitHistory(d, 'u1', 'c')).not.toHaveProperty('totals');
    expect(d.limits.sumLimitHistory).not.toHaveBeenCalled();
  });
});

describe('topUpUser', () => {
  const deps = (found: UserRecord | null): TopUpDeps => ({
    users: { getUserByEmail: vi.fn(async () => found), getUserById: vi.fn(async () => found) },
    limits: { topUp: vi.fn(async () => ({ user_id: 'u1', limits: 150, initial_limits: 100 })) },
  });
  it('tops up the user found by email, with the idempotency key', async () => {
    const d = deps(user);
    await topUpUser(d, { email: 'a@example.org', rows: 50, idempotencyKey: 'k' });
    expect(d.limits.topUp).toHaveBeenCalledWith({ userId: 'u1', rows: 50, idempotencyKey: 'k' });
  });
  it('an unknown user is 404, nothing topped up', async () => {
    const d = deps(null);
    await expect(topUpUser(d, { user_id: 'nobody', rows: 5 })).rejects.toMatchObject({ status: 404 });
    expect(d.limits.topUp).not.toHaveBeenCalled();
  });
});
