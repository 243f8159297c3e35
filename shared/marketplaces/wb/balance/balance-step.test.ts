/**
 * WB's balance in the sync's steps, on a manual clock: the store in memory with the real store's rules
 * (revisions, the WB account's budget), WB's Finance and balance methods answering what each test scripts.
 * The same against DynamoDB Local and the WB emulator: test/integration/wb-balance.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../../deps';
import { dueAt } from '../../../store/wb-connections.repo';
import type { BalanceRecord } from '../../../store/wb-balance.repo';
import type { FinanceClient, WbOutcome } from '../finance/finance-client';
import { detailedPageOf, type DetailedPage } from '../finance/page-body';
import type { ReportSummary } from '../finance/schemas';
import { DEFAULT_SYNC_SETTINGS, initialCursor } from '../finance/sync-plan';
import { memoryConnections, testConnection, testKeyWrapper } from '../../../../test/support/wb-connections-memory';
import { tick, type StepDeps } from '../sync/step';
import type { BalanceReading } from './client';
import { afterBalance, BALANCE_EVERY_MS, BALANCE_KEEP_UNCHANGED_MS, planBalance } from './balance-plan';

const T0 = Date.parse('2026-03-02T06:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const settings = () => ({ ...DEFAULT_SYNC_SETTINGS, pageLimit: 1, leaseMs: 5 * MINUTE });
const policy = DEFAULT_SYNC_SETTINGS.policy;

/** As the connect route leaves it: the check call used this interval, the first sync call a minute on. */
const connected = () => testConnection(T0, { cursor: { ...initialCursor(T0, '2025-01-01'), nextCallAt: T0 + MINUTE } });

const report: ReportSummary = {
  reportId: 77,
  dateFrom: '2026-02-23',
  dateTo: '2026-03-01',
  reportType: 1,
  sellerFinanceName: 'ИП Тест',
} as ReportSummary;
const page = (rrdId: number): WbOutcome<DetailedPage> => ({
  kind: 'ok',
  value: detailedPageOf([{ rrdId, reportId: 77 } as never]),
});

const RUB = (current: number, forWithdraw: number): WbOutcome<BalanceReading> => ({
  kind: 'ok',
  value: { currency: 'RUB', current, for_withdraw: forWithdraw },
});

/** A connection, its WB (report answers in order, the balance's answer by a function), every call's time. */
async function world(
  reports: Array<WbOutcome<ReportSummary[]> | WbOutcome<DetailedPage>>,
  balance: (n: number) => WbOutcome<BalanceReading>,
) {
  const clock = manualClock(T0);
  const { store, rows } = memoryConnections([await connected()]);
  const calls: Array<{ kind: string; at: number }> = [];
  const kept: BalanceRecord[] = [];
  const told: Array<{ connection: string; at: number }> = [];
  const at = () => clock.now().getTime();
  const client: FinanceClient = {
    listReports: async () => {
      calls.push({ kind: 'list', at: at() });
      return (reports.shift() ?? { kind: 'empty' }) as WbOutcome<ReportSummary[]>;
    },
    detailedPage: async () => {
      calls.push({ kind: 'detail', at: at() });
      return (reports.shift() ?? { kind: 'empty' }) as WbOutcome<DetailedPage>;
    },
  };
  let n = 0;
  const deps: StepDeps = {
    connections: store,
    keyWrapper: () => testKeyWrapper,
    finance: () => client,
    putPage: async () => undefined,
    deletePages: async () => undefined,
    hasIdentity: async () => false,
    importReport: vi.fn(async (_c, p) => ({ kind: 'imported' as const, reportId: p.report_id })),
    expiryMail: async () => undefined,
    clock,
    ids: { newId: () => 'R1' },
    settings,
    balance: {
      client: (token) => {
        expect(token).toBe('the-token');
        return {
          getBalance: async () => {
            calls.push({ kind: 'balance', at: at() });
            return balance(n++);
          },
        };
      },
      putReading: async (_u, r) => {
        kept.push(r);
      },
      afterReading: async (c, now) => {
        told.push({ connection: c.id, at: now });
      },
    },
  };
  /** Ticks every 10 s of the clock for `ms`. */
  const run = async (ms: number) => {
    for (const end = at() + ms; at() < end; clock.advance(10_000)) await tick(deps);
  };
  return { deps, clock, rows, calls, kept, told, run };
}

const gaps = (calls: Array<{ at: number }>) => calls.slice(1).map((c, i) => c.at - calls[i]!.at);

describe('the balance in the sync', () => {
  it('read at the first call after the token is connected, then hourly; never two Finance calls within a minute', async () => {
    const w = await world([{ kind: 'ok', value: [report] }, page(1), page(2), page(3), { kind: 'empty' }], () =>
      RUB(500_00, 300_00),
    );
    await w.run(2 * HOUR + 5 * MINUTE);
    const balance = w.calls.filter((c) => c.kind === 'balance').map((c) => c.at - T0);
    // The connect check took the first minute; the balance is the sync's first call, then every hour.
    expect(balance).toEqual([MINUTE, MINUTE + HOUR, MINUTE + 2 * HOUR]);
    expect(w.calls.slice(0, 6).map((c) => c.kind)).toEqual(['balance', 'list', 'detail', 'detail', 'detail', 'detail']);
    for (const g of gaps(w.calls)) expect(g).toBeGreaterThanOrEqual(MINUTE);
    // The week was read and imported as without the balance.
    expect(w.deps.importReport).toHaveBeenCalledTimes(1);
    // The balance did not change: kept once (the history keeps changes and a point a day).
    expect(w.kept).toEqual([
      {
        wb_seller_id: '4242',
        connection_id: 'C1',
        currency: 'RUB',
        current: 500_00,
        for_withdraw: 300_00,
        as_of: new Date(T0 + MINUTE).toISOString(),
      },
    ]);
    const c = w.rows.get('C1')!;
    expect(c.balance).toMatchObject({ read_at: new Date(T0 + MINUTE + 2 * HOUR).toISOString(), error: null });
    // The connection is due for its next reading an hour on (the idle cursor's next round is a day away).
    expect(dueAt(c)).toBe(T0 + MINUTE + 3 * HOUR);
    // The arrival check ran after the one reading kept, at its time (the payouts it shows: record.ts).
    expect(w.told).toEqual([{ connection: 'C1', at: T0 + MINUTE }]);
  });

  it('a balance WB refuses for the token’s scope (401) never blocks the reports: the week is imported, the refusal kept', async () => {
    const w = await world([{ kind: 'ok', value: [report] }, page(1), { kind: 'empty' }], () => ({
      kind: 'unauthorized',
      message: 'token scope not allowed',
    }));
    await w.run(10 * MINUTE);
    expect(w.calls.map((c) => c.kind)).toEqual(['balance', 'list', 'detail', 'detail']);
    expect(w.deps.importReport).toHaveBeenCalledTimes(1);
    const c = w.rows.get('C1')!;
    expect(c.status).toBe('active');
    expect(c.cursor.phase).toBe('idle');
    expect(c.sync_status).toBe('scheduled');
    expect(c.error).toBeNull();
    expect(c.balance?.error).toMatchObject({
      code: 'wb_balance_scope',
      wb_status: 401,
      at: new Date(T0 + MINUTE).toISOString(),
    });
    expect(c.balance?.error?.message).toMatch(/^WB не даёт баланс по этому токену \(401: token scope not allowed\)/);
    // Tried again an hour later, not before.
    expect(c.balance?.next_at).toBe(T0 + MINUTE + HOUR);
    expect(w.kept).toEqual([]);
    expect(w.told).toEqual([]);
  });

  it('429 on the balance: WB’s wait holds the balance and the report calls alike; then both go on', async () => {
    const w = await world([{ kind: 'ok', value: [] }], (n) =>
      n === 0 ? { kind: 'rate_limited', retryAfterSeconds: 300, limit: 1, remaining: 0, resetSeconds: 300 } : RUB(1, 1),
    );
    await w.run(10 * MINUTE);
    expect(w.calls.map((c) => [c.kind, (c.at - T0) / MINUTE])).toEqual([
      ['balance', 1],
      ['balance', 6],
      ['list', 7],
    ]);
    expect(w.rows.get('C1')!.balance?.error).toBeNull();
  });

  it('a 5xx or a hostile body is retried with backoff (2, 4 … minutes), never sooner than the hour’s plan would', async () => {
    const w = await world([{ kind: 'ok', value: [] }], (n) =>
      n < 2 ? { kind: 'invalid_response', message: 'current: not an amount of roubles: "NaN"' } : RUB(7_00, 5_00),
    );
    await w.run(12 * MINUTE);
    const b = w.calls.filter((c) => c.kind === 'balance').map((c) => (c.at - T0) / MINUTE);
    expect(b).toEqual([1, 3, 7]);
    expect(w.kept).toHaveLength(1);
  });

  it('no balance call on a blocked cursor (the token WB refused for the reports)', async () => {
    const c = await connected();
    expect(planBalance(undefined, { ...c.cursor, phase: 'blocked' }, T0 + HOUR, { everyMs: HOUR, policy })).toEqual({
      kind: 'none',
    });
  });
});

describe('when the connection is due for its balance', () => {
  it('idle: at the next reading; mid-round: not before the cursor’s own next call (WB’s 429 wait, a backoff)', async () => {
    const c = await connected();
    const balance = { next_at: T0 + HOUR, last_call_at: T0, failures: 0, read_at: null, error: null };
    const idle = { ...c, balance, cursor: { ...c.cursor, phase: 'idle' as const, nextCallAt: T0 + 24 * HOUR } };
    expect(dueAt(idle)).toBe(T0 + HOUR);
    const backingOff = { ...c, balance, cursor: { ...c.cursor, phase: 'detail' as const, nextCallAt: T0 + 3 * HOUR } };
    expect(dueAt(backingOff)).toBe(T0 + 3 * HOUR);
    expect(planBalance(balance, backingOff.cursor, T0 + 2 * HOUR, { everyMs: HOUR, policy })).toEqual({
      kind: 'wait',
      until: T0 + 3 * HOUR,
    });
  });
});

describe('afterBalance: what is kept', () => {
  const s = { everyMs: BALANCE_EVERY_MS, policy };
  it('a changed balance is kept at once; an unchanged one once a day', () => {
    const a = afterBalance(undefined, RUB(10, 5), T0, s);
    expect(a.reading).not.toBeNull();
    const b = afterBalance(a.state, RUB(10, 5), T0 + HOUR, s);
    expect(b.reading).toBeNull();
    expect(b.state.read_at).toBe(new Date(T0 + HOUR).toISOString());
    expect(afterBalance(b.state, RUB(10, 6), T0 + 2 * HOUR, s).reading).toEqual({
      currency: 'RUB',
      current: 10,
      for_withdraw: 6,
    });
    expect(afterBalance(b.state, RUB(10, 5), T0 + BALANCE_KEEP_UNCHANGED_MS, s).reading).not.toBeNull();
  });

  it('a refusal keeps the last reading’s time and names WB’s status', () => {
    const a = afterBalance(undefined, RUB(10, 5), T0, s);
    const r = afterBalance(a.state, { kind: 'server_error', status: 503, message: 'down' }, T0 + HOUR, s);
    expect(r.state.read_at).toBe(new Date(T0).toISOString());
    expect(r.state.error).toMatchObject({ code: 'wb_balance_unavailable', wb_status: 503 });
    expect(r.state.error?.message).toMatch(/WB не ответил на запрос баланса \(503\)/);
    expect(r.accountNextAt).toBe(T0 + HOUR + MINUTE);
  });
});
