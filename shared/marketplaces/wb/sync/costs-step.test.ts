/**
 * The per-article cost steps with fakes: the store keeps revisions and a budget per WB account and API
 * the way wb-connections.repo.ts does, the promotion API answers what each test scripts, on a manual
 * clock. Against DynamoDB Local and the WB emulator: test/integration/wb-costs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { costsDueAt, dueAt, type WbConnectionRecord } from '../../../store/wb-connections.repo';
import { advertSource } from '../sources/advert-source';
import type { PaidStorageRow } from '../sources/analytics-schemas';
import { PAID_STORAGE_REPORT } from '../sources/analytics-reports';
import { analyticsSource } from '../sources/analytics-source';
import type { AdvertClient } from '../sources/advert-client';
import type { CostBatch, CostSource } from '../sources/costs';
import type { WbOutcome } from '../finance/finance-client';
import type { ReportTaskClient } from '../sources/report-task';
import { initialCursor } from '../finance/sync-plan';
import { testConnection, testKeyWrapper } from '../../../../test/support/wb-connections-memory';
import {
  costsStart,
  firstCostsDue,
  pendingKinds,
  queueImported,
  runCostStep,
  sourcesFor,
  type CostStepDeps,
} from './costs-step';
import { acquiringSource } from '../sources/acquiring/acquiring-source';

const T0 = Date.parse('2026-03-10T06:00:00Z');

const connection = (scopes: string[]) =>
  testConnection(T0, {
    scopes,
    cursor: { ...initialCursor(T0, '2025-01-01'), phase: 'idle', nextCallAt: T0 + 86_400_000 },
    sync_status: 'scheduled',
  });

function world(c0: WbConnectionRecord, answers: Array<WbOutcome<unknown>>) {
  let row = c0;
  const budget = new Map<string, number>();
  const calls: string[] = [];
  const stored: Array<{ kind: string; batch: CostBatch }> = [];
  const rederived: string[] = [];
  const settled: string[] = [];
  let busy = false;
  const client: AdvertClient = {
    promotionCount: async () => (calls.push('count'), answers.shift() as never),
    adverts: async () => ({ kind: 'empty' }),
    fullstats: async (ids, from, to) => (
      calls.push(`fullstats ${ids.join(',')} ${from}..${to}`),
      answers.shift() as never
    ),
    upd: async () => ({ kind: 'empty' }),
  };
  const source = advertSource({ baseUrl: () => 'http://x', intervalMs: () => 20_000 });
  const sources: CostSource[] = [{ ...source, client: () => client } as CostSource];
  const deps: CostStepDeps = {
    sources,
    putCosts: async (_u, _s, kind, batch) => void stored.push({ kind, batch }),
    reportsToCost: async () => [
      { id: 'R2', period_from: '2026-03-02', period_to: '2026-03-08' },
      { id: 'R1', period_from: '2026-02-23', period_to: '2026-03-01' },
      { id: 'R0', period_from: null, period_to: null },
    ],
    rederive: async (_u, id) => (busy ? 'busy' : (rederived.push(id), 'started')),
    settle: async (_u, id) => void settled.push(id),
    settings: () => ({ scanEveryMs: 600_000, maxFailures: 3, leaseMs: 300_000 }),
  };
  const connections = {
    saveConnection: async (c: WbConnectionRecord) => {
      if (c.rev !== row.rev) return null;
      row = { ...c, rev: c.rev + 1 };
      return row;
    },
    claimStep: async (c: WbConnectionRecord, now: number, until: number, api?: string) => {
      if (c.rev !== row.rev) return { kind: 'busy' as const };
      const key = `${c.wb_seller_id}#${api ?? 'finance'}`;
      const b = budget.get(key) ?? 0;
      if (b > now) return { kind: 'budget' as const, until: b };
      budget.set(key, until);
      row = { ...c, rev: c.rev + 1 };
      return { kind: 'claimed' as const, connection: row };
    },
  };
  const step = (now: number) => runCostStep(deps, connections, () => testKeyWrapper, row, now);
  return {
    step,
    deps,
    calls,
    stored,
    rederived,
    settled,
    budget,
    get row() {
      return row;
    },
    setBusy: (b: boolean) => (busy = b),
  };
}

const count = {
  kind: 'ok' as const,
  value: { adverts: [{ type: 9, status: 9, advert_list: [{ advertId: 5 }, { advertId: 6 }] }] },
};
const stats = (nm: number, rub: number, date: string) => ({
  kind: 'ok' as const,
  value: [
    {
      advertId: 5,
      days: [{ date: `${date}T00:00:00Z`, apps: [{ nms: [{ nmId: nm, sum: rub * 100, sum_price: 0 }] }] }],
    },
  ],
});

describe('the cost steps of the sync', () => {
  it('a token without «Продвижение»: no step at all, the connection is due as before', async () => {
    const w = world(await connection(['Финансы']), []);
    expect(costsStart(w.deps, w.row)).toEqual({});
    expect(await w.step(T0)).toBeNull();
    expect(w.calls).toEqual([]);
    expect(dueAt(w.row)).toBe(T0 + 86_400_000);
  });

  it('a token with «Продвижение» gets its cost state with the first Finance step: due at once for the first scan', async () => {
    const w = world(await connection(['Финансы', 'Продвижение']), []);
    const start = costsStart(w.deps, w.row);
    expect(start.costs).toMatchObject({ jobs: [], next_scan_at: 0 });
    expect(dueAt({ ...w.row, ...start })).toBe(0);
    expect(costsStart(w.deps, { ...w.row, ...start })).toEqual({});
    expect(costsStart(undefined, w.row)).toEqual({});
  });

  it('scan → count → fullstats per report, one WB call a step on the API’s own budget, then the rebuild of each report', async () => {
    const w = world(await connection(['Финансы', 'Продвижение']), [
      count,
      stats(101, 400, '2026-02-24'),
      count,
      stats(102, 250, '2026-03-03'),
    ]);
    let now = T0;
    expect(await w.step(now)).toBe('scanned');
    // Oldest period first; the report without a period is skipped.
    expect(w.row.costs!.jobs.map((j) => j.report_id)).toEqual(['R1', 'R2']);
    expect(costsDueAt(w.row)).toBe(now);
    expect(await w.step(now)).toBe('cost_called');
    expect(w.calls).toEqual(['count']);
    // The next call waits for the API's interval, whatever the step is asked.
    expect(await w.step(now + 1_000)).toBeNull();
    expect(dueAt(w.row)).toBe(now + 20_000);
    now += 20_000;
    expect(await w.step(now)).toBe('cost_called');
    expect(w.calls[1]).toBe('fullstats 5,6 2026-02-23..2026-03-01');
    expect(w.row.costs!.rederive).toEqual(['R1']);
    expect(w.row.costs!.done).toEqual({ R1: '2026-02-23..2026-03-01' });
    // The marker of the period, then each campaign's days (an empty one for campaign 6).
    expect(w.stored.map((s) => s.batch.part)).toEqual(['count', 'c5', 'c6']);
    expect(w.stored[1]!.batch.costs).toEqual([{ date: '2026-02-24', nmId: 101, kopecks: 40_000 }]);
    // The rebuild before the next call; a report being built is tried again later.
    w.setBusy(true);
    expect(await w.step(now)).toBeNull();
    w.setBusy(false);
    expect(await w.step(now)).toBe('rederived');
    expect(w.rederived).toEqual(['R1']);
    now += 20_000;
    expect(await w.step(now)).toBe('cost_called');
    now += 20_000;
    expect(await w.step(now)).toBe('cost_called');
    expect(await w.step(now)).toBe('rederived');
    expect(w.rederived).toEqual(['R1', 'R2']);
    // Nothing left: the next look is a scan interval away, and it queues nothing new.
    expect(await w.step(now)).toBeNull();
    expect(costsDueAt(w.row)).toBe(T0 + 600_000);
    expect(await w.step(T0 + 600_000)).toBe('scanned');
    expect(w.row.costs!.jobs).toEqual([]);
  });

  it('a week just imported: its jobs ahead of the queue, due at the import, the first call at once; pending until the rebuild starts', async () => {
    const w = world(await connection(['Финансы', 'Продвижение']), [count, stats(103, 120, '2026-03-10')]);
    expect(pendingKinds(w.deps, w.row)).toEqual(['ads']);
    expect(pendingKinds(undefined, w.row)).toEqual([]);
    // A scan's job of an older report is queued, not started.
    expect(await w.step(T0)).toBe('scanned');
    const importedAt = T0 + 5_000;
    const queued = queueImported(w.deps, w.row, { id: 'R9', from: '2026-03-09', to: '2026-03-15' }, importedAt);
    expect(queued.costs!.jobs.map((j) => [j.report_id, j.first ?? false])).toEqual([
      ['R9', true],
      ['R1', false],
      ['R2', false],
    ]);
    // Queued once: a repeated import changes nothing.
    expect(
      queueImported(w.deps, { ...w.row, ...queued }, { id: 'R9', from: '2026-03-09', to: '2026-03-15' }, importedAt),
    ).toEqual({});
    const c = { ...w.row, ...queued };
    expect(costsDueAt(c)).toBe(importedAt);
    expect(firstCostsDue(c, importedAt)).toBe(true);
    expect(firstCostsDue(w.row, importedAt)).toBe(false);
    // The step at the import's own time makes the week's first call: no wait for a scan.
    const w2 = world(c, [count, stats(103, 120, '2026-03-10')]);
    expect(await w2.step(importedAt)).toBe('cost_called');
    expect(w2.calls).toEqual(['count']);
    expect(await w2.step(importedAt + 20_000)).toBe('cost_called');
    expect(w2.calls[1]).toBe('fullstats 5,6 2026-03-09..2026-03-15');
    expect(w2.row.costs!.rederive).toEqual(['R9']);
    expect(w2.settled).toEqual([]);
    // The rebuild starts: the report no longer waits for WB.
    expect(await w2.step(importedAt + 20_000)).toBe('rederived');
    expect(w2.settled).toEqual(['R9']);
    expect(firstCostsDue(w2.row, importedAt + 20_000)).toBe(false);
  });

  it('a source WB refuses ends the wait of the reports it had queued (no rebuild, nothing to wait for)', async () => {
    const c = await connection(['Финансы', 'Продвижение']);
    const w = world(c, [{ kind: 'forbidden', message: 'scope is not allowed' }]);
    const queued = queueImported(w.deps, c, { id: 'R9', from: '2026-03-09', to: '2026-03-15' }, T0);
    const w2 = world({ ...c, ...queued }, [{ kind: 'forbidden', message: 'scope is not allowed' }]);
    expect(await w2.step(T0)).toBe('cost_called');
    expect(w2.row.costs!.refused).toEqual(['advert']);
    expect(w2.row.costs!.rederive).toEqual([]);
    expect(w2.settled).toEqual(['R9']);
  });

  it('a 429 waits X-Ratelimit-Retry; a 403 stops the source for the connection and says so', async () => {
    const w = world(await connection(['Финансы', 'Продвижение']), [
      { kind: 'rate_limited', retryAfterSeconds: 50, limit: 1, remaining: 0, resetSeconds: 50 },
      { kind: 'forbidden', message: 'scope is not allowed' },
    ]);
    await w.step(T0);
    expect(await w.step(T0)).toBe('cost_called');
    expect(w.row.costs!.jobs[0]).toMatchObject({ failures: 1, next_at: T0 + 50_000 });
    expect(await w.step(T0 + 50_000)).toBe('cost_called');
    expect(w.row.costs!.jobs).toEqual([]);
    expect(w.row.costs!.refused).toEqual(['advert']);
    expect(w.row.costs!.error?.code).toBe('wb_token_no_scope');
    expect(await w.step(T0 + 10_000_000)).toBeNull();
    expect(w.calls).toEqual(['count', 'count']);
  });

  it('another connection of the WB account used the API’s budget: the job waits for it, no call', async () => {
    const w = world(await connection(['Продвижение']), [count]);
    await w.step(T0);
    w.budget.set('4242#advert', T0 + 5_000);
    expect(await w.step(T0)).toBe('cost_budget');
    expect(w.calls).toEqual([]);
    expect(w.row.costs!.jobs[0]!.next_at).toBe(T0 + 5_000);
    // The Finance budget is another one.
    expect(w.budget.has('4242#finance')).toBe(false);
  });
});

describe('the paid-storage source in the cost steps', () => {
  it('its plan kept in the job between steps: create, status until done on the step’s clock, download stored', async () => {
    const w = world(await connection(['Финансы', 'Аналитика']), []);
    const answers: Array<WbOutcome<unknown>> = [
      { kind: 'ok', value: 'task-1' },
      { kind: 'ok', value: 'processing' },
      { kind: 'ok', value: 'done' },
      {
        kind: 'ok',
        value: [{ date: '2026-02-25', nmId: 101, warehousePrice: '12.34' }],
      },
    ];
    const calls: string[] = [];
    const client: ReportTaskClient<PaidStorageRow> = {
      createTask: async (win) => (calls.push(`create ${win.dateFrom}..${win.dateTo}`), answers.shift() as never),
      taskStatus: async (id) => (calls.push(`status ${id}`), answers.shift() as never),
      download: async (id) => (calls.push(`download ${id}`), answers.shift() as never),
    };
    const storage = analyticsSource('storage', PAID_STORAGE_REPORT, {
      baseUrl: () => 'http://x',
      callIntervalMs: () => 60_000,
    });
    w.deps.sources = [{ ...storage, client: () => client } as CostSource];
    w.deps.reportsToCost = async () => [{ id: 'R1', period_from: '2026-02-23', period_to: '2026-03-01' }];
    expect(costsStart(w.deps, w.row).costs).toBeDefined();
    expect(await w.step(T0)).toBe('scanned');
    expect(await w.step(T0)).toBe('cost_called');
    // The job holds the plan (JSON) and its next call: the status, WB's 5 s later.
    const job = w.row.costs!.jobs[0]!;
    expect(job).toMatchObject({
      source: 'storage',
      next_at: T0 + 5_000,
      state: { call: { op: 'status', taskId: 'task-1' } },
    });
    expect(JSON.parse(JSON.stringify(job.state))).toEqual(job.state);
    expect(await w.step(T0 + 4_000)).toBeNull();
    expect(await w.step(T0 + 5_000)).toBe('cost_called');
    expect(await w.step(T0 + 10_000)).toBe('cost_called');
    expect(await w.step(T0 + 15_000)).toBe('cost_called');
    expect(calls).toEqual(['create 2026-02-23..2026-03-01', 'status task-1', 'status task-1', 'download task-1']);
    expect(w.stored).toEqual([
      {
        kind: 'storage',
        batch: {
          part: 'report',
          from: '2026-02-23',
          to: '2026-03-01',
          costs: [{ date: '2026-02-25', nmId: 101, kopecks: 1234 }],
        },
      },
    ]);
    expect(w.row.costs!.done).toEqual({ R1: '2026-02-23..2026-03-01' });
    expect(w.row.costs!.rederive).toEqual(['R1']);
    expect(w.budget.get('4242#paid_storage')).toBe(T0 + 20_000);
  });
});

describe('a source asked for only when the report’s rows carry its kind (acquiring billed separately)', () => {
  const acquiring = acquiringSource({ baseUrl: () => 'http://x', intervalMs: () => 60_000 }) as CostSource;
  const ads = advertSource({ baseUrl: () => 'http://x', intervalMs: () => 20_000 }) as CostSource;

  it('is asked for a report whose pages were marked, or whose totals hold its field; never otherwise', () => {
    expect(sourcesFor([ads, acquiring], {}).map((s) => s.id)).toEqual(['advert']);
    expect(sourcesFor([ads, acquiring], { marks: ['acquiring_billed'] }).map((s) => s.id)).toEqual([
      'advert',
      'acquiring',
    ]);
    expect(sourcesFor([ads, acquiring], { totals: { acquiring_billed: 1250 } }).map((s) => s.id)).toEqual([
      'advert',
      'acquiring',
    ]);
    expect(sourcesFor([ads, acquiring], { totals: { acquiring_billed: 0 } }).map((s) => s.id)).toEqual(['advert']);
  });
});
