import { describe, expect, it } from 'vitest';
import type { WbOutcome } from './finance-client';
import { detailedPageOf, type DetailedPage } from './page-body';
import type { ReportSummary } from './schemas';
import {
  advance,
  claim,
  DEFAULT_SYNC_SETTINGS,
  initialCursor,
  moscowDate,
  planCall,
  type SyncCall,
  type SyncCursor,
  type SyncEffect,
  type SyncSettings,
} from './sync-plan';

const T0 = Date.parse('2026-02-02T09:00:00Z');
const settings: SyncSettings = {
  ...DEFAULT_SYNC_SETTINGS,
  policy: { intervalMs: 60_000, backoffMaxMs: 600_000, maxFailures: 3, retryAfterMaxMs: 3_600_000 },
  pageLimit: 2,
  listLimit: 3,
  pollEveryMs: 3_600_000,
};

function report(reportId: number, dateFrom: string, reportType = 1): ReportSummary {
  const zero = 0;
  return {
    reportId,
    sellerFinanceName: 'ИП',
    dateFrom,
    dateTo: dateFrom,
    createDate: dateFrom,
    currency: 'RUB',
    reportType,
    retailAmountSum: zero,
    forPaySum: zero,
    avgSalePercent: null,
    deliveryServiceSum: zero,
    paidStorageSum: zero,
    paidAcceptanceSum: zero,
    deductionSum: zero,
    penaltySum: zero,
    additionalPaymentSum: zero,
    cashbackAmountSum: zero,
    cashbackDiscountSum: zero,
    cashbackCommissionChangeSum: zero,
    paymentSchedule: zero,
    bankPaymentSum: zero,
  };
}
const rows = (...ids: number[]): DetailedPage => detailedPageOf(ids.map((rrdId) => ({ rrdId })));
type Outcome = WbOutcome<ReportSummary[]> | WbOutcome<DetailedPage>;

/** Runs one step at `now`: plan, claim, the given outcome, advance. */
function step(cursor: SyncCursor, now: number, outcome: Outcome, imported = new Set<number>()) {
  const plan = planCall(cursor, now, settings);
  if (plan.kind !== 'call') throw new Error(`expected a call, got ${plan.kind}`);
  const claimed = claim(cursor, now, settings);
  return { call: plan.call, claimed, ...advance(claimed, plan.call, outcome, now, settings, imported) };
}

describe('sync plan', () => {
  it('a whole round: list, pages of each new report by rrdId, then idle until the next round', () => {
    let c = initialCursor(T0, '2026-01-01');
    let now = T0;
    const log: SyncEffect[] = [];
    const calls: SyncCall[] = [];
    const run = (o: Outcome, imported?: Set<number>) => {
      const r = step(c, now, o, imported);
      calls.push(r.call);
      log.push(...r.effects);
      expect(r.cursor.nextCallAt - now).toBeGreaterThanOrEqual(settings.policy.intervalMs);
      c = r.cursor;
      now = c.nextCallAt;
    };
    run(
      { kind: 'ok', value: [report(12, '2026-01-19'), report(11, '2026-01-12'), report(10, '2026-01-05', 4)] },
      new Set([99]),
    );
    expect(calls[0]).toEqual({
      kind: 'list',
      query: { dateFrom: '2026-01-01', dateTo: '2026-02-02', period: 'weekly', limit: 3, offset: 0 },
    });
    // A full list page: the next page is asked for before the reports.
    expect(c).toMatchObject({ phase: 'list', listOffset: 3 });
    run({ kind: 'ok', value: [report(99, '2026-01-26'), report(13, '2026-01-26', 2)] }, new Set([99]));
    expect(c).toMatchObject({ phase: 'detail', reportId: 11, rrdId: 0, listOffset: 0 });
    expect(c.reports.map((r) => r.reportId)).toEqual([11, 12, 13]);
    run({ kind: 'ok', value: rows(5, 6) });
    expect(calls[2]).toEqual({ kind: 'detail', reportId: 11, query: { rrdId: 0, limit: 2 } });
    // A page shorter than the limit is the last: no call for an empty page after it.
    run({ kind: 'ok', value: rows(9) });
    expect(calls[3]).toEqual({ kind: 'detail', reportId: 11, query: { rrdId: 6, limit: 2 } });
    run({ kind: 'not_found', message: 'no such report' });
    expect(calls[4]).toEqual({ kind: 'detail', reportId: 12, query: { rrdId: 0, limit: 2 } });
    run({ kind: 'ok', value: rows(20) });
    expect(c.phase).toBe('idle');
    expect(log.map((e) => e.kind)).toEqual([
      'reports-found',
      'reports-found',
      'rows',
      'rows',
      'report-complete',
      'report-missing',
      'rows',
      'report-complete',
      'round-complete',
    ]);
    expect(log[0]).toMatchObject({ reports: [{ reportId: 12 }, { reportId: 11 }] });
    expect(log[1]).toMatchObject({ reports: [{ reportId: 13 }] });
    // Idle: the next round's list call comes after pollEvery, over the lookback window.
    const lastCall = c.lastCallAt!;
    expect(c.nextCallAt).toBe(lastCall + settings.pollEveryMs);
    expect(planCall(c, c.nextCallAt - 1, settings)).toEqual({ kind: 'wait', until: c.nextCallAt });
    const next = planCall(c, c.nextCallAt, settings);
    expect(next).toMatchObject({
      kind: 'call',
      call: { kind: 'list', query: { dateFrom: moscowDate(c.nextCallAt - 35 * 86_400_000), offset: 0 } },
    });
    expect(claim(c, c.nextCallAt, settings)).toMatchObject({ phase: 'list', reports: [], reportId: null });
  });

  it('a week holding a weekly report (type 1), a buyouts report of type 3 and one of type 2: each read as its own report', () => {
    let c = initialCursor(T0, '2026-01-01');
    const found: SyncEffect[] = [];
    const r = step(c, T0, {
      kind: 'ok',
      value: [report(21, '2026-01-05', 1), report(22, '2026-01-05', 3), report(23, '2026-01-05', 2)],
    });
    found.push(...r.effects);
    c = r.cursor;
    expect(found[0]).toMatchObject({ reports: [{ reportId: 21 }, { reportId: 22 }, { reportId: 23 }] });
    expect(c.reports.map((x) => [x.reportId, x.reportType])).toEqual([
      [21, 1],
      [22, 3],
      [23, 2],
    ]);
  });

  it('claim takes the call: version bumps, the next call moves a full interval on, an early claim fails', () => {
    const c = initialCursor(T0, '2026-01-01');
    const claimed = claim(c, T0, settings);
    expect(claimed).toMatchObject({ version: 1, lastCallAt: T0, nextCallAt: T0 + 60_000 });
    expect(() => claim(claimed, T0 + 59_999, settings)).toThrow(/no call is due/);
    expect(planCall(claimed, T0 + 1, settings)).toEqual({ kind: 'wait', until: T0 + 60_000 });
  });

  it('a 429 keeps the place and waits for X-Ratelimit-Retry', () => {
    const c = initialCursor(T0, '2026-01-01');
    const r = step(c, T0, { kind: 'rate_limited', retryAfterSeconds: 130, limit: 1, remaining: 0, resetSeconds: 130 });
    expect(r.effects).toEqual([]);
    // Counted as a failure (the connection shows endless 429s), waited out as WB asks.
    expect(r.cursor).toMatchObject({ phase: 'list', nextCallAt: T0 + 130_000, failures: 1 });
    const short = step(c, T0, {
      kind: 'rate_limited',
      retryAfterSeconds: 1,
      limit: null,
      remaining: null,
      resetSeconds: null,
    });
    expect(short.cursor.nextCallAt).toBe(T0 + 60_000);
  });

  it('a 429 wait over the cap (1e12 s, 1e308, not a number) is the cap: the next call stays within reach', () => {
    const c = initialCursor(T0, '2026-01-01');
    for (const retryAfterSeconds of [1e12, 1e308, Infinity, NaN]) {
      const r = step(c, T0, { kind: 'rate_limited', retryAfterSeconds, limit: 1, remaining: 0, resetSeconds: null });
      expect(r.cursor.nextCallAt, String(retryAfterSeconds)).toBe(T0 + 3_600_000);
      expect(Number.isFinite(new Date(r.cursor.nextCallAt).getTime())).toBe(true);
    }
  });

  it('401 and 403 block the connection: no more calls', () => {
    for (const kind of ['unauthorized', 'forbidden'] as const) {
      const r = step(initialCursor(T0, '2026-01-01'), T0, { kind, message: 'no' });
      expect(r.cursor).toMatchObject({ phase: 'blocked', blocked: kind });
      expect(r.effects).toEqual([{ kind: 'token-rejected', reason: kind, message: 'no' }]);
      expect(planCall(r.cursor, T0 + 10 ** 9, settings)).toEqual({ kind: 'none' });
    }
  });

  it('transient failures back off and never give up; from maxFailures in a row the cursor says so (failing)', () => {
    let c = initialCursor(T0, '2026-01-01');
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < 2; i++) {
      const r = step(c, now, { kind: 'server_error', status: 502, message: 'bad gateway' });
      waits.push(r.cursor.nextCallAt - now);
      c = r.cursor;
      now = c.nextCallAt;
    }
    expect(waits).toEqual([120_000, 240_000]);
    expect(c.failures).toBe(2);
    const last = step(c, now, { kind: 'network_error', timeout: true, message: 'timed out' });
    expect(last.effects).toEqual([{ kind: 'failing', status: null, reason: 'timed out', failures: 3 }]);
    expect(last.cursor).toMatchObject({ phase: 'list', failures: 3, nextCallAt: now + 480_000 });
    // The backoff stops growing at backoffMaxMs, and the calls go on.
    now = last.cursor.nextCallAt;
    const later = step({ ...last.cursor, failures: 9 }, now, { kind: 'server_error', status: 500, message: 'x' });
    expect(later.cursor.nextCallAt - now).toBe(600_000);
    expect(later.effects[0]).toMatchObject({ kind: 'failing', status: 500 });
    const ok = step({ ...c, failures: 2 }, now, { kind: 'empty' });
    expect(ok.cursor).toMatchObject({ failures: 0, lastFailure: null });
  });

  it('a listed report WB does not give (empty first page, a redirect, rows of another report): kept unread, asked again next round', () => {
    const listed = step(initialCursor(T0, '2026-01-01'), T0, {
      kind: 'ok',
      value: [report(11, '2026-01-12'), report(12, '2026-01-19')],
    });
    let c = listed.cursor;
    let now = c.nextCallAt;
    const outcomes: Outcome[] = [
      { kind: 'empty' },
      { kind: 'server_error', status: 307, message: 'redirect not followed (to evil.example)' },
    ];
    const log: SyncEffect[] = [];
    for (const o of outcomes) {
      const r = step(c, now, o);
      log.push(...r.effects);
      c = r.cursor;
      now = c.nextCallAt;
    }
    expect(log.map((e) => e.kind)).toEqual(['report-unread', 'report-unread', 'round-complete']);
    expect(c.phase).toBe('idle');
    expect(c.unread?.map((u) => [u.reportId, u.attempts])).toEqual([
      [11, 1],
      [12, 1],
    ]);
    expect(c.unread?.[1]?.reason).toContain('307');
    // Next round: WB no longer lists them (outside the window), yet both are asked for again.
    now = c.nextCallAt;
    const again = step(c, now, { kind: 'empty' });
    expect(again.cursor).toMatchObject({ phase: 'detail', reportId: 11 });
    expect(again.cursor.reports.map((r) => r.reportId)).toEqual([11, 12]);
    // Rows of another report: unread too; the good report's rows end its unread state.
    c = again.cursor;
    now = c.nextCallAt;
    const foreign = step(c, now, {
      kind: 'invalid_response',
      message: 'row 0: reportId 5 is not report 11',
      refused: true,
    });
    expect(foreign.cursor.unread?.find((u) => u.reportId === 11)).toMatchObject({
      attempts: 2,
      reason: expect.stringContaining('reportId 5'),
    });
    c = foreign.cursor;
    now = c.nextCallAt;
    const read = step(c, now, { kind: 'ok', value: rows(3) });
    expect(read.effects.map((e) => e.kind)).toEqual(['rows', 'report-complete', 'round-complete']);
    expect(read.cursor.unread?.map((u) => u.reportId)).toEqual([11]);
  });

  it('an empty page after a full one ends the report (not an unread report)', () => {
    const listed = step(initialCursor(T0, '2026-01-01'), T0, { kind: 'ok', value: [report(11, '2026-01-12')] });
    const full = step(listed.cursor, listed.cursor.nextCallAt, { kind: 'ok', value: rows(1, 2) });
    const end = step(full.cursor, full.cursor.nextCallAt, { kind: 'empty' });
    expect(end.effects.map((e) => e.kind)).toEqual(['report-complete', 'round-complete']);
    expect(end.cursor.unread ?? []).toEqual([]);
  });

  it('a refused request (400) ends the round at once', () => {
    const r = step(initialCursor(T0, '2026-01-01'), T0, { kind: 'rejected', status: 400, message: 'bad dateFrom' });
    expect(r.effects[0]).toMatchObject({ kind: 'gave-up' });
    expect(r.cursor.phase).toBe('idle');
  });

  it('a page that does not move past rrdId ends the round instead of looping', () => {
    const c: SyncCursor = {
      ...initialCursor(T0, '2026-01-01'),
      phase: 'detail',
      reports: [{ reportId: 1, dateFrom: 'a', dateTo: 'b', reportType: 1 }],
      reportId: 1,
      rrdId: 10,
    };
    const r = step(c, T0, { kind: 'ok', value: rows(7, 10) });
    expect(r.effects[0]).toMatchObject({ kind: 'gave-up' });
  });

  it('whatever WB answers, calls to one account are at least an interval apart', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const outcomes: Array<(call: SyncCall) => Outcome> = [
      (call) =>
        call.kind === 'list'
          ? { kind: 'ok', value: [report(Math.floor(rand() * 1000), '2026-01-05')] }
          : { kind: 'ok', value: rows(Math.floor(rand() * 10 ** 6) + 10 ** 7) },
      () => ({ kind: 'empty' }),
      () => ({
        kind: 'rate_limited',
        retryAfterSeconds: Math.floor(rand() * 200),
        limit: 1,
        remaining: 0,
        resetSeconds: 1,
      }),
      () => ({ kind: 'server_error', status: 503, message: 'x' }),
      () => ({ kind: 'network_error', timeout: false, message: 'x' }),
      () => ({ kind: 'not_found', message: 'x' }),
    ];
    let c = initialCursor(T0, '2026-01-01');
    let now = T0;
    const callTimes: number[] = [];
    for (let i = 0; i < 2000; i++) {
      // Steps also arrive early (a duplicate message, a short delay): they must wait.
      now += Math.floor(rand() * 90_000);
      const plan = planCall(c, now, settings);
      if (plan.kind !== 'call') continue;
      const claimed = claim(c, now, settings);
      callTimes.push(now);
      c = advance(claimed, plan.call, outcomes[Math.floor(rand() * outcomes.length)]!(plan.call), now, settings).cursor;
    }
    expect(callTimes.length).toBeGreaterThan(40);
    for (let i = 1; i < callTimes.length; i++) expect(callTimes[i]! - callTimes[i - 1]!).toBeGreaterThanOrEqual(60_000);
  });

  describe('paging by WB’s rrdId', () => {
    const reading = (): SyncCursor => ({
      ...initialCursor(T0, '2026-01-01'),
      phase: 'detail',
      reports: [{ reportId: 11, dateFrom: '2026-01-05', dateTo: '2026-01-11', reportType: 1 }],
      reportIndex: 0,
      reportId: 11,
      rrdId: 0,
      pages: 0,
    });

    it('a full page asks for the next after its largest rrdId; a short one ends the report without a call', () => {
      const full = step(reading(), T0, { kind: 'ok', value: rows(5, 6) });
      expect(full.cursor).toMatchObject({ phase: 'detail', rrdId: 6, pages: 1 });
      expect(full.effects.map((e) => e.kind)).toEqual(['rows']);
      const short = step(full.cursor, full.cursor.nextCallAt, { kind: 'ok', value: rows(7) });
      expect(short.effects.map((e) => e.kind)).toEqual(['rows', 'report-complete', 'round-complete']);
      expect(short.cursor.phase).toBe('idle');
    });

    it('a page WB sent with duplicates is full by what WB sent, not by the rows kept', () => {
      const page = { ...rows(6), sent: 2, duplicates: 1 };
      const r = step(reading(), T0, { kind: 'ok', value: page });
      expect(r.cursor).toMatchObject({ phase: 'detail', rrdId: 6 });
    });

    it('a page with no new row ends the read with an error; the next round tries again', () => {
      const c = { ...reading(), rrdId: 6 };
      const r = step(c, T0, { kind: 'ok', value: { ...rows(), sent: 2, duplicates: 2 } });
      expect(r.effects).toEqual([{ kind: 'gave-up', reason: 'report 11: the page after rrdId 6 brings no new row' }]);
      expect(r.cursor).toMatchObject({ phase: 'idle', nextCallAt: T0 + settings.pollEveryMs });
    });

    it('stops at the cap on pages per report', () => {
      const capped = { ...settings, maxPagesPerReport: 3 };
      let c = reading();
      let now = T0;
      const kinds: string[] = [];
      for (let i = 0; i < 10 && c.phase === 'detail'; i++) {
        const plan = planCall(c, now, capped);
        if (plan.kind !== 'call') throw new Error(plan.kind);
        const r = advance(
          claim(c, now, capped),
          plan.call,
          { kind: 'ok', value: rows(2 * i + 1, 2 * i + 2) },
          now,
          capped,
        );
        kinds.push(...r.effects.map((e) => e.kind));
        c = r.cursor;
        now = c.nextCallAt;
      }
      expect(kinds).toEqual(['rows', 'rows', 'gave-up']);
      expect(c.phase).toBe('idle');
    });
  });
});
