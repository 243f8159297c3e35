/**
 * The WB sync against a faulty or hostile WB, on the WB Finance API emulator's misbehaviour modes
 * (scripts/local/wb-emulator.ts DetailedMode, WbFault), DynamoDB Local and s3rver: a listed report WB
 * does not give (an empty first page, a redirect, rows of another report) is kept unread and shown, never
 * skipped; X-Ratelimit-Retry is capped; endless 429/500, truncated bodies and a slow WB end in a visible
 * `error` with WB's status and the attempts' times while the sync keeps retrying; the rate is kept from
 * the call; a flood of forged tokens carrying a victim's seller id neither delays the victim nor tells
 * anything of its account; connect attempts are throttled per user.
 *
 * The steps run on a manual clock shared with the emulator (its rate limit), so a minute costs nothing;
 * the connect route runs on the real clock.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as connectionsHandler } from '../../functions/wb/connections.handler';
import { startWbEmulator, type WbEmulator } from '../../scripts/local/wb-emulator';
import { makeEmulatorToken } from '../../scripts/local/wb/tokens';
import type { WbConnection } from '../../shared/contract/shapes';
import { manualClock } from '../../shared/deps';
import { FINANCE_SCOPE } from '../../shared/marketplaces/wb/token';
import { stepDeps, syncSettings } from '../../shared/marketplaces/wb/sync/step-deps';
import { runStep, type StepDeps } from '../../shared/marketplaces/wb/sync/step';
import { ddb, tableName } from '../../shared/store/client';
import { wbRateKey } from '../../shared/store/keys';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { listReports } from '../../shared/store/reports.repo';
import { getConnection, saveConnection } from '../../shared/store/wb-connections.repo';
import { newUser, type TestUser } from '../support/reports';
import { apiEvent, bodyOf } from '../support/test-event';
import { idleWorkers } from '../support/worker';

const INTERVAL_MS = 60_000;
const ROWS = 150;
const PAGE = 100;
const HOUR_MS = 3_600_000;

let emu: WbEmulator | null = null;
let other: http.Server | null = null;
afterEach(async () => {
  await idleWorkers();
  await emu?.close();
  emu = null;
  if (other) {
    other.closeAllConnections();
    await new Promise((r) => other!.close(r));
    other = null;
  }
  delete process.env.WB_CALL_DEADLINE_SECONDS;
});
beforeAll(() => {
  process.env.WB_CALL_INTERVAL_SECONDS = String(INTERVAL_MS / 1000);
});

async function start(opts: { weeks?: number } = {}) {
  const clock = manualClock(Date.now());
  const sellerId = randomInt(5_000_000, 9_000_000);
  emu = await startWbEmulator({
    port: 0,
    intervalMs: INTERVAL_MS,
    weeks: opts.weeks ?? 1,
    rowsPerWeek: ROWS,
    seed: 5,
    now: () => clock.now().getTime(),
    sellerId,
  });
  process.env.WB_FINANCE_API_URL = emu.url;
  // The report calls alone: WB's balance and its faults are wb-balance.test.ts's.
  const deps: StepDeps = {
    ...stepDeps,
    clock,
    settings: () => ({ ...syncSettings(), pageLimit: PAGE }),
    costs: undefined,
    balance: undefined,
  };
  return { emu, clock, deps, sellerId };
}

function call(token: string, method: string, path: string, body?: unknown, id?: string) {
  return connectionsHandler(apiEvent({ method, path, token, body, pathParameters: id ? { id } : undefined }));
}

async function connectOk(u: TestUser, token: string): Promise<WbConnection> {
  const r = await call(u.token, 'POST', '/api/wb/connections', { token });
  expect(r.statusCode, r.body).toBe(201);
  return bodyOf<{ connection: WbConnection }>(r).connection;
}

async function shown(u: TestUser, id: string): Promise<WbConnection> {
  const r = await call(u.token, 'GET', `/api/wb/connections/${id}`, undefined, id);
  expect(r.statusCode).toBe(200);
  return bodyOf<{ connection: WbConnection }>(r).connection;
}

/** Steps a minute apart until the round is over (idle, nothing pending). */
async function syncRound(deps: StepDeps, clock: ReturnType<typeof manualClock>, u: TestUser, id: string) {
  let started = false;
  for (let i = 0; i < 40; i++) {
    clock.advance(INTERVAL_MS + 1_000);
    if ((await runStep(deps, u.id, id)) === 'called') started = true;
    const c = (await getConnection(u.id, id))!;
    if (started && c.cursor.phase === 'idle' && c.pending.length === 0 && c.reading === null) {
      await idleWorkers();
      return c;
    }
  }
  throw new Error('the round did not end');
}

/** Steps, each at the connection's next call, `n` times; the connection after them. */
async function stepsAtNextCall(
  deps: StepDeps,
  clock: ReturnType<typeof manualClock>,
  u: TestUser,
  id: string,
  n: number,
) {
  let c = (await getConnection(u.id, id))!;
  for (let i = 0; i < n; i++) {
    clock.set(Math.max(clock.now().getTime() + 1, c.cursor.nextCallAt));
    expect(await runStep(deps, u.id, id)).toBe('called');
    c = (await getConnection(u.id, id))!;
  }
  return c;
}

const wbReports = async (userId: string) =>
  (await listReports(userId, { limit: 100 })).items.filter((r) => r.source === 'wb_api');
const charged = async (userId: string) =>
  (await listLimitHistory(userId)).items.filter((h) => h.operation === 'expense').map((h) => h.rows);

describe('a listed report WB does not give is kept and shown, never skipped', () => {
  it.each(['empty-first-204', 'empty-first-array'] as const)(
    'WB answers %s to the first page: unread with a reason, shown; a retry after WB mends imports it',
    async (mode) => {
      const { emu, clock, deps } = await start();
      const week = emu.weeks[0]!;
      emu.setDetailedMode(mode);
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      const done = await syncRound(deps, clock, u, c.id);
      expect(done.imported_ids).not.toContain(week.item.reportId);
      expect(await wbReports(u.id)).toEqual([]);
      expect(await charged(u.id)).toEqual([]);
      const seen = await shown(u, c.id);
      expect(seen.sync.status).toBe('error');
      expect(seen.error).toMatchObject({ code: 'wb_report_unread' });
      expect(seen.error?.message).toContain(`WB не отдаёт строки отчёта № ${week.item.reportId}`);
      expect(seen.unread_reports).toEqual([
        expect.objectContaining({
          wb_report_id: week.item.reportId,
          date_from: week.item.dateFrom,
          attempts: 1,
          reason: expect.stringContaining('no rows'),
        }),
      ]);
      // The seller's retry (sync now) asks again at once; WB still empty: attempts 2, still shown.
      expect((await call(u.token, 'POST', `/api/wb/connections/${c.id}/sync`, {}, c.id)).statusCode).toBe(202);
      await syncRound(deps, clock, u, c.id);
      expect((await shown(u, c.id)).unread_reports[0]?.attempts).toBe(2);
      // WB mends: the retry imports the week, the unread list and the error are gone.
      emu.setDetailedMode(null);
      expect((await call(u.token, 'POST', `/api/wb/connections/${c.id}/sync`, {}, c.id)).statusCode).toBe(202);
      await syncRound(deps, clock, u, c.id);
      const after = await shown(u, c.id);
      expect(after).toMatchObject({ reports_imported: 1, error: null, unread_reports: [] });
      expect(after.sync.status).toBe('scheduled');
      expect(await charged(u.id)).toEqual([ROWS]);
    },
  );

  it('a redirect (307 to another host) is not followed: the other host gets nothing, the report is unread', async () => {
    const { emu, clock, deps } = await start();
    const week = emu.weeks[0]!;
    const hits: string[] = [];
    other = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('[]');
    });
    await new Promise<void>((r) => other!.listen(0, '127.0.0.1', () => r()));
    const to = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    emu.setFault({ kind: 'redirect', to, only: 'detail' });
    await syncRound(deps, clock, u, c.id);
    expect(hits).toEqual([]);
    const seen = await shown(u, c.id);
    expect(seen.unread_reports).toEqual([
      expect.objectContaining({ wb_report_id: week.item.reportId, reason: expect.stringContaining('307') }),
    ]);
    expect(seen.error?.code).toBe('wb_report_unread');
    expect(await wbReports(u.id)).toEqual([]);
    expect(await charged(u.id)).toEqual([]);
  });

  it('rows of another reportId are refused: nothing merged, built or charged; the report is unread with the row named', async () => {
    const { emu, clock, deps } = await start();
    const week = emu.weeks[0]!;
    emu.setDetailedMode('foreign-report');
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u, c.id);
    const seen = await shown(u, c.id);
    expect(seen.unread_reports).toEqual([
      expect.objectContaining({
        wb_report_id: week.item.reportId,
        reason: expect.stringContaining(`reportId ${week.item.reportId + 1} is not report ${week.item.reportId}`),
      }),
    ]);
    expect(await wbReports(u.id)).toEqual([]);
    expect(await charged(u.id)).toEqual([]);
  });
});

describe('WB failing: capped waits, a deadline per call, the failure shown, the calls going on', () => {
  it.each(['1e12', '1e308', 'Infinity'])(
    'X-Ratelimit-Retry %s: the next call within the cap (1 h), the step never crashes; from the 3rd the error shows 429',
    async (retry) => {
      const { emu, clock, deps } = await start();
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      emu.setFault({ kind: 'rate', retry });
      let before = clock.now().getTime();
      for (let i = 0; i < 3; i++) {
        const rec = await stepsAtNextCall(deps, clock, u, c.id, 1);
        expect(rec.cursor.nextCallAt).toBeLessThanOrEqual(clock.now().getTime() + HOUR_MS);
        expect(rec.cursor.nextCallAt).toBeGreaterThan(before);
        before = rec.cursor.nextCallAt;
      }
      const seen = await shown(u, c.id);
      expect(seen.sync.status).toBe('error');
      expect(seen.error).toMatchObject({ code: 'wb_unavailable', wb_status: 429 });
      expect(Date.parse(seen.error!.next_attempt_at!)).toBeLessThanOrEqual(clock.now().getTime() + HOUR_MS);
      // WB lets go: the next call (at most the cap away) goes through and the error is over.
      emu.setFault(null);
      clock.set(before - INTERVAL_MS);
      await syncRound(deps, clock, u, c.id);
      expect(await shown(u, c.id)).toMatchObject({ error: null, reports_imported: 1, sync: { status: 'scheduled' } });
    },
  );

  it.each([
    ['endless 500', { kind: 'status', status: 500 } as const, 500],
    ['truncated bodies', { kind: 'truncated' } as const, 200],
    ['a slow WB (past the call deadline)', { kind: 'slow', ms: 60_000 } as const, null],
  ])(
    '%s: from the 3rd failure in a row `error` with WB’s status and the attempts; retried with backoff',
    async (_name, fault, status) => {
      process.env.WB_CALL_DEADLINE_SECONDS = '0.3';
      const { emu, clock, deps } = await start();
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      emu.setFault(fault);
      const two = await stepsAtNextCall(deps, clock, u, c.id, 2);
      expect(two.sync_status).toBe('syncing');
      const three = await stepsAtNextCall(deps, clock, u, c.id, 1);
      expect(three.cursor.failures).toBe(3);
      const seen = await shown(u, c.id);
      expect(seen.sync.status).toBe('error');
      expect(seen.error).toMatchObject({ code: 'wb_unavailable', wb_status: status });
      expect(seen.error?.last_attempt_at).toBe(new Date(three.cursor.lastCallAt!).toISOString());
      expect(seen.error?.next_attempt_at).toBe(new Date(three.cursor.nextCallAt).toISOString());
      // Backoff: each wait longer than the last, and the calls go on.
      const four = await stepsAtNextCall(deps, clock, u, c.id, 1);
      expect(four.cursor.nextCallAt - four.cursor.lastCallAt!).toBeGreaterThan(
        three.cursor.nextCallAt - three.cursor.lastCallAt!,
      );
      expect(four.cursor.failures).toBe(4);
      emu.setFault(null);
      await syncRound(deps, clock, u, c.id);
      expect(await shown(u, c.id)).toMatchObject({ error: null, reports_imported: 1 });
      expect(await charged(u.id)).toEqual([ROWS]);
    },
  );
});

describe('a wait stored past the cap', () => {
  it('a next call in the year 33 000 (stored before the cap): a sync now brings it back, the next step calls', async () => {
    const { emu, clock, deps } = await start();
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    const rec = (await getConnection(u.id, c.id))!;
    const far = Date.parse('+033715-01-01T00:00:00Z');
    expect(await saveConnection({ ...rec, cursor: { ...rec.cursor, nextCallAt: far } })).not.toBeNull();
    expect((await call(u.token, 'POST', `/api/wb/connections/${c.id}/sync`, {}, c.id)).statusCode).toBe(202);
    const back = (await getConnection(u.id, c.id))!;
    expect(back.cursor.nextCallAt).toBeLessThanOrEqual(Date.now());
    clock.set(Math.max(Date.now(), clock.now().getTime()) + INTERVAL_MS + 1_000);
    expect(await runStep(deps, u.id, c.id)).toBe('called');
  });
});

describe('the rate is kept from the call', () => {
  it('a stall before the call (the token key, the store) never brings two calls of an account closer than WB’s interval', async () => {
    const { emu, clock, deps } = await start();
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    let stallMs = 0;
    const stalling: StepDeps = {
      ...deps,
      keyWrapper: () => {
        const real = deps.keyWrapper();
        return {
          ...real,
          unwrap: async (...args: Parameters<typeof real.unwrap>) => {
            clock.advance(stallMs);
            return real.unwrap(...args);
          },
        };
      },
    };
    const rec = (await getConnection(u.id, c.id))!;
    const t = Math.max(clock.now().getTime(), rec.cursor.nextCallAt) + 1_000;
    clock.set(t);
    stallMs = 50_000;
    expect(await runStep(stalling, u.id, c.id)).toBe('called');
    stallMs = 0;
    // One interval after the step began (10 s after its call): not yet.
    clock.set(t + INTERVAL_MS);
    expect(['wait', 'budget']).toContain(await runStep(stalling, u.id, c.id));
    // One interval after WB's answer: the call goes through.
    clock.set(t + 50_000 + INTERVAL_MS);
    expect(await runStep(stalling, u.id, c.id)).toBe('called');
    expect(emu.calls.filter((x) => x.status === 429)).toEqual([]);
  });
});

describe('one seller’s attempts never stall another’s', () => {
  it('forged tokens carrying the victim’s seller id: no budget taken, the victim’s next call on time, nothing told', async () => {
    const { emu, clock, deps, sellerId } = await start();
    const victim = await newUser(100_000, 'wb');
    const c = await connectOk(victim, emu.tokens.valid);
    const budgetOf = async () =>
      (await ddb().send(new GetCommand({ TableName: tableName(), Key: wbRateKey(String(sellerId)) }))).Item
        ?.next_call_at as number | undefined;
    const budget = await budgetOf();
    const exp = Math.floor(Date.now() / 1000) + 86_400;
    // Attackers (several users, so the per-user throttle does not end the flood early).
    for (let a = 0; a < 3; a++) {
      const attacker = await newUser(10, 'wb');
      for (let i = 0; i < 8; i++) {
        const forged = makeEmulatorToken({ oid: sellerId, scopes: [FINANCE_SCOPE], exp: exp + i });
        const r = await call(attacker.token, 'POST', '/api/wb/connections', { token: forged });
        expect(r.statusCode).toBe(422);
        expect(r.body).not.toContain('retry_after');
      }
    }
    expect(await budgetOf()).toBe(budget);
    // The victim's next call goes at its time.
    const rec = (await getConnection(victim.id, c.id))!;
    clock.set(Math.max(clock.now().getTime(), rec.cursor.nextCallAt));
    expect(await runStep(deps, victim.id, c.id)).toBe('called');
    expect(emu.calls.at(-1)).toMatchObject({ status: 200 });
  });

  it('connect attempts are throttled per user: the 11th in an hour is 429 too_many_attempts, WB not called', async () => {
    const { emu, sellerId } = await start();
    const u = await newUser(10, 'wb');
    const exp = Math.floor(Date.now() / 1000) + 86_400;
    for (let i = 0; i < 10; i++) {
      const r = await call(u.token, 'POST', '/api/wb/connections', {
        token: makeEmulatorToken({ oid: sellerId + 1, scopes: [FINANCE_SCOPE], exp: exp + i }),
      });
      expect(r.statusCode).toBe(422);
    }
    const calls = emu.calls.length;
    const r = await call(u.token, 'POST', '/api/wb/connections', { token: emu.tokens.valid });
    expect(r.statusCode).toBe(429);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('too_many_attempts');
    expect(emu.calls).toHaveLength(calls);
  });
});

describe('rows checked before they count', () => {
  it.each([
    ['negative-quantity', /quantity -1000 on a sale/],
    ['null-money', /forPay is null/],
  ] as const)(
    'WB’s rows with %s: the report is refused with the row named, nothing built as ready or charged',
    async (mode, reason) => {
      const { emu, clock, deps } = await start();
      const week = emu.weeks[0]!;
      emu.setDetailedMode(mode);
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      await syncRound(deps, clock, u, c.id);
      const seen = await shown(u, c.id);
      expect(seen.unread_reports).toEqual([
        expect.objectContaining({ wb_report_id: week.item.reportId, reason: expect.stringMatching(reason) }),
      ]);
      expect(seen.error?.message).toMatch(reason);
      expect(await wbReports(u.id)).toEqual([]);
      expect(await charged(u.id)).toEqual([]);
      // WB mends its rows: the retry imports the week, charged once.
      emu.setDetailedMode(null);
      expect((await call(u.token, 'POST', `/api/wb/connections/${c.id}/sync`, {}, c.id)).statusCode).toBe(202);
      await syncRound(deps, clock, u, c.id);
      expect((await wbReports(u.id)).map((r) => r.status)).toEqual(['ready']);
      expect(await charged(u.id)).toEqual([ROWS]);
    },
  );
});
