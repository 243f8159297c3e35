import { describe, expect, it } from 'vitest';
import type { TaskStatus } from './analytics-schemas';
import type { WbOutcome } from '../finance/finance-client';
import {
  advanceReport,
  claimReportCall,
  initialReportState,
  planReportCall,
  reportPlanSettings,
  reportWindows,
  scaleLimits,
  WB_REPORT_LIMITS,
  type ReportCall,
  type ReportEffect,
  type ReportFetchState,
} from './report-plan';

const S = 1_000;
const MIN = 60 * S;
const T0 = Date.parse('2026-02-02T09:00:00Z');
const storage = reportPlanSettings('paid_storage');
const acceptance = reportPlanSettings('acceptance');

type Answer = (call: ReportCall, at: number) => WbOutcome<string> | WbOutcome<TaskStatus> | WbOutcome<string[]>;

/** Runs a fetch to its end on a simulated clock: each call is made the moment the plan allows it. */
function run(state: ReportFetchState, answer: Answer, settings = reportPlanSettings(state.kind), start = T0) {
  let now = start;
  const calls: Array<{ at: number; call: ReportCall }> = [];
  const effects: Array<ReportEffect<string>> = [];
  for (let i = 0; i < 500; i++) {
    const plan = planReportCall(state, now, settings);
    if (plan.kind === 'wait') {
      expect(plan.until).toBeGreaterThan(now);
      now = plan.until;
      continue;
    }
    if (plan.kind !== 'call') return { state, calls, effects, end: plan.kind, now };
    const claimed = claimReportCall(state, plan.call, now, settings);
    calls.push({ at: now - start, call: plan.call });
    const r = advanceReport<string>(claimed, plan.call, answer(plan.call, now), now, settings);
    state = r.state;
    effects.push(...r.effects);
  }
  throw new Error('the fetch did not end');
}

/** WB answering every status with `done` at once, and one row per downloaded window. */
const readyAtOnce: Answer = (call) => {
  if (call.op === 'create') return { kind: 'ok', value: `task-${call.dateFrom}` };
  if (call.op === 'status') return { kind: 'ok', value: 'done' };
  return { kind: 'ok', value: [`rows of ${call.taskId}`] };
};

describe('report windows', () => {
  it('paid storage: a week is one task, a month four or five (≤ 8 days each)', () => {
    expect(reportWindows('2026-01-05', '2026-01-11', storage.maxDays)).toEqual([
      { dateFrom: '2026-01-05', dateTo: '2026-01-11' },
    ]);
    expect(reportWindows('2026-01-01', '2026-01-31', storage.maxDays)).toEqual([
      { dateFrom: '2026-01-01', dateTo: '2026-01-08' },
      { dateFrom: '2026-01-09', dateTo: '2026-01-16' },
      { dateFrom: '2026-01-17', dateTo: '2026-01-24' },
      { dateFrom: '2026-01-25', dateTo: '2026-01-31' },
    ]);
    expect(reportWindows('2026-02-01', '2026-02-28', 8)).toHaveLength(4);
    // A report month that starts and ends mid-week (the weeks that touch it): 5 tasks.
    expect(reportWindows('2026-03-30', '2026-05-03', 8)).toHaveLength(5);
  });
  it('acceptance: ≤ 31 days a task; a day is a window; nonsense is refused', () => {
    expect(reportWindows('2026-01-01', '2026-01-31', acceptance.maxDays)).toHaveLength(1);
    expect(reportWindows('2026-01-01', '2026-03-03', 31)).toEqual([
      { dateFrom: '2026-01-01', dateTo: '2026-01-31' },
      { dateFrom: '2026-02-01', dateTo: '2026-03-03' },
    ]);
    expect(reportWindows('2026-01-01', '2026-01-01', 8)).toEqual([{ dateFrom: '2026-01-01', dateTo: '2026-01-01' }]);
    expect(() => reportWindows('2026-01-02', '2026-01-01', 8)).toThrow(/ends before/);
    expect(() => reportWindows('2026-1-2', '2026-01-03', 8)).toThrow(/not a period/);
    expect(() => reportWindows('2026-01-01', '2026-01-03', 0)).toThrow(/number of days/);
  });
});

describe('report limits as settings', () => {
  it("WB's limits, and the local stack's shorter minute in proportion", () => {
    expect(storage.limits).toEqual(WB_REPORT_LIMITS.paid_storage);
    expect(acceptance.limits.create).toEqual({ intervalMs: MIN, burst: 1 });
    const local = reportPlanSettings('paid_storage', 2 * S);
    expect(local.limits).toEqual({
      create: { intervalMs: 2 * S, burst: 5 },
      status: { intervalMs: 167, burst: 5 },
      download: { intervalMs: 2 * S, burst: 1 },
    });
    expect(local.statusPollMs).toBe(167);
    expect(() => scaleLimits(WB_REPORT_LIMITS.acceptance, 0)).toThrow();
  });
});

describe('report plan: one week of paid storage', () => {
  it('create → status (new, processing, done) → download, each when WB allows', () => {
    const statuses: TaskStatus[] = ['new', 'processing', 'done'];
    const r = run(initialReportState('paid_storage', '2026-01-05', '2026-01-11'), (call) => {
      if (call.op === 'create') return { kind: 'ok', value: 'task-1' };
      if (call.op === 'status') return { kind: 'ok', value: statuses.shift()! };
      return { kind: 'ok', value: ['a', 'b'] };
    });
    expect(r.calls.map((c) => [c.at, c.call.op])).toEqual([
      [0, 'create'],
      [5 * S, 'status'],
      [10 * S, 'status'],
      [15 * S, 'status'],
      [15 * S, 'download'],
    ]);
    expect(r.end).toBe('done');
    expect(r.effects).toEqual([
      { kind: 'rows', dateFrom: '2026-01-05', dateTo: '2026-01-11', rows: ['a', 'b'] },
      { kind: 'complete' },
    ]);
    expect(r.state.phase).toBe('done');
    expect(r.state.version).toBe(5);
  });

  it('an empty report still covers its window', () => {
    const r = run(initialReportState('paid_storage', '2026-01-05', '2026-01-11'), (call) =>
      call.op === 'download' ? { kind: 'empty' } : readyAtOnce(call, 0),
    );
    expect(r.effects).toEqual([
      { kind: 'rows', dateFrom: '2026-01-05', dateTo: '2026-01-11', rows: [] },
      { kind: 'complete' },
    ]);
  });
});

describe('report plan: a month', () => {
  it('paid storage: four tasks made at once (burst 5), one download a minute', () => {
    const r = run(initialReportState('paid_storage', '2026-01-01', '2026-01-31'), readyAtOnce);
    const at = (op: string) => r.calls.filter((c) => c.call.op === op).map((c) => c.at);
    expect(at('create')).toEqual([0, 0, 0, 0]);
    expect(at('download')).toEqual([5 * S, 65 * S, 125 * S, 185 * S]);
    expect(r.effects.filter((e) => e.kind === 'rows')).toHaveLength(4);
    expect(r.effects.at(-1)).toEqual({ kind: 'complete' });
  });

  it('paid storage over 10 weeks: never more than burst calls at once, then one per interval', () => {
    const r = run(initialReportState('paid_storage', '2026-01-01', '2026-03-15'), readyAtOnce);
    expect(r.effects.filter((e) => e.kind === 'rows')).toHaveLength(10);
    for (const op of ['create', 'status', 'download'] as const) {
      const { intervalMs, burst } = storage.limits[op];
      const times = r.calls.filter((c) => c.call.op === op).map((c) => c.at);
      // Token bucket: in any span of k·interval at most burst + k calls.
      for (let i = 0; i < times.length; i++) {
        for (let j = i; j < times.length; j++) {
          expect(j - i + 1).toBeLessThanOrEqual(burst + Math.floor((times[j]! - times[i]!) / intervalMs));
        }
      }
    }
    // At most maxOpenTasks made and not yet downloaded at any time.
    let open = 0;
    for (const c of r.calls) {
      if (c.call.op === 'create') open++;
      if (c.call.op === 'download') open--;
      expect(open).toBeLessThanOrEqual(storage.maxOpenTasks);
    }
  });

  it('acceptance: one task for a month, two for two months, each method once a minute', () => {
    const r = run(initialReportState('acceptance', '2026-01-01', '2026-02-28'), readyAtOnce);
    expect(r.calls.map((c) => [c.at, c.call.op])).toEqual([
      [0, 'create'],
      [5 * S, 'status'],
      [5 * S, 'download'],
      [60 * S, 'create'],
      [65 * S, 'status'],
      [65 * S, 'download'],
    ]);
  });
});

describe('report plan: WB says no', () => {
  const week = () => initialReportState('paid_storage', '2026-01-05', '2026-01-11');

  it("a 429 waits for WB's X-Ratelimit-Retry, never less than the method's interval", () => {
    let limited = 2;
    const r = run(week(), (call) => {
      if (call.op === 'download' && limited-- > 0) {
        return {
          kind: 'rate_limited',
          retryAfterSeconds: limited === 1 ? 95 : 1,
          limit: 1,
          remaining: 0,
          resetSeconds: 1,
        };
      }
      return readyAtOnce(call, 0);
    });
    expect(r.calls.filter((c) => c.call.op === 'download').map((c) => c.at)).toEqual([
      5 * S,
      100 * S, // 95 s after the first 429
      160 * S, // the second asked for 1 s: the interval (60 s) is the floor
    ]);
    expect(r.end).toBe('done');
  });

  it('401 and 403 stop the fetch and say why', () => {
    for (const kind of ['unauthorized', 'forbidden'] as const) {
      const r = run(week(), () => ({ kind, message: 'scope is not allowed' }));
      expect(r.end).toBe('none');
      expect(r.state).toMatchObject({ phase: 'blocked', blocked: kind });
      expect(r.effects).toEqual([{ kind: 'token-rejected', reason: kind, message: 'scope is not allowed' }]);
      expect(planReportCall(r.state, T0 + 3_600_000, storage)).toEqual({ kind: 'none' });
    }
  });

  it('5xx backs off interval·2^n, then gives up after maxFailures in a row', () => {
    const r = run(week(), (call) =>
      call.op === 'status' ? { kind: 'server_error', status: 502, message: 'bad gateway' } : readyAtOnce(call, 0),
    );
    const times = r.calls.filter((c) => c.call.op === 'status').map((c) => c.at);
    expect(times).toEqual([5, 15, 35, 75, 155, 315].map((s) => s * S));
    expect(r.end).toBe('none');
    expect(r.state.phase).toBe('gave-up');
    expect(r.effects).toEqual([{ kind: 'gave-up', reason: expect.stringContaining('server_error: bad gateway') }]);
  });

  it('a success in between resets the failure count', () => {
    const answers: Array<WbOutcome<TaskStatus>> = [
      { kind: 'network_error', timeout: true, message: 'timed out' },
      { kind: 'ok', value: 'processing' },
      { kind: 'invalid_response', message: 'data.status: bad' },
      { kind: 'ok', value: 'done' },
    ];
    const r = run(week(), (call) => (call.op === 'status' ? answers.shift()! : readyAtOnce(call, 0)));
    expect(r.end).toBe('done');
    expect(r.calls.filter((c) => c.call.op === 'status').map((c) => c.at)).toEqual([5, 15, 20, 30].map((s) => s * S));
  });

  it('a purged, canceled or forgotten task is made again, at most maxTaskRetries times', () => {
    const once: Array<WbOutcome<TaskStatus>> = [
      { kind: 'ok', value: 'purged' },
      { kind: 'ok', value: 'canceled' },
      { kind: 'not_found', message: 'not found' },
    ];
    let n = 0;
    const r = run(week(), (call) => {
      if (call.op === 'create') return { kind: 'ok', value: `task-${++n}` };
      return call.op === 'status' && once.length > 0 ? once.shift()! : readyAtOnce(call, 0);
    });
    expect(r.end).toBe('done');
    expect(r.calls.filter((c) => c.call.op === 'create')).toHaveLength(4);
    expect(r.calls.at(-1)!.call).toEqual({ op: 'download', window: 0, taskId: 'task-4' });

    const never = run(week(), (call) =>
      call.op === 'status' ? { kind: 'ok', value: 'canceled' } : readyAtOnce(call, 0),
    );
    expect(never.state.phase).toBe('gave-up');
    expect(never.calls.filter((c) => c.call.op === 'create')).toHaveLength(1 + storage.maxTaskRetries);
    expect(never.effects).toEqual([
      { kind: 'gave-up', reason: '2026-01-05…2026-01-11: the task was canceled, 4 times' },
    ]);
  });

  it('a 400 (our request is wrong) ends the fetch instead of repeating it', () => {
    const r = run(week(), () => ({ kind: 'rejected', status: 400, message: 'difference between dateFrom and dateTo' }));
    expect(r.calls).toHaveLength(1);
    expect(r.state.phase).toBe('gave-up');
    expect(r.effects[0]).toMatchObject({ kind: 'gave-up', reason: expect.stringContaining('(400)') });
  });
});

describe('report plan: claims', () => {
  it('a claim spends the budget before the call, bumps the version, and refuses an early call', () => {
    const s0 = initialReportState('acceptance', '2026-01-01', '2026-01-31');
    const plan = planReportCall(s0, T0, acceptance);
    expect(plan).toEqual({
      kind: 'call',
      call: { op: 'create', window: 0, dateFrom: '2026-01-01', dateTo: '2026-01-31' },
    });
    const call = (plan as { call: ReportCall }).call;
    const claimed = claimReportCall(s0, call, T0, acceptance);
    expect(claimed).toMatchObject({
      version: 1,
      lastCallAt: T0,
      tat: { create: T0 + MIN, status: null, download: null },
    });
    // A duplicate delivery that loaded the claimed state finds nothing due (the task is not made yet either).
    expect(() => claimReportCall(claimed, call, T0 + S, acceptance)).toThrow('no call is due');
    expect(planReportCall(claimed, T0 + S, acceptance)).toEqual({ kind: 'wait', until: T0 + MIN });
  });
});
