/**
 * The emulator's paid-storage and acceptance reports (scripts/local/wb/analytics.ts), driven by the real
 * client (shared/marketplaces/wb/sources/report-task.ts, per report of analytics-reports.ts) and the plan (shared/marketplaces/wb/sources/report-plan.ts) on
 * an injected clock shared with the emulator: no real minutes pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WbOutcome } from '../../../shared/marketplaces/wb/finance/finance-client';
import { moneyToKopecks } from '../../../shared/marketplaces/wb/money';
import {
  advanceReport,
  claimReportCall,
  initialReportState,
  makeReportCall,
  planReportCall,
  reportPlanSettings,
  type ReportEffect,
  type ReportFetchState,
  type ReportPlanSettings,
} from '../../../shared/marketplaces/wb/sources/report-plan';
import type { ArticleCost } from '../../../shared/marketplaces/wb/sources/costs';
import {
  createReportTaskClient,
  reportCosts,
  type ReportTaskClient,
} from '../../../shared/marketplaces/wb/sources/report-task';
import {
  ACCEPTANCE_REPORT,
  PAID_STORAGE_REPORT,
  type ReportKind,
} from '../../../shared/marketplaces/wb/sources/analytics-reports';
import { startWbEmulator, type WbEmulator } from '../wb-emulator';

const MINUTE = 60_000;
let clock = Date.parse('2026-02-02T09:00:00Z');
let emu: WbEmulator;

beforeAll(async () => {
  emu = await startWbEmulator({
    port: 0,
    now: () => clock,
    weeks: 3,
    rowsPerWeek: 600,
    seed: 5,
    firstMonday: '2026-01-05',
  });
});
afterAll(() => emu.close());

const storage = (token = emu.tokens.valid) => createReportTaskClient(PAID_STORAGE_REPORT, { baseUrl: emu.url, token });
const acceptance = (token = emu.tokens.valid) => createReportTaskClient(ACCEPTANCE_REPORT, { baseUrl: emu.url, token });
const ok = <T>(o: WbOutcome<T>): T => {
  if (o.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(o)}`);
  return o.value;
};
const weekNmIds = (i: number) => new Set(emu.weeks[i]!.rows.map((r) => r.nmId ?? 0).filter((n) => n > 0));
const sum = (costs: ArticleCost[]) => costs.reduce((a, c) => a + c.kopecks, 0);

/** A whole fetch on the shared clock: each call when the plan allows it; the emulator's answers decide. */
async function fetchReport<Row>(
  kind: ReportKind,
  client: ReportTaskClient<Row>,
  from: string,
  to: string,
  settings: ReportPlanSettings = reportPlanSettings(kind),
  opts: { emulator?: WbEmulator; afterCall?: (state: ReportFetchState) => void } = {},
) {
  let state = initialReportState(kind, from, to, settings);
  const start = clock;
  const rows: Row[] = [];
  const effects: Array<ReportEffect<Row>> = [];
  const log = (opts.emulator ?? emu).calls;
  const firstCall = log.length;
  for (let i = 0; i < 400; i++) {
    const plan = planReportCall(state, clock, settings);
    if (plan.kind === 'wait') {
      clock = plan.until;
      continue;
    }
    if (plan.kind !== 'call') {
      const calls = log.slice(firstCall);
      return { state, rows, effects, calls, elapsedMs: clock - start };
    }
    const claimed = claimReportCall(state, plan.call, clock, settings);
    const outcome = await makeReportCall(client, plan.call);
    const r = advanceReport<Row>(claimed, plan.call, outcome, clock, settings);
    state = r.state;
    effects.push(...r.effects);
    for (const e of r.effects) if (e.kind === 'rows') rows.push(...e.rows);
    opts.afterCall?.(state);
  }
  throw new Error('the fetch did not end');
}

describe('emulated reports: consistent with the demo weeks', () => {
  it("each week's storage and acceptance sum to within 1 % of its weekly figures, over its own articles", () => {
    expect(emu.analytics.weeks).toHaveLength(3);
    emu.analytics.weeks.forEach((w, i) => {
      const item = emu.weeks[i]!.item;
      const nmIds = weekNmIds(i);
      expect(w.nmIds.length).toBe(nmIds.size);
      const storageKop = w.storage.reduce((a, r) => a + Math.round(r.warehousePrice * 100), 0);
      const weekly = moneyToKopecks(item.paidStorageSum);
      expect(weekly).toBeGreaterThan(0);
      expect(Math.abs(storageKop - weekly) / weekly).toBeLessThanOrEqual(0.01);
      expect(storageKop).not.toBe(weekly); // WB's two reports differ a little, as they do in life
      expect(w.storage.every((r) => nmIds.has(r.nmId) && r.date >= item.dateFrom && r.date <= item.dateTo)).toBe(true);
      expect(new Set(w.storage.map((r) => r.date)).size).toBe(7);
      const acceptanceKop = w.acceptance.reduce((a, r) => a + Math.round(r.total * 100), 0);
      const weeklyAcceptance = moneyToKopecks(item.paidAcceptanceSum);
      expect(Math.abs(acceptanceKop - weeklyAcceptance)).toBeLessThanOrEqual(weeklyAcceptance * 0.01);
      expect(
        w.acceptance.every(
          (r) => nmIds.has(r.nmID) && r.shkCreateDate >= item.dateFrom && r.shkCreateDate <= item.dateTo,
        ),
      ).toBe(true);
    });
  });
});

describe('emulated reports: WB’s rules', () => {
  it('tokens: unknown or expired → 401, without «Аналитика» → 403', async () => {
    clock += 10 * MINUTE;
    const w = { dateFrom: '2026-01-05', dateTo: '2026-01-11' };
    expect(await storage(emu.tokens.invalid).createTask(w)).toMatchObject({ kind: 'unauthorized' });
    expect(await storage(emu.tokens.expired).createTask(w)).toMatchObject({
      kind: 'unauthorized',
      message: 'token expired',
    });
    expect(await acceptance(emu.tokens.noFinance).createTask(w)).toMatchObject({
      kind: 'forbidden',
      message: 'scope is not allowed',
    });
  });

  it('windows: paid storage ≤ 8 days, acceptance ≤ 31 days, dates required and in order', async () => {
    clock += 10 * MINUTE;
    expect(await storage().createTask({ dateFrom: '2026-01-05', dateTo: '2026-01-13' })).toEqual({
      kind: 'rejected',
      status: 400,
      message: 'Difference between dateFrom and dateTo should be less or equal 8 days',
    });
    expect(await storage().createTask({ dateFrom: '2026-01-12', dateTo: '2026-01-05' })).toMatchObject({
      kind: 'rejected',
      message: 'dateTo should be greater dateFrom',
    });
    expect(await storage().createTask({ dateFrom: '2026-01-05', dateTo: '' })).toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('"dateTo"'),
    });
    expect(await acceptance().createTask({ dateFrom: '2026-01-01', dateTo: '2026-02-01' })).toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('31 days'),
    });
  });

  it('a task is new, then processing, then done; its download waits for done; ids are checked', async () => {
    clock += 10 * MINUTE;
    const c = storage();
    const id = ok(await c.createTask({ dateFrom: '2026-01-12', dateTo: '2026-01-18' }));
    expect(await c.download(id)).toMatchObject({ kind: 'rejected', status: 400 });
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock += 5_000;
      statuses.push(ok(await c.taskStatus(id)));
    }
    expect(statuses).toEqual(['new', 'processing', 'done']);
    clock += MINUTE;
    const rows = ok(await c.download(id));
    expect(rows.length).toBe(emu.analytics.weeks[1]!.storage.length);
    clock += 5_000;
    expect(await c.taskStatus('06e06887-9d9f-491f-b16a-bb1766fcb8d2')).toMatchObject({ kind: 'not_found' });
    clock += 5_000;
    expect(await c.taskStatus('not-a-uuid')).toMatchObject({ kind: 'rejected', status: 400 });
    clock += 5_000;
    // Another report's task is not this report's.
    expect(await acceptance().taskStatus(id)).toMatchObject({ kind: 'not_found' });
  });

  it('limits: paid storage makes 5 tasks at once, the 6th waits a minute; acceptance 1; each 429 says how long', async () => {
    clock += 10 * MINUTE;
    const w = { dateFrom: '2026-01-05', dateTo: '2026-01-11' };
    for (let i = 0; i < 5; i++) expect((await storage().createTask(w)).kind).toBe('ok');
    expect(await storage().createTask(w)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 60, limit: 5 });
    clock += 59_000;
    expect(await storage().createTask(w)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 1 });
    clock += 1_000;
    expect((await storage().createTask(w)).kind).toBe('ok');
    expect((await acceptance().createTask(w)).kind).toBe('ok');
    clock += 30_000;
    expect(await acceptance().createTask(w)).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 30, limit: 1 });
  });
});

describe('a whole demo week through the clients, the plan and the emulator', () => {
  it.each([0, 1, 2])(
    'week %i: per-article storage sums to the week’s storage within 1 %, every nmId its own',
    async (i) => {
      clock += 10 * MINUTE;
      const item = emu.weeks[i]!.item;
      const r = await fetchReport('paid_storage', storage(), item.dateFrom, item.dateTo);
      expect(r.state.phase).toBe('done');
      expect(r.calls.every((c) => c.status === 200)).toBe(true); // the plan never ran into WB's limits
      expect(r.calls.filter((c) => c.path === '/api/v1/paid_storage')).toHaveLength(1); // a week is one task
      const costs = reportCosts(PAID_STORAGE_REPORT, r.rows);
      const weekly = moneyToKopecks(item.paidStorageSum);
      expect(Math.abs(sum(costs) - weekly) / weekly).toBeLessThanOrEqual(0.01);
      const nmIds = weekNmIds(i);
      expect(costs.every((c) => nmIds.has(c.nmId))).toBe(true);
      expect(costs.every((c) => c.date >= item.dateFrom && c.date <= item.dateTo)).toBe(true);
      expect(new Set(costs.map((c) => c.nmId)).size).toBe(nmIds.size);
      // Three status calls (new, processing, done) at the status interval, then the download.
      expect(r.elapsedMs).toBe(15_000);

      const a = await fetchReport('acceptance', acceptance(), item.dateFrom, item.dateTo);
      expect(a.state.phase).toBe('done');
      const accepted = reportCosts(ACCEPTANCE_REPORT, a.rows);
      const weeklyAcceptance = moneyToKopecks(item.paidAcceptanceSum);
      expect(Math.abs(sum(accepted) - weeklyAcceptance)).toBeLessThanOrEqual(weeklyAcceptance * 0.01);
      expect(accepted.every((c) => nmIds.has(c.nmId))).toBe(true);
    },
  );

  it('all three weeks in one fetch: three storage tasks (≤ 8 days), one acceptance task', async () => {
    clock += 10 * MINUTE;
    const from = emu.weeks[0]!.item.dateFrom;
    const to = emu.weeks[2]!.item.dateTo;
    const r = await fetchReport('paid_storage', storage(), from, to);
    expect(r.calls.filter((c) => c.path === '/api/v1/paid_storage')).toHaveLength(3);
    expect(r.calls.every((c) => c.status === 200)).toBe(true);
    const total = emu.weeks.reduce((a, w) => a + moneyToKopecks(w.item.paidStorageSum), 0);
    expect(Math.abs(sum(reportCosts(PAID_STORAGE_REPORT, r.rows)) - total) / total).toBeLessThanOrEqual(0.01);
    const a = await fetchReport('acceptance', acceptance(), from, to);
    expect(a.calls.filter((c) => c.path === '/api/v1/acceptance_report')).toHaveLength(1);
  });

  it('against a WB stricter than the plan thinks: 429s, then the same data', async () => {
    clock += 10 * MINUTE;
    const strict = await startWbEmulator({
      port: 0,
      now: () => clock,
      weeks: 1,
      rowsPerWeek: 300,
      seed: 5,
      firstMonday: '2026-01-05',
      analytics: {
        limits: {
          paid_storage: {
            create: { intervalMs: MINUTE, burst: 1 },
            status: { intervalMs: 20_000, burst: 1 },
            download: { intervalMs: 2 * MINUTE, burst: 1 },
          },
        },
        statusCallsUntilDone: 2,
      },
    });
    try {
      const client = createReportTaskClient(PAID_STORAGE_REPORT, { baseUrl: strict.url, token: strict.tokens.valid });
      const r = await fetchReport('paid_storage', client, strict.weeks[0]!.item.dateFrom, '2026-01-20', undefined, {
        emulator: strict,
      });
      expect(r.state.phase).toBe('done');
      expect(r.calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
      const expected = strict.analytics.weeks[0]!.storage.reduce((a, x) => a + Math.round(x.warehousePrice * 100), 0);
      expect(sum(reportCosts(PAID_STORAGE_REPORT, r.rows))).toBe(expected);
    } finally {
      await strict.close();
    }
  });

  it('a task WB dropped is made again', async () => {
    clock += 10 * MINUTE;
    emu.analytics.setStatusCallsUntilDone(3);
    const item = emu.weeks[0]!.item;
    let first: string | null = null;
    const r = await fetchReport('acceptance', acceptance(), item.dateFrom, item.dateTo, undefined, {
      afterCall: (state) => {
        // Made, then purged by WB before it was read.
        if (first === null && state.windows[0]!.taskId !== null) {
          first = state.windows[0]!.taskId;
          emu.analytics.dropTask(first, 'purged');
        }
      },
    });
    const state = r.state;
    expect(state.phase).toBe('done');
    expect(state.windows[0]!.taskId).not.toBe(first);
    expect(state.windows[0]!.retries).toBe(1);
    expect(sum(reportCosts(ACCEPTANCE_REPORT, r.rows))).toBe(
      emu.analytics.weeks[0]!.acceptance.reduce((a, r) => a + Math.round(r.total * 100), 0),
    );
  });
});
