/**
 * The sync step and the tick with fakes (the store keeps revisions and the WB account's budget the way
 * wb-connections.repo.ts does; the Finance API answers what each test scripts), on a manual clock. The
 * same step against DynamoDB Local, S3 and the WB emulator: test/integration/wb-sync.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../../deps';
import { AppError } from '../../../errors';
import { dueAt, type WbConnectionRecord } from '../../../store/wb-connections.repo';
import type { FinanceClient, WbOutcome } from '../finance/finance-client';
import { detailedPageOf, type DetailedPage } from '../finance/page-body';
import type { ReportSummary } from '../finance/schemas';
import { DEFAULT_SYNC_SETTINGS, initialCursor } from '../finance/sync-plan';
import { memoryConnections, testConnection, testKeyWrapper } from '../../../../test/support/wb-connections-memory';
import { runStep, tick, type StepDeps } from './step';

const T0 = Date.parse('2026-03-02T06:00:00Z');
const MINUTE = 60_000;
// Pages of one row: a one-row page is a full one, and the next is asked for.
const settings = () => ({ ...DEFAULT_SYNC_SETTINGS, pageLimit: 1, leaseMs: 5 * MINUTE });

const connection = (over: Partial<WbConnectionRecord> = {}) => testConnection(T0, over);

function world(initial: WbConnectionRecord[], answers: Array<WbOutcome<ReportSummary[]> | WbOutcome<DetailedPage>>) {
  const clock = manualClock(T0);
  const { store, rows, budget } = memoryConnections(initial);
  const wbCalls: string[] = [];
  const client: FinanceClient = {
    listReports: vi.fn(async () => {
      wbCalls.push('list');
      return answers.shift() as WbOutcome<ReportSummary[]>;
    }),
    detailedPage: vi.fn(async (id: number) => {
      wbCalls.push(`detail ${id}`);
      return answers.shift() as WbOutcome<DetailedPage>;
    }),
  };
  const deps: StepDeps = {
    connections: store,
    keyWrapper: () => testKeyWrapper,
    finance: vi.fn((token: string) => {
      expect(token).toBe('the-token');
      return client;
    }),
    putPage: vi.fn(async () => undefined),
    deletePages: vi.fn(async () => undefined),
    hasIdentity: vi.fn(async () => false),
    importReport: vi.fn(async (_c, p) => ({ kind: 'imported' as const, reportId: p.report_id })),
    expiryMail: vi.fn(async () => undefined),
    clock,
    ids: { newId: () => 'R1' },
    settings,
  };
  return { deps, clock, rows, budget, wbCalls };
}

const report = (id: number): ReportSummary =>
  ({
    reportId: id,
    dateFrom: '2026-02-23',
    dateTo: '2026-03-01',
    reportType: 1,
    sellerFinanceName: 'ИП Тест',
  }) as ReportSummary;

describe('the tick', () => {
  it('starts no step once its budget has passed on the clock: the rest stay due for the next tick', async () => {
    const conns = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => connection({ id: `C${i}`, wb_seller_id: `42${i}` })));
    const w = world(
      conns,
      conns.map(() => ({ kind: 'empty' as const })),
    );
    // Each step's WB call takes 20 s of the clock.
    const finance = w.deps.finance;
    w.deps.finance = vi.fn((token: string) => {
      w.clock.advance(20_000);
      return finance(token);
    });
    const r = await tick(w.deps, { budgetMs: 25_000 });
    // Four steps start at once (within the budget); after them 80 s have passed: two are deferred.
    expect(r.filter((x) => x.result === 'called')).toHaveLength(4);
    expect(r.filter((x) => x.result === 'deferred').map((x) => x.id)).toEqual(['C5', 'C6']);
    for (const id of ['C5', 'C6']) expect(dueAt(w.rows.get(id)!)).toBeLessThanOrEqual(T0);
    // The next tick takes them.
    const next = await tick(w.deps, { budgetMs: 25_000 });
    expect(
      next
        .filter((x) => x.result === 'called')
        .map((x) => x.id)
        .sort(),
    ).toEqual(['C5', 'C6']);
  });

  it('takes a call due moments after its start (aheadMs) and makes it at its time, never before', async () => {
    const base = await connection();
    const c = { ...base, cursor: { ...base.cursor, nextCallAt: T0 + 4_000 } };
    const w = world([c], [{ kind: 'ok', value: [] }]);
    const callsAt: number[] = [];
    const list = w.deps.finance;
    w.deps.finance = vi.fn((token: string) => {
      callsAt.push(w.clock.now().getTime());
      return list(token);
    });
    w.deps.sleep = vi.fn(async (ms: number) => {
      w.clock.advance(ms);
    });
    // Without the look-ahead the tick finds nothing due: the call would wait for the next tick.
    expect(await tick(w.deps)).toEqual([]);
    const r = await tick(w.deps, { aheadMs: 10_000 });
    expect(r).toEqual([{ userId: 'U1', id: 'C1', result: 'called' }]);
    expect(w.deps.sleep).toHaveBeenCalledWith(4_000);
    expect(callsAt).toEqual([T0 + 4_000]);
    // A call due past the look-ahead is not waited for.
    const later = { ...base, id: 'C2', wb_seller_id: '4343', cursor: { ...base.cursor, nextCallAt: T0 + 60_000 } };
    const w2 = world([later], []);
    w2.deps.sleep = vi.fn(async () => undefined);
    expect(await tick(w2.deps, { aheadMs: 10_000 })).toEqual([]);
    expect(w2.deps.sleep).not.toHaveBeenCalled();
  });
});

describe('a sync step', () => {
  it('makes one call when due, none within the interval, and records what it read', async () => {
    const w = world(
      [await connection()],
      [
        { kind: 'ok', value: [report(7)] },
        { kind: 'ok', value: detailedPageOf([{ rrdId: 5 }]) },
      ],
    );
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('called');
    expect(w.wbCalls).toEqual(['list']);
    const c = w.rows.get('C1')!;
    expect(c).toMatchObject({ lease_until: 0, seller_name: 'ИП Тест', round: { reports_found: 1 } });
    expect(c.cursor).toMatchObject({ phase: 'detail', reportId: 7, nextCallAt: T0 + MINUTE });
    w.clock.advance(MINUTE - 1);
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('wait');
    expect(w.wbCalls).toHaveLength(1);
    w.clock.advance(1);
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('called');
    expect(w.wbCalls).toEqual(['list', 'detail 7']);
    expect(w.deps.putPage).toHaveBeenCalledWith(
      expect.stringMatching(/^sources\/wbsync\/U1\/C1\/7\/0+\.json\.gz$/),
      expect.any(Buffer),
    );
    expect(w.rows.get('C1')!.reading).toMatchObject({ wb_report_id: 7, pages: [{ rows: 1 }] });
  });

  it('leaves a connection another step holds (its lease), and waits for the WB account’s budget', async () => {
    const w = world([await connection({ lease_until: T0 + MINUTE })], []);
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('leased');
    w.rows.set('C1', { ...w.rows.get('C1')!, lease_until: 0 });
    w.budget.set('4242', T0 + 30_000);
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('budget');
    expect(w.wbCalls).toEqual([]);
    expect(w.rows.get('C1')!.cursor.nextCallAt).toBe(T0 + 30_000);
  });

  it('after a 429 waits WB’s X-Ratelimit-Retry (at least the interval)', async () => {
    const w = world(
      [await connection()],
      [{ kind: 'rate_limited', retryAfterSeconds: 150, limit: 1, remaining: 0, resetSeconds: 150 }],
    );
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('called');
    expect(w.rows.get('C1')!.cursor).toMatchObject({ phase: 'list', nextCallAt: T0 + 150_000 });
    w.clock.advance(149_000);
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('wait');
    expect(w.wbCalls).toHaveLength(1);
  });

  it('a refused token stops the connection; an expired one stops it without a call', async () => {
    const w = world([await connection()], [{ kind: 'unauthorized', message: 'token withdrawn' }]);
    await runStep(w.deps, 'U1', 'C1');
    expect(w.rows.get('C1')).toMatchObject({
      status: 'token_invalid',
      sync_status: 'stopped',
      error: { code: 'wb_token_invalid' },
    });
    expect(dueAt(w.rows.get('C1')!)).toBeNull();
    const e = world([await connection({ expires_at: new Date(T0 - 1).toISOString() })], []);
    expect(await runStep(e.deps, 'U1', 'C1')).toBe('inactive');
    expect(e.rows.get('C1')).toMatchObject({ status: 'token_expired', sync_status: 'stopped' });
    expect(e.wbCalls).toEqual([]);
  });

  it('a report read to its end is imported; a report the user has already is never read', async () => {
    const w = world(
      [await connection()],
      [
        { kind: 'ok', value: [report(7), report(8)] },
        { kind: 'ok', value: detailedPageOf([{ rrdId: 5 }]) },
        { kind: 'empty' },
      ],
    );
    vi.mocked(w.deps.hasIdentity).mockImplementation(async (_u, identity) => identity === 'num:4242:8');
    for (let i = 0; i < 3; i++) {
      await runStep(w.deps, 'U1', 'C1');
      w.clock.advance(MINUTE);
    }
    expect(w.wbCalls).toEqual(['list', 'detail 7', 'detail 7']);
    expect(w.deps.importReport).toHaveBeenCalledOnce();
    expect(w.rows.get('C1')).toMatchObject({
      pending: [],
      reports_imported: 1,
      sync_status: 'scheduled',
      cursor: { phase: 'idle' },
    });
    expect(w.rows.get('C1')!.imported_ids.sort()).toEqual([7, 8]);
  });

  it('a read report whose page the lifecycle rule expired is let go unread, to be read again when listed', async () => {
    const pending = {
      report_id: 'R9',
      ref: { reportId: 9, dateFrom: 'a', dateTo: 'b', reportType: 1 },
      pages: [{ key: 'sources/wbsync/U1/C1/9/0000000000000000.json.gz', rows: 10 }],
      rows: 10,
    };
    const w = world([await connection({ pending: [pending], found: { '9': report(9) } })], [{ kind: 'empty' }]);
    vi.mocked(w.deps.importReport).mockRejectedValueOnce(
      new AppError(409, 'source_missing', 'a page of WB report 9 is missing'),
    );
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('called');
    const c = w.rows.get('C1')!;
    expect(c.pending).toEqual([]);
    expect(c.found).toEqual({});
    expect(c.imported_ids).not.toContain(9);
  });

  it('limits that run out hold the read report and stop calling WB; imported after a top-up', async () => {
    const pending = {
      report_id: 'R9',
      ref: { reportId: 9, dateFrom: 'a', dateTo: 'b', reportType: 1 },
      pages: [],
      rows: 10,
    };
    const w = world([await connection({ pending: [pending] })], [{ kind: 'empty' }]);
    vi.mocked(w.deps.importReport).mockResolvedValueOnce({ kind: 'insufficient_limits', rows: 10, limits: 3 });
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('limits_exhausted');
    expect(w.rows.get('C1')).toMatchObject({ sync_status: 'limits_exhausted', error: { code: 'insufficient_limits' } });
    expect(w.wbCalls).toEqual([]);
    // Due while it waits, so each tick tries again.
    expect(dueAt(w.rows.get('C1')!)).toBe(0);
    const r = await tick(w.deps);
    expect(r).toEqual([{ userId: 'U1', id: 'C1', result: 'called' }]);
    expect(w.rows.get('C1')).toMatchObject({ pending: [], reports_imported: 1, error: null });
    // The import came first; then the round's one call.
    expect(w.wbCalls).toEqual(['list']);
  });
});

describe('a report WB no longer has', () => {
  it('404 mid-read: the report is given up and its pages deleted once the connection no longer lists them', async () => {
    const w = world(
      [await connection()],
      [
        { kind: 'ok', value: [report(7), report(8)] },
        { kind: 'ok', value: detailedPageOf([{ rrdId: 5 }]) },
        { kind: 'ok', value: detailedPageOf([{ rrdId: 9 }]) },
        { kind: 'not_found', message: 'report not found' },
      ],
    );
    const order: string[] = [];
    vi.mocked(w.deps.deletePages).mockImplementation(async (keys) => {
      // Deleted after the write: the stored connection lists none of them any more.
      const listed = JSON.stringify(w.rows.get('C1'));
      for (const key of keys) expect(listed).not.toContain(key);
      order.push('delete');
    });
    for (let i = 0; i < 3; i++) {
      await runStep(w.deps, 'U1', 'C1');
      w.clock.advance(MINUTE);
    }
    const read = w.rows.get('C1')!.reading!;
    expect(read.pages.map((p) => p.key)).toHaveLength(2);
    expect(w.deps.deletePages).not.toHaveBeenCalled();
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('called');
    expect(w.wbCalls).toEqual(['list', 'detail 7', 'detail 7', 'detail 7']);
    expect(order).toEqual(['delete']);
    const deleted = vi.mocked(w.deps.deletePages).mock.calls[0]![0];
    // The two pages read, and the key of the 404's own cursor (a page a dead step may have left there).
    expect([...deleted].sort()).toEqual(
      [...read.pages.map((p) => p.key), 'sources/wbsync/U1/C1/7/0000000000000009.json.gz'].sort(),
    );
    expect(w.rows.get('C1')).toMatchObject({ reading: null, pending: [], cursor: { phase: 'detail', reportId: 8 } });
    expect(w.deps.importReport).not.toHaveBeenCalled();
  });

  it('a write that loses to another deletes nothing: the pages stay listed and the call is made again', async () => {
    const w = world(
      [
        await connection({
          cursor: {
            ...initialCursor(T0, '2025-01-01'),
            phase: 'detail',
            reports: [{ reportId: 7, dateFrom: 'a', dateTo: 'b', reportType: 1 }],
            reportIndex: 0,
            reportId: 7,
            rrdId: 5,
            nextCallAt: T0,
          },
          reading: { wb_report_id: 7, pages: [{ key: 'sources/wbsync/U1/C1/7/0000000000000000.json.gz', rows: 1 }] },
        }),
      ],
      [{ kind: 'not_found', message: 'report not found' }],
    );
    // Another write lands while WB answers (a PATCH, say).
    vi.mocked(w.deps.finance).mockImplementation(() => ({
      listReports: vi.fn(),
      detailedPage: vi.fn(async () => {
        const cur = w.rows.get('C1')!;
        w.rows.set('C1', { ...cur, rev: cur.rev + 1 });
        return { kind: 'not_found' as const, message: 'report not found' };
      }),
    }));
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('busy');
    expect(w.deps.deletePages).not.toHaveBeenCalled();
    expect(w.rows.get('C1')!.reading?.pages).toHaveLength(1);
  });

  it('a read given up and another report begun: the pages of the one given up are deleted', async () => {
    const old = 'sources/wbsync/U1/C1/7/0000000000000000.json.gz';
    const w = world(
      [
        await connection({
          cursor: {
            ...initialCursor(T0, '2025-01-01'),
            phase: 'detail',
            reports: [{ reportId: 8, dateFrom: 'a', dateTo: 'b', reportType: 1 }],
            reportIndex: 0,
            reportId: 8,
            rrdId: 0,
            nextCallAt: T0,
          },
          // Report 7's read ended with WB failing (gave-up); the next round no longer lists it.
          reading: { wb_report_id: 7, pages: [{ key: old, rows: 1 }] },
        }),
      ],
      [{ kind: 'ok', value: detailedPageOf([{ rrdId: 3 }]) }],
    );
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('called');
    const fresh = 'sources/wbsync/U1/C1/8/0000000000000000.json.gz';
    expect(w.rows.get('C1')!.reading).toEqual({ wb_report_id: 8, pages: [{ key: fresh, rows: 1 }] });
    expect(w.deps.deletePages).toHaveBeenCalledWith([old]);
  });
});

describe('the token’s expiry', () => {
  const DAY = 86_400_000;
  const idle = (c: WbConnectionRecord, nextCallAt: number) => ({
    ...c,
    cursor: { ...c.cursor, phase: 'idle' as const, nextCallAt },
  });

  it('mails once, 7 days before, on the clock; the tick comes for it; at the expiry the connection stops', async () => {
    const expires = T0 + 10 * DAY;
    const c = idle(await connection({ expires_at: new Date(expires).toISOString() }), T0 + 30 * DAY);
    const w = world([c], []);
    // Due for the notice, not a month later at the next round.
    expect(dueAt(c)).toBe(expires - 7 * DAY);
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('wait');
    expect(w.deps.expiryMail).not.toHaveBeenCalled();
    w.clock.advance(3 * DAY - 1);
    expect(await tick(w.deps)).toEqual([]);
    w.clock.advance(1);
    expect(await tick(w.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'wait' }]);
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
    const marked = w.rows.get('C1')!;
    expect(marked.expiry_mail_sent_at).toBe(new Date(expires - 7 * DAY).toISOString());
    // Then due at the expiry, and never mailed again.
    expect(dueAt(marked)).toBe(expires);
    for (let i = 0; i < 3; i++) {
      w.clock.advance(DAY);
      await runStep(w.deps, 'U1', 'C1');
    }
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
    w.clock.set(expires);
    expect(await tick(w.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'inactive' }]);
    expect(w.rows.get('C1')).toMatchObject({
      status: 'token_expired',
      sync_status: 'stopped',
      error: { code: 'wb_token_expired', message: 'Срок действия токена WB истёк: вставьте новый токен.' },
    });
    expect(dueAt(w.rows.get('C1')!)).toBeNull();
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
  });

  it('a mail that fails is not marked sent: the next step sends it', async () => {
    const c = idle(await connection({ expires_at: new Date(T0 + 2 * DAY).toISOString() }), T0 + DAY);
    const w = world([c], []);
    vi.mocked(w.deps.expiryMail).mockRejectedValueOnce(new Error('SES down'));
    await expect(runStep(w.deps, 'U1', 'C1')).rejects.toThrow('SES down');
    expect(w.rows.get('C1')!.expiry_mail_sent_at).toBeNull();
    expect(await runStep(w.deps, 'U1', 'C1')).toBe('wait');
    expect(w.deps.expiryMail).toHaveBeenCalledTimes(2);
    expect(w.rows.get('C1')!.expiry_mail_sent_at).toBe(new Date(T0).toISOString());
  });
});

describe('the expiry mail whatever the sync’s state', () => {
  const DAY = 86_400_000;
  const expires = T0 + 10 * DAY;
  const notice = expires - 7 * DAY;

  it('a paused connection is mailed once on the clock, without a WB call and still paused; it stops at the expiry', async () => {
    const paused = await connection({
      status: 'paused',
      sync_status: 'stopped',
      expires_at: new Date(expires).toISOString(),
      cursor: { ...initialCursor(T0, '2025-01-01'), phase: 'detail', reportId: 7, rrdId: 5, nextCallAt: T0 },
    });
    const w = world([paused], [{ kind: 'ok', value: [report(7)] }]);
    // Due for its token alone: not for the WB call its cursor would make now.
    expect(dueAt(paused)).toBe(notice);
    expect(await tick(w.deps)).toEqual([]);
    w.clock.set(notice - 1);
    expect(await tick(w.deps)).toEqual([]);
    w.clock.set(notice);
    expect(await tick(w.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'inactive' }]);
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
    const marked = w.rows.get('C1')!;
    expect(marked).toMatchObject({
      status: 'paused',
      sync_status: 'stopped',
      expiry_mail_sent_at: new Date(notice).toISOString(),
      cursor: paused.cursor,
      lease_until: 0,
    });
    expect(w.wbCalls).toEqual([]);
    expect(w.deps.finance).not.toHaveBeenCalled();
    // Next due at the expiry; nothing more meanwhile.
    expect(dueAt(marked)).toBe(expires);
    for (let i = 0; i < 3; i++) {
      w.clock.advance(DAY);
      expect(await tick(w.deps)).toEqual([]);
      expect(await runStep(w.deps, 'U1', 'C1')).toBe('inactive');
    }
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
    w.clock.set(expires);
    expect(await tick(w.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'inactive' }]);
    expect(w.rows.get('C1')).toMatchObject({ status: 'token_expired', error: { code: 'wb_token_expired' } });
    expect(dueAt(w.rows.get('C1')!)).toBeNull();
    expect(w.wbCalls).toEqual([]);
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
  });

  it('a connection stopped for limits, and one after a WB error, are mailed once too', async () => {
    const pending = {
      report_id: 'R9',
      ref: { reportId: 9, dateFrom: 'a', dateTo: 'b', reportType: 1 },
      pages: [],
      rows: 10,
    };
    const limits = await connection({
      sync_status: 'limits_exhausted',
      error: { code: 'insufficient_limits', message: '…' },
      pending: [pending],
      expires_at: new Date(expires).toISOString(),
    });
    const w = world([limits], []);
    vi.mocked(w.deps.importReport).mockResolvedValue({ kind: 'insufficient_limits', rows: 10, limits: 3 });
    w.clock.set(notice - 1);
    expect(await tick(w.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'limits_exhausted' }]);
    expect(w.deps.expiryMail).not.toHaveBeenCalled();
    w.clock.set(notice);
    for (let i = 0; i < 3; i++) {
      expect(await tick(w.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'limits_exhausted' }]);
      w.clock.advance(MINUTE);
    }
    expect(w.deps.expiryMail).toHaveBeenCalledOnce();
    expect(w.rows.get('C1')).toMatchObject({ sync_status: 'limits_exhausted', pending: [pending] });

    const failed = await connection({
      sync_status: 'error',
      error: { code: 'wb_unavailable', message: '…' },
      cursor: { ...initialCursor(T0, '2025-01-01'), phase: 'idle', nextCallAt: T0 + 30 * DAY },
      expires_at: new Date(expires).toISOString(),
    });
    const e = world([failed], []);
    expect(dueAt(failed)).toBe(notice);
    e.clock.set(notice);
    expect(await tick(e.deps)).toEqual([{ userId: 'U1', id: 'C1', result: 'wait' }]);
    expect(await tick(e.deps)).toEqual([]);
    expect(e.deps.expiryMail).toHaveBeenCalledOnce();
    expect(e.wbCalls).toEqual([]);
  });

  it('a token WB refused gets no expiry mail, paused or not', async () => {
    const blocked = { ...initialCursor(T0, '2025-01-01'), phase: 'blocked' as const, blocked: 'unauthorized' as const };
    for (const status of ['token_invalid', 'token_no_finance', 'paused'] as const) {
      const c = await connection({
        status,
        sync_status: 'stopped',
        cursor: blocked,
        expires_at: new Date(expires).toISOString(),
      });
      expect(dueAt(c), status).toBeNull();
      const w = world([c], []);
      w.clock.set(notice);
      expect(await runStep(w.deps, 'U1', 'C1')).toBe('inactive');
      expect(w.deps.expiryMail).not.toHaveBeenCalled();
      // Not written at all.
      expect(w.rows.get('C1')).toMatchObject({ status, rev: 0 });
      expect(w.rows.get('C1')!.expiry_mail_sent_at).toBeNull();
    }
  });
});
