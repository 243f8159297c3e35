import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACCEPTANCE_REPORT, PAID_STORAGE_REPORT } from './analytics-reports';
import { analyticsSource, REPORT_PART } from './analytics-source';
import type { CostBatch, CostSource, CostStepResult } from './costs';
import type { FetchLike } from '../finance/finance-client';

const MINUTE = 60_000;
const T0 = Date.parse('2026-04-01T10:00:00Z');

/** A scripted WB seller-analytics-api: tasks done at the `doneAfter`-th status call; overrides first. */
function fakeWb(
  rows: Record<'paid_storage' | 'acceptance_report', Array<Record<string, unknown>>>,
  opts: {
    doneAfter?: number;
    overrides?: Array<{ status: number; body?: unknown; headers?: Record<string, string> }>;
  } = {},
) {
  const log: string[] = [];
  const tasks = new Map<string, { from: string; to: string; statusCalls: number }>();
  const overrides = [...(opts.overrides ?? [])];
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(body === undefined ? null : JSON.stringify(body), { status, headers });
  const fetch: FetchLike = async (url, init) => {
    expect(init.headers).toMatchObject({ Authorization: 'tok' });
    const u = new URL(url);
    const m = /^\/api\/v1\/(paid_storage|acceptance_report)(?:\/tasks\/([^/]+)\/(status|download))?$/.exec(u.pathname)!;
    const op = m[3] ?? 'create';
    log.push(op === 'create' ? `create ${u.searchParams.get('dateFrom')}..${u.searchParams.get('dateTo')}` : op);
    const o = overrides.shift();
    if (o) return json(o.status, o.body, o.headers);
    if (op === 'create') {
      const id = randomUUID();
      tasks.set(id, { from: u.searchParams.get('dateFrom')!, to: u.searchParams.get('dateTo')!, statusCalls: 0 });
      return json(200, { data: { taskId: id } });
    }
    const task = tasks.get(m[2]!)!;
    if (op === 'status') {
      task.statusCalls++;
      return json(200, { data: { id: m[2], status: task.statusCalls >= (opts.doneAfter ?? 2) ? 'done' : 'new' } });
    }
    const kind = m[1] as 'paid_storage' | 'acceptance_report';
    const day = (r: Record<string, unknown>) => String(kind === 'paid_storage' ? r.date : r.shkCreateDate);
    return json(
      200,
      rows[kind].filter((r) => day(r) >= task.from && day(r) <= task.to),
    );
  };
  return { fetch, log };
}

interface Driven {
  /** [ms since T0, the call's op] of every call made. */
  calls: Array<[number, string]>;
  batches: CostBatch[];
  results: CostStepResult[];
}

/**
 * The cost step's loop on an injected clock (shared/marketplaces/wb/sync/costs-step.ts): a call when due, the source's
 * `next` at that moment, the state stored as JSON, the next call after the source's wait and no sooner
 * than its pacing.
 */
async function drive(source: CostSource, from: string, to: string, maxCalls = 100): Promise<Driven> {
  let state = source.first(from, to);
  let nextAt = T0;
  const out: Driven = { calls: [], batches: [], results: [] };
  const client = source.client('tok');
  for (let i = 0; i < maxCalls && state.call; i++) {
    const now = nextAt;
    out.calls.push([now - T0, String(state.call.op)]);
    const outcome = await source.call(client, state);
    const r = source.next(state, outcome, from, to, now);
    out.results.push(r);
    out.batches.push(...r.batches);
    if (r.refused || r.gaveUp !== undefined) break;
    if (!r.retry) state = JSON.parse(JSON.stringify(r.state)) as typeof state;
    nextAt = now + Math.max(r.waitMs, source.pacing().intervalMs);
  }
  return out;
}

const storageRows = [
  { date: '2026-03-02', nmId: 11, warehousePrice: 1.25 },
  { date: '2026-03-02', nmId: 11, warehousePrice: 0.5 },
  { date: '2026-03-03', nmId: 12, warehousePrice: 3 },
  { date: '2026-03-10', nmId: 11, warehousePrice: 2 },
  { date: '2026-03-31', nmId: 12, warehousePrice: 0.07 },
];
const acceptanceRows = [
  { nmID: 11, shkCreateDate: '2026-03-04', total: 40.1, count: 3 },
  { nmID: 12, shkCreateDate: '2026-03-04', total: 9.9, count: 1 },
  { nmID: 12, shkCreateDate: '2026-04-05', total: 7, count: 1 },
];
const ROWS = { paid_storage: storageRows, acceptance_report: acceptanceRows };
const options = (fetch: FetchLike, minuteMs = MINUTE) => ({
  baseUrl: () => 'http://wb.test/',
  callIntervalMs: () => minuteMs,
  fetch,
});

describe('the paid storage and acceptance cost sources', () => {
  it('are «Аналитика» sources with their own budgets, paced by WB’s report limits scaled to the setting', () => {
    const { fetch } = fakeWb(ROWS);
    const s = analyticsSource('storage', PAID_STORAGE_REPORT, options(fetch));
    const a = analyticsSource('acceptance', ACCEPTANCE_REPORT, options(fetch));
    expect([s.id, s.kind, s.api, s.scopeName, s.scopeBit]).toEqual([
      'storage',
      'storage',
      'paid_storage',
      'Аналитика',
      2,
    ]);
    expect([a.id, a.kind, a.api, a.scopeName]).toEqual(['acceptance', 'acceptance', 'acceptance', 'Аналитика']);
    // WB: a status call every 5 s is the quickest method; a 1-second «minute» scales it alike.
    expect(s.pacing().intervalMs).toBe(5_000);
    expect(analyticsSource('storage', PAID_STORAGE_REPORT, options(fetch, 1_000)).pacing().intervalMs).toBe(83);
  });

  it('a week of storage: create, status until done, download; stored per day and card as part `report`', async () => {
    const wb = fakeWb(ROWS);
    const run = await drive(
      analyticsSource('storage', PAID_STORAGE_REPORT, options(wb.fetch)) as CostSource,
      '2026-03-02',
      '2026-03-08',
    );
    expect(wb.log).toEqual(['create 2026-03-02..2026-03-08', 'status', 'status', 'download']);
    // Status polled every 5 s (WB's status limit), the download at once when done.
    expect(run.calls).toEqual([
      [0, 'create'],
      [5_000, 'status'],
      [10_000, 'status'],
      [15_000, 'download'],
    ]);
    expect(run.results.every((r) => !r.retry && !r.refused && r.gaveUp === undefined)).toBe(true);
    expect(run.batches).toEqual([
      {
        part: REPORT_PART,
        from: '2026-03-02',
        to: '2026-03-08',
        costs: [
          { date: '2026-03-02', nmId: 11, kopecks: 175 },
          { date: '2026-03-03', nmId: 12, kopecks: 300 },
        ],
      },
    ]);
    expect(run.results.at(-1)!.state.call).toBeNull();
  });

  it('a month of storage: windows of 8 days, tasks made within WB’s burst, every window stored once', async () => {
    const wb = fakeWb(ROWS);
    const run = await drive(
      analyticsSource('storage', PAID_STORAGE_REPORT, options(wb.fetch)) as CostSource,
      '2026-03-01',
      '2026-03-31',
    );
    expect(wb.log.filter((l) => l.startsWith('create'))).toEqual([
      'create 2026-03-01..2026-03-08',
      'create 2026-03-09..2026-03-16',
      'create 2026-03-17..2026-03-24',
      'create 2026-03-25..2026-03-31',
    ]);
    expect(run.batches.map((b) => [b.from, b.to]).sort()).toEqual([
      ['2026-03-01', '2026-03-08'],
      ['2026-03-09', '2026-03-16'],
      ['2026-03-17', '2026-03-24'],
      ['2026-03-25', '2026-03-31'],
    ]);
    expect(run.batches.flatMap((b) => b.costs).reduce((s, c) => s + c.kopecks, 0)).toBe(175 + 300 + 200 + 7);
    // One download a minute (burst 1): four windows take three minutes of downloads at least.
    const downloads = run.calls.filter(([, op]) => op === 'download').map(([t]) => t);
    expect(downloads).toHaveLength(4);
    for (let i = 1; i < downloads.length; i++) expect(downloads[i]! - downloads[i - 1]!).toBeGreaterThanOrEqual(MINUTE);
  });

  it('acceptance over 40 days: two windows (≤ 31 days), the second task a minute after the first (burst 1)', async () => {
    const wb = fakeWb(ROWS);
    const run = await drive(
      analyticsSource('acceptance', ACCEPTANCE_REPORT, options(wb.fetch)) as CostSource,
      '2026-03-01',
      '2026-04-09',
    );
    expect(wb.log.filter((l) => l.startsWith('create'))).toEqual([
      'create 2026-03-01..2026-03-31',
      'create 2026-04-01..2026-04-09',
    ]);
    const creates = run.calls.filter(([, op]) => op === 'create').map(([t]) => t);
    expect(creates[1]! - creates[0]!).toBeGreaterThanOrEqual(MINUTE);
    const statuses = run.calls.filter(([, op]) => op === 'status').map(([t]) => t);
    for (let i = 1; i < statuses.length; i++) expect(statuses[i]! - statuses[i - 1]!).toBeGreaterThanOrEqual(5_000);
    expect(run.batches).toEqual([
      {
        part: REPORT_PART,
        from: '2026-03-01',
        to: '2026-03-31',
        costs: [
          { date: '2026-03-04', nmId: 11, kopecks: 4010 },
          { date: '2026-03-04', nmId: 12, kopecks: 990 },
        ],
      },
      {
        part: REPORT_PART,
        from: '2026-04-01',
        to: '2026-04-09',
        costs: [{ date: '2026-04-05', nmId: 12, kopecks: 700 }],
      },
    ]);
  });

  it('a 429 holds the method until WB’s X-Ratelimit-Retry, counts no failure, and the fetch goes on', async () => {
    const wb = fakeWb(ROWS, {
      overrides: [
        { status: 200, body: { data: { taskId: randomUUID() } } },
        { status: 429, body: { title: 'too many requests' }, headers: { 'X-Ratelimit-Retry': '42' } },
      ],
    });
    const source = analyticsSource('storage', PAID_STORAGE_REPORT, options(wb.fetch)) as CostSource;
    const first = source.first('2026-03-02', '2026-03-08');
    const client = source.client('tok');
    const created = source.next(first, await source.call(client, first), '2026-03-02', '2026-03-08', T0);
    expect(created.state.call).toMatchObject({ op: 'status' });
    expect(created.waitMs).toBe(5_000);
    const limited = source.next(
      created.state,
      await source.call(client, created.state),
      '2026-03-02',
      '2026-03-08',
      T0 + 5_000,
    );
    expect(limited.retry).toBeUndefined();
    expect(limited.refused).toBeUndefined();
    expect(limited.state.call).toMatchObject({ op: 'status' });
    // Status's bucket (burst 5) is empty until the retry time.
    expect(limited.waitMs).toBe(42_000);
    expect((limited.state.memo as { plan: { failures: number } }).plan.failures).toBe(0);
  });

  it('5xx, network trouble or an invalid answer: the same call again after twice the method’s interval', async () => {
    const wb = fakeWb(ROWS, { overrides: [{ status: 502, body: { title: 'bad gateway' } }] });
    const source = analyticsSource('storage', PAID_STORAGE_REPORT, options(wb.fetch)) as CostSource;
    const first = source.first('2026-03-02', '2026-03-08');
    const r = source.next(first, await source.call(source.client('tok'), first), '2026-03-02', '2026-03-08', T0);
    expect(r).toMatchObject({ retry: true, waitMs: 2 * MINUTE, batches: [] });
    expect(r.state).toBe(first);
    const bad = source.next(first, { kind: 'invalid_response', message: 'x' }, '2026-03-02', '2026-03-08', T0);
    expect(bad.retry).toBe(true);
  });

  it('a token WB refuses stops the source; a malformed request gives the period up', async () => {
    for (const [status, refused] of [
      [403, 'forbidden'],
      [401, 'unauthorized'],
    ] as const) {
      const wb = fakeWb(ROWS, { overrides: [{ status, body: { detail: 'scope is not allowed' } }] });
      const run = await drive(
        analyticsSource('acceptance', ACCEPTANCE_REPORT, options(wb.fetch)) as CostSource,
        '2026-03-02',
        '2026-03-08',
      );
      expect(run.results).toHaveLength(1);
      expect(run.results[0]).toMatchObject({ refused, batches: [], state: { call: null } });
    }
    const wb = fakeWb(ROWS, { overrides: [{ status: 400, body: { detail: 'dateTo should be greater dateFrom' } }] });
    const run = await drive(
      analyticsSource('storage', PAID_STORAGE_REPORT, options(wb.fetch)) as CostSource,
      '2026-03-02',
      '2026-03-08',
    );
    expect(run.results[0]!.gaveUp).toMatch(/dateTo should be greater dateFrom/);
    expect(run.results[0]!.state.call).toBeNull();
  });

  it('a task WB purged is made again for the same window, then read as usual', async () => {
    const wb = fakeWb(ROWS, {
      overrides: [
        { status: 200, body: { data: { taskId: randomUUID() } } },
        { status: 200, body: { data: { id: 'x', status: 'purged' } } },
      ],
    });
    const run = await drive(
      analyticsSource('storage', PAID_STORAGE_REPORT, options(wb.fetch)) as CostSource,
      '2026-03-02',
      '2026-03-08',
    );
    expect(wb.log).toEqual([
      'create 2026-03-02..2026-03-08',
      'status',
      'create 2026-03-02..2026-03-08',
      'status',
      'status',
      'download',
    ]);
    expect(run.batches).toHaveLength(1);
    expect(run.results.at(-1)!.state.call).toBeNull();
  });
});
