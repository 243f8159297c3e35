/**
 * WB connections and the sync, end to end on the emulators and the WB Finance API emulator (docs/WB-API.md,
 * docs/ARCHITECTURE.md «The WB sync»): connect (a good token, WB's 401, no «Финансы», expired), a sync of
 * three weeks whose numbers are the engine's over the emulator's rows and reconcile with WB's list, an
 * altered list figure as a mismatch naming its field, WB's 429 honoured, a sync killed mid-week that ends
 * with every report once and every row charged once, a week uploaded as a file and then synced (one
 * report), limits that stop the sync and a top-up that resumes it.
 *
 * The steps run on a manual clock shared with the WB emulator (its rate limit and token expiry), so a
 * minute between two WB calls costs nothing; the connect route runs on the real clock.
 */
import { notificationsTick } from '../../shared/notifications/deliver';
import { deliverDeps } from '../../shared/notifications/deliver-deps';
import { randomInt } from 'node:crypto';
import * as XLSX from '@e965/xlsx';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as connectionsHandler } from '../../functions/wb/connections.handler';
import { handler as rebuildHandler } from '../../functions/reports/rebuild-one.handler';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { startWbEmulator, type WbEmulator } from '../../scripts/local/wb-emulator';
import type { EmulatedWeek } from '../../scripts/local/wb/weeks';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler as historyHandler } from '../../functions/auth/limit-history.handler';
import type { LimitHistoryPage } from '../../shared/contract/shapes';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { bucketName, s3 } from '../../shared/files/client';
import { ERRORS } from '../../shared/contract';
import { ddb, tableName } from '../../shared/store/client';
import { wbAccountKey } from '../../shared/store/keys';
import { listSellers } from '../../shared/store/sellers.repo';
import { openToken } from '../../shared/marketplaces/wb/token-crypto';
import { updateConnection } from '../../shared/marketplaces/wb/sync/connections';
import { connectionDeps, tokenKeyWrapper } from '../../shared/marketplaces/wb/sync/connection-deps';
import { makeEmulatorToken } from '../../scripts/local/wb/tokens';
import { getConfig } from '../../shared/config';
import { getUserById } from '../../shared/store/users.repo';
import { FINANCE_SCOPE } from '../../shared/marketplaces/wb/token';
import { readMail } from '../support/emulators';
import { manualClock } from '../../shared/deps';
import { buildItems, computeTotals } from '../../shared/engine';
import { idleWorkers } from '../support/worker';
import type { WbConnection } from '../../shared/contract/shapes';
import { listLimitHistory, topUp } from '../../shared/store/limits.repo';
import { listReports } from '../../shared/store/reports.repo';
import {
  dueConnections,
  getConnection,
  listConnections,
  type WbConnectionRecord,
} from '../../shared/store/wb-connections.repo';
import { aggregateApiRows } from '../../shared/marketplaces/wb/finance/row-map';
import { stepDeps, syncSettings } from '../../shared/marketplaces/wb/sync/step-deps';
import { runStep, tick, type StepDeps } from '../../shared/marketplaces/wb/sync/step';
import { getReportOk, newUser, rub, uploadMultipart, uploadOk, type TestUser } from '../support/reports';
import { apiEvent, bodyOf } from '../support/test-event';

const INTERVAL_MS = 60_000;
const DAY_S = 86_400;
const ROWS = 250;
const PAGE = 100;

let emu: WbEmulator | null = null;
afterEach(async () => {
  await idleWorkers();
  await emu?.close();
  emu = null;
});
beforeAll(() => {
  process.env.WB_CALL_INTERVAL_SECONDS = String(INTERVAL_MS / 1000);
});

async function start(opts: { weeks?: number; formula?: 'cash' | 'audit'; tokenDays?: number; sellerId?: number } = {}) {
  const clock = manualClock(Date.now());
  // Each test its own WB account: the call budget is per WB account, across users.
  const sellerId = opts.sellerId ?? randomInt(5_000_000, 9_000_000);
  emu = await startWbEmulator({
    port: 0,
    intervalMs: INTERVAL_MS,
    weeks: opts.weeks ?? 3,
    rowsPerWeek: ROWS,
    seed: 3,
    formula: opts.formula,
    now: () => clock.now().getTime(),
    sellerId,
    ...(opts.tokenDays === undefined
      ? {}
      : {
          validToken: makeEmulatorToken({
            oid: sellerId,
            scopes: ['Статистика', FINANCE_SCOPE],
            exp: Math.floor(clock.now().getTime() / 1000 + opts.tokenDays * DAY_S),
          }),
        }),
  });
  process.env.WB_FINANCE_API_URL = emu.url;
  // The Finance sync alone (the per-article costs' steps: wb-costs.test.ts).
  const deps: StepDeps = {
    ...stepDeps,
    clock,
    settings: () => ({ ...syncSettings(), pageLimit: PAGE }),
    costs: undefined,
  };
  return { emu, clock, deps };
}

function call(token: string, method: string, path: string, body?: unknown, id?: string) {
  return connectionsHandler(apiEvent({ method, path, token, body, pathParameters: id ? { id } : undefined }));
}

async function connectOk(u: TestUser, token: string): Promise<WbConnection> {
  const r = await call(u.token, 'POST', '/api/wb/connections', { token });
  expect(r.statusCode, r.body).toBe(201);
  expect(r.body).not.toContain(token);
  expect(r.body).not.toContain(token.slice(-20));
  return bodyOf<{ connection: WbConnection }>(r).connection;
}

/** Steps (each a minute after the last) until the round is over and every read report imported. */
async function syncRound(
  deps: StepDeps,
  clock: ReturnType<typeof manualClock>,
  userId: string,
  id: string,
  maxSteps = 60,
): Promise<WbConnectionRecord> {
  let started = false;
  for (let i = 0; i < maxSteps; i++) {
    clock.advance(INTERVAL_MS + 1_000);
    const result = await runStep(deps, userId, id);
    if (result === 'called') started = true;
    const c = (await getConnection(userId, id))!;
    if (started && c.cursor.phase === 'idle' && c.pending.length === 0 && c.reading === null) {
      await idleWorkers();
      return c;
    }
    if (result === 'limits_exhausted' || result === 'inactive') {
      await idleWorkers();
      return c;
    }
  }
  throw new Error('the round did not end');
}

async function wbReports(userId: string) {
  const page = await listReports(userId, { limit: 100 });
  return page.items.filter((r) => r.source === 'wb_api');
}

describe('connecting a WB account', () => {
  it('connects with a good token: 201, the token never shown, the seller linked', async () => {
    const { emu } = await start();
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    expect(c).toMatchObject({
      status: 'active',
      token_hint: `…${emu.tokens.valid.slice(-4)}`,
      scopes: ['Аналитика', 'Статистика', 'Финансы'],
      reports_imported: 0,
      sync: { status: 'syncing' },
      error: null,
      from: '2025-01-01',
    });
    expect(emu.calls).toEqual([{ path: '/api/finance/v1/sales-reports/list', status: 204 }]);
    const listed = await call(u.token, 'GET', '/api/wb/connections');
    expect(bodyOf<{ items: WbConnection[] }>(listed).items.map((x) => x.id)).toEqual([c.id]);
    // The same WB account twice: 409, no second call to WB.
    const again = await call(u.token, 'POST', '/api/wb/connections', { token: emu.tokens.valid });
    expect(again.statusCode).toBe(409);
    expect(bodyOf<{ error: { code: string } }>(again).error.code).toBe('wb_connection_exists');
    expect(emu.calls).toHaveLength(1);
    // Another user's id is not found.
    const other = await newUser(10, 'wb');
    for (const [method, path, body] of [
      ['GET', `/api/wb/connections/${c.id}`, undefined],
      ['PATCH', `/api/wb/connections/${c.id}`, { paused: true }],
      ['DELETE', `/api/wb/connections/${c.id}`, undefined],
      ['POST', `/api/wb/connections/${c.id}/sync`, {}],
    ] as const) {
      const r = await call(other.token, method, path, body, c.id);
      expect(r.statusCode, `${method} ${path}`).toBe(404);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('wb_connection_not_found');
    }
    // Disconnecting: gone from the list (and from the tick's due index).
    expect((await call(u.token, 'DELETE', `/api/wb/connections/${c.id}`, undefined, c.id)).statusCode).toBe(204);
    expect(await getConnection(u.id, c.id)).toBeNull();
  });

  it('refuses a token WB does not accept (401), one without «Финансы», an expired one: 422 each', async () => {
    const { emu } = await start();
    const u = await newUser(100, 'wb');
    const cases: Array<[string, string]> = [
      [emu.tokens.invalid, 'wb_token_invalid'],
      [emu.tokens.noFinance, 'wb_token_no_finance'],
      [emu.tokens.expired, 'wb_token_expired'],
      ['not a token', 'wb_token_invalid'],
    ];
    for (const [token, code] of cases) {
      const r = await call(u.token, 'POST', '/api/wb/connections', { token });
      expect(r.statusCode, code).toBe(422);
      const body = bodyOf<{ error: { code: string; message: string } }>(r);
      expect(body.error.code).toBe(code);
      expect(r.body).not.toContain(token.slice(-20));
    }
    // Only the token that looked usable reached WB (and WB said 401).
    expect(emu.calls).toEqual([{ path: '/api/finance/v1/sales-reports/list', status: 401 }]);
    const listed = await call(u.token, 'GET', '/api/wb/connections');
    expect(bodyOf<{ items: WbConnection[] }>(listed).items).toEqual([]);
  });
});

describe('WB refusing a token on connect, and a new token', () => {
  it('WB answers 401 or 403 to the check: 422 with a stable code and a Russian message, nothing stored', async () => {
    const { emu } = await start();
    const u = await newUser(100, 'wb');
    const basicSeller =
      Number(/"oid":(\d+)/.exec(Buffer.from(emu.tokens.valid.split('.')[1]!, 'base64url').toString())![1]) + 1;
    // A token WB did not issue (or withdrew), and a Basic token of another WB account: both claim «Финансы».
    const basic = emu.issue({ acc: 1, oid: basicSeller, scopes: [FINANCE_SCOPE] });
    for (const [token, code] of [
      [emu.tokens.invalid, 'wb_token_invalid'],
      [basic, 'wb_token_forbidden'],
    ] as const) {
      const r = await call(u.token, 'POST', '/api/wb/connections', { token });
      expect(r.statusCode, code).toBe(422);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe(code);
      // The page shows the catalogue's sentence for the code (web/src/api/errors.ts).
      expect(ERRORS[code].message).toMatch(/^[^a-z]*[А-Яа-яЁё]{4,}[^a-z]*$/);
      expect(r.body).not.toContain(token.slice(-20));
    }
    expect(emu.calls).toEqual([
      { path: '/api/finance/v1/sales-reports/list', status: 401 },
      { path: '/api/finance/v1/sales-reports/list', status: 403 },
    ]);
    // Nothing of either: no connection, no WB account marker, no seller made for it.
    expect(await listConnections(u.id)).toEqual([]);
    expect(await listSellers(u.id)).toEqual([]);
    for (const wbSellerId of [String(basicSeller - 1), String(basicSeller)]) {
      const marker = await ddb().send(new GetCommand({ TableName: tableName(), Key: wbAccountKey(u.id, wbSellerId) }));
      expect(marker.Item).toBeUndefined();
    }
  });

  it('PATCH a new token mid-week after WB withdrew the old one: sealed anew, same seller or 422, resumes at its cursor', async () => {
    const { emu, clock, deps } = await start({ weeks: 2 });
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    const [w1, w2] = emu.weeks as [EmulatedWeek, EmulatedWeek];
    // Read until the second week's first page is stored.
    for (let i = 0; i < 30; i++) {
      clock.advance(INTERVAL_MS + 1_000);
      await runStep(deps, u.id, c.id);
      const now = (await getConnection(u.id, c.id))!;
      if (now.reading?.wb_report_id === w2.item.reportId) break;
    }
    const before = (await getConnection(u.id, c.id))!;
    expect(before.cursor).toMatchObject({ phase: 'detail', reportId: w2.item.reportId, rrdId: expect.any(Number) });
    expect(before.cursor.rrdId).toBeGreaterThan(0);

    // The seller deletes the token in the portal: WB answers 401, the connection stops where it stood.
    emu.revoke(emu.tokens.valid);
    clock.advance(INTERVAL_MS + 1_000);
    expect(await runStep(deps, u.id, c.id)).toBe('called');
    const blocked = (await getConnection(u.id, c.id))!;
    expect(blocked).toMatchObject({
      status: 'token_invalid',
      sync_status: 'stopped',
      error: { code: 'wb_token_invalid' },
    });
    expect(blocked.cursor).toMatchObject({ phase: 'blocked', reportId: w2.item.reportId, rrdId: before.cursor.rrdId });
    // The seller is told once: a sync_problem mail, and no second one on the next step.
    const problemMails = async () => {
      await notificationsTick(deliverDeps());
      const email = (await getUserById(u.id))!.email;
      return (await readMail(getConfig().SES_ENDPOINT as string)).filter(
        (m) => m.subject === 'Проблема синхронизации с WB' && m.to.includes(email),
      );
    };
    const [problem, ...more] = await problemMails();
    expect(more).toEqual([]);
    expect(problem!.text).toContain('WB больше не принимает токен');
    clock.advance(INTERVAL_MS + 1_000);
    await runStep(deps, u.id, c.id);
    expect(await problemMails()).toHaveLength(1);

    // A token of another WB account: 422 with its own code, nothing changed, WB not called.
    const calls = emu.calls.length;
    const foreign = emu.issue({ oid: Number(c.wb_seller_id) + 7 });
    const refused = await call(u.token, 'PATCH', `/api/wb/connections/${c.id}`, { token: foreign }, c.id);
    expect(refused.statusCode).toBe(422);
    expect(bodyOf<{ error: { code: string; details: Record<string, unknown> } }>(refused).error).toMatchObject({
      code: 'wb_token_other_account',
      details: { connected: c.wb_seller_id },
    });
    expect(emu.calls).toHaveLength(calls);
    expect((await getConnection(u.id, c.id))!.sealed).toEqual(blocked.sealed);

    // The new token of the same account (the use case on the steps' clock: the route's clock is the real one).
    clock.advance(INTERVAL_MS + 1_000);
    const fresh = emu.issue();
    const updated = await updateConnection({ ...connectionDeps, clock }, u.id, c.id, { token: fresh });
    expect(updated).toMatchObject({ status: 'active', error: null, token_hint: `…${fresh.slice(-4)}` });
    const stored = (await getConnection(u.id, c.id))!;
    expect(stored.sealed).not.toEqual(blocked.sealed);
    expect(await openToken(stored.sealed, tokenKeyWrapper(), { sellerId: c.seller_id })).toBe(fresh);
    expect(stored.cursor).toMatchObject({ phase: 'detail', reportId: w2.item.reportId, rrdId: before.cursor.rrdId });
    expect(JSON.stringify(stored)).not.toContain(fresh.slice(-20));

    // The sync goes on from that page: the next WB call after the check is week 2's detail, no new list.
    const resumedFrom = emu.calls.length;
    const done = await syncRound(deps, clock, u.id, c.id);
    expect(emu.calls[resumedFrom]?.path).toBe(`/api/finance/v1/sales-reports/detailed/${w2.item.reportId}`);
    expect(emu.calls.slice(resumedFrom).filter((x) => x.path.endsWith('/list'))).toEqual([]);
    expect(done).toMatchObject({ status: 'active', reports_imported: 2, error: null, sync_status: 'scheduled' });
    const reports = await wbReports(u.id);
    expect(reports.map((r) => r.wb_report_id).sort()).toEqual([w1, w2].map((w) => String(w.item.reportId)).sort());
    expect(reports.every((r) => r.status === 'ready' && r.rows === ROWS)).toBe(true);
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows)).toEqual([ROWS, ROWS]);
    // Week 2's pages: each accepted once (the refused one aside), none read twice.
    const w2pages = emu.calls.filter((x) => x.path.endsWith(`/${w2.item.reportId}`) && x.status === 200);
    expect(w2pages).toHaveLength(Math.ceil(ROWS / PAGE));
  });
});

describe('syncing', () => {
  it('imports three weeks: the engine’s numbers over WB’s rows, reconciled with WB’s list; rate kept', async () => {
    const { emu, clock, deps } = await start();
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    const done = await syncRound(deps, clock, u.id, c.id);
    expect(done).toMatchObject({ sync_status: 'scheduled', reports_imported: 3, error: null });
    expect(done.round).toEqual({ reports_found: 3, reports_imported: 3, rows_read: 3 * ROWS });

    const reports = await wbReports(u.id);
    expect(reports).toHaveLength(3);
    for (const week of emu.weeks) {
      const r = reports.find((x) => x.wb_report_id === String(week.item.reportId))!;
      expect(r).toBeDefined();
      const report = await getReportOk(u.token, r.id);
      expect(report).toMatchObject({ status: 'ready', source: 'wb_api', rows: ROWS, seller: { id: c.seller_id } });
      // The engine over the emulator's rows, with the report's own settings.
      const parsed = aggregateApiRows([week.rows]);
      const expected = computeTotals(
        buildItems({ articles: parsed.articles }, { tax: report.tax_profile, costPrices: {} }).items.map(
          (i) => i.effective,
        ),
      );
      for (const f of ['payout', 'for_pay', 'logistics', 'storage', 'profit', 'realization'] as const) {
        expect(report.totals[f], f).toBe(rub(expected[f] ?? 0));
      }
      expect(report.reconciliation?.status).toBe('match');
      expect(report.reconciliation?.fields.map((f) => f.field)).toEqual([
        'payout',
        'for_pay',
        'logistics',
        'storage',
        'acceptance',
        'deductions',
        'penalties',
        'additional_payments',
        'loyalty',
      ]);
      expect(report.reconciliation?.fields.every((f) => f.diff === 0)).toBe(true);
    }
    // A rebuild reads the stored WB rows again: the same numbers, nothing charged.
    const one = reports[0]!;
    const beforeRebuild = await getReportOk(u.token, one.id);
    const rebuilt = await rebuildHandler(
      apiEvent({
        method: 'POST',
        path: `/api/reports/${one.id}/rebuild`,
        token: u.token,
        pathParameters: { id: one.id },
      }),
    );
    expect(rebuilt.statusCode, rebuilt.body).toBe(200);
    await idleWorkers();
    const after = await getReportOk(u.token, one.id);
    expect(after.rebuilt_at).toBeDefined();
    expect(after.totals).toEqual(beforeRebuild.totals);
    expect(after.reconciliation?.status).toBe('match');
    // Every row charged once, one expense per report.
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows)).toEqual([ROWS, ROWS, ROWS]);
    // One accepted call per interval and no 429: the check, WB's balance (the first sync call after connecting),
    // the list and 3 pages per week (the short third page is the last).
    expect(emu.calls.filter((x) => x.status === 429)).toEqual([]);
    expect(emu.calls.filter((x) => x.path === '/api/v1/account/balance')).toHaveLength(1);
    expect(emu.calls).toHaveLength(1 + 1 + 1 + 3 * Math.ceil(ROWS / PAGE));

    // The next round is a day later and finds nothing new.
    const again = await call(u.token, 'GET', `/api/wb/connections/${c.id}`, undefined, c.id);
    const shown = bodyOf<{ connection: WbConnection }>(again).connection;
    expect(shown.reports_imported).toBe(3);
    expect(shown.next_sync).not.toBeNull();
    const before = emu.calls.length;
    expect(await runStep(deps, u.id, c.id)).toBe('wait');
    expect(emu.calls).toHaveLength(before);
  });

  it('an altered list figure is a mismatch naming the field; WB’s audit formula matches to the kopeck', async () => {
    const { emu, clock, deps } = await start({ weeks: 2, formula: 'audit' });
    const [first] = emu.weeks;
    const bank = Math.round(Number(first!.item.bankPaymentSum) * 100);
    emu.setListSum(first!.item.reportId, 'bankPaymentSum', bank + 12_345);
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    const reports = await wbReports(u.id);
    const altered = await getReportOk(
      u.token,
      reports.find((r) => r.wb_report_id === String(first!.item.reportId))!.id,
    );
    expect(altered.reconciliation?.status).toBe('mismatch');
    const payout = altered.reconciliation!.fields.find((f) => f.field === 'payout')!;
    expect(payout).toMatchObject({ wb_field: 'bankPaymentSum', diff: -123.45 });
    expect(altered.reconciliation!.fields.filter((f) => f.diff !== 0).map((f) => f.field)).toEqual(['payout']);
    // The other week: WB's «Итого к оплате» by the audit formula, rebill and loyalty discount rows included,
    // is the payout to the kopeck.
    const other = await getReportOk(u.token, reports.find((r) => r.id !== altered.id)!.id);
    expect(other.reconciliation?.status).toBe('match');
    expect(other.reconciliation!.fields.every((f) => f.diff === 0)).toBe(true);
    expect(other.totals.rebill_logistics).toBeGreaterThan(0);
  });

  it('two WB reports combined: reconciled per WB report id, a difference shown even when the period’s sums agree', async () => {
    const { emu, clock, deps } = await start({ weeks: 2, formula: 'audit' });
    const [w1, w2] = emu.weeks;
    const storageOf = (w: EmulatedWeek) => Math.round(Number(w.item.paidStorageSum) * 100);
    // WB's storage a kopeck more on the first report and a kopeck less on the second: the sum agrees.
    emu.setListSum(w1!.item.reportId, 'paidStorageSum', storageOf(w1!) + 1);
    emu.setListSum(w2!.item.reportId, 'paidStorageSum', storageOf(w2!) - 1);
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    const reports = await wbReports(u.id);
    expect(reports).toHaveLength(2);
    const r = await combineHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/combine',
        token: u.token,
        body: { report_ids: reports.map((x) => x.id) },
      }),
    );
    expect(r.statusCode, r.body).toBe(202);
    const job = bodyOf<{ status: string; report_id?: string }>(r);
    expect(job.status).toBe('done');
    const combined = await getReportOk(u.token, job.report_id!);
    const rec = combined.reconciliation!;
    expect(rec.status).toBe('mismatch');
    // The period's sums agree…
    expect(rec.fields.find((f) => f.field === 'storage')).toMatchObject({ diff: 0 });
    // …each WB report does not, on its own figure.
    const byWb = new Map((rec.reports ?? []).map((x) => [x.wb_report_id, x]));
    expect([...byWb.keys()].sort()).toEqual([String(w1!.item.reportId), String(w2!.item.reportId)].sort());
    for (const [w, diff] of [
      [w1!, -0.01],
      [w2!, 0.01],
    ] as const) {
      const part = byWb.get(String(w.item.reportId))!;
      expect(part.status).toBe('mismatch');
      expect(part.report_id).toBe(reports.find((x) => x.wb_report_id === String(w.item.reportId))!.id);
      expect(part.fields.filter((f) => f.diff !== 0)).toEqual([
        expect.objectContaining({ field: 'storage', wb_field: 'paidStorageSum', diff }),
      ]);
    }
  });

  it('a «Итого к оплате» that also deducts the rebill is a mismatch of the payout', async () => {
    const { emu, clock, deps } = await start({ weeks: 1, formula: 'cash' });
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    const [r] = await wbReports(u.id);
    const report = await getReportOk(u.token, r!.id);
    expect(report.reconciliation?.status).toBe('mismatch');
    expect(report.reconciliation!.fields.filter((f) => f.diff !== 0).map((f) => f.field)).toEqual(['payout']);
  });

  it('honours WB’s 429: waits X-Ratelimit-Retry and never calls above the rate', async () => {
    const { emu, clock, deps } = await start({ weeks: 1 });
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    // The first step after connecting reads WB's balance (balance-plan.ts); the report calls follow. (The
    // connect route ran on the real clock, some seconds after this test's clock began.)
    clock.advance(INTERVAL_MS + 10_000);
    expect(await runStep(deps, u.id, c.id)).toBe('balance');
    // Someone else (a script of the seller's) uses the account's minute just before our step.
    clock.advance(INTERVAL_MS + 1_000);
    const outside = await fetch(`${emu.url}/api/finance/v1/sales-reports/list`, {
      method: 'POST',
      headers: { Authorization: emu.tokens.valid, 'Content-Type': 'application/json' },
      body: JSON.stringify({ dateFrom: '2025-01-01', dateTo: '2025-01-02' }),
    });
    expect(outside.status).toBe(204);
    clock.advance(1_000);
    expect(await runStep(deps, u.id, c.id)).toBe('called');
    expect(emu.calls.at(-1)?.status).toBe(429);
    const waiting = (await getConnection(u.id, c.id))!;
    // Not before WB's retry (and never sooner than the interval).
    expect(waiting.cursor.nextCallAt).toBeGreaterThanOrEqual(clock.now().getTime() + INTERVAL_MS - 1_000);
    clock.advance(10_000);
    expect(await runStep(deps, u.id, c.id)).toBe('wait');
    const done = await syncRound(deps, clock, u.id, c.id);
    expect(done.reports_imported).toBe(1);
    // One 429 (the one provoked), and the accepted calls at least an interval apart.
    expect(emu.calls.filter((x) => x.status === 429)).toHaveLength(1);
  });

  it('a sync killed mid-week resumes: every report once, every row charged once', async () => {
    const { emu, clock, deps } = await start({ weeks: 2 });
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    let pagesStored = 0;
    let importCrashes = 0;
    const crashing: StepDeps = {
      ...deps,
      // The step dies after storing the 2nd page, before its cursor is written (lease left behind).
      putPage: async (key, body) => {
        await deps.putPage(key, body);
        if (++pagesStored === 2) throw new Error('killed');
      },
      // And once right after a report was charged, before the connection knew.
      importReport: async (conn, p, sums, pending) => {
        const r = await deps.importReport(conn, p, sums, pending);
        if (importCrashes++ === 0) throw new Error('killed after the charge');
        return r;
      },
    };
    let crashes = 0;
    let started = false;
    for (let i = 0; i < 80; i++) {
      clock.advance(INTERVAL_MS + 1_000);
      try {
        if ((await runStep(crashing, u.id, c.id)) === 'called') started = true;
      } catch {
        crashes++;
      }
      const now = (await getConnection(u.id, c.id))!;
      if (started && now.cursor.phase === 'idle' && now.pending.length === 0 && now.lease_until === 0) break;
    }
    await idleWorkers();
    expect(crashes).toBe(2);
    const reports = await wbReports(u.id);
    expect(reports.map((r) => r.wb_report_id).sort()).toEqual(emu.weeks.map((w) => String(w.item.reportId)).sort());
    expect(reports.every((r) => r.status === 'ready' && r.rows === ROWS)).toBe(true);
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows)).toEqual([ROWS, ROWS]);
    for (const r of reports) expect((await getReportOk(u.token, r.id)).reconciliation?.status).toBe('match');
  });

  it('a week uploaded as a file and then synced is one report, charged once', async () => {
    const { emu, clock, deps } = await start({ weeks: 2 });
    const u = await newUser(100_000, 'wb');
    const week = emu.weeks[0]!;
    const sellerId = String(
      /"oid":(\d+)/.exec(Buffer.from(emu.tokens.valid.split('.')[1]!, 'base64url').toString())![1],
    );
    const uploaded = await uploadOk(u.token, {
      filename: `Еженедельный детализированный отчет №${week.item.reportId}_${sellerId}.xlsx`,
      file: week.portal.file,
    });
    const c = await connectOk(u, emu.tokens.valid);
    const done = await syncRound(deps, clock, u.id, c.id);
    expect(done.reports_imported).toBe(1);
    const all = (await listReports(u.id, { limit: 100 })).items;
    expect(all).toHaveLength(2);
    expect(all.map((r) => r.id)).toContain(uploaded.id);
    expect(all.filter((r) => r.source === 'wb_api').map((r) => r.wb_report_id)).toEqual([
      String(emu.weeks[1]!.item.reportId),
    ]);
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows).sort()).toEqual([uploaded.rows, ROWS].sort());
    // The skipped week's rows were never read from WB.
    expect(emu.calls.filter((x) => x.path.endsWith(`/${week.item.reportId}`))).toEqual([]);
  });

  it('one week is one report by its rows: the portal file under a plain name, uploaded before or after the sync', async () => {
    // Upload first: the sync reads the week, finds the same rows, skips it uncharged.
    {
      const { emu, clock, deps } = await start({ weeks: 2 });
      const [w1, w2] = emu.weeks as [EmulatedWeek, EmulatedWeek];
      const u = await newUser(100_000, 'wb');
      const uploaded = await uploadOk(u.token, { filename: 'неделя.xlsx', file: w1.portal.file });
      await idleWorkers();
      expect((await getReportOk(u.token, uploaded.id)).status).toBe('ready');
      const c = await connectOk(u, emu.tokens.valid);
      const done = await syncRound(deps, clock, u.id, c.id);
      expect(done).toMatchObject({ reports_imported: 1, error: null, sync_status: 'scheduled' });
      expect(done.imported_ids).toContain(w1.item.reportId);
      const all = (await listReports(u.id, { limit: 100 })).items;
      expect(all.map((r) => r.id).sort()).toEqual([uploaded.id, (await wbReports(u.id))[0]!.id].sort());
      expect((await wbReports(u.id)).map((r) => r.wb_report_id)).toEqual([String(w2.item.reportId)]);
      const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
      expect(history.map((h) => h.rows).sort()).toEqual([uploaded.rows, ROWS].sort());
      await emu.close();
    }
    // Sync first: the upload of the same week is 409 duplicate_report naming the imported report.
    {
      const { emu, clock, deps } = await start({ weeks: 2 });
      const [w1] = emu.weeks as [EmulatedWeek];
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      await syncRound(deps, clock, u.id, c.id);
      const imported = (await wbReports(u.id)).find((r) => r.wb_report_id === String(w1.item.reportId))!;
      expect(imported.status).toBe('ready');
      const again = await uploadMultipart(u.token, { filename: 'неделя.xlsx', file: w1.portal.file });
      expect(again.statusCode, again.body).toBe(409);
      expect(bodyOf<{ error: { code: string; details: { report_id: string } } }>(again).error).toMatchObject({
        code: 'duplicate_report',
        details: { report_id: imported.id },
      });
      await idleWorkers();
      expect((await listReports(u.id, { limit: 100 })).items).toHaveLength(2);
      const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
      expect(history.map((h) => h.rows)).toEqual([ROWS, ROWS]);
    }
  });

  it('one week is one report by WB’s row ids: the API copy with an extra deduction row, then the .xls under a plain name', async () => {
    const { emu, clock, deps } = await start({ weeks: 1 });
    const [w1] = emu.weeks as [EmulatedWeek];
    // WB's copy has one more row than the seller's file: a «ВБ.Продвижение» deduction.
    const last = w1.rows[w1.rows.length - 1]!;
    w1.rows.push({
      ...last,
      rrdId: (last.rrdId ?? 0) + 1,
      vendorCode: '',
      nmId: 0,
      sellerOperName: 'Удержание',
      docTypeName: '',
      bonusTypeName: 'Оказание услуг «ВБ.Продвижение»',
      deduction: '1234.00',
      quantity: 0,
      retailAmount: '0.00',
      forPay: '0.00',
    });
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    const [imported] = await wbReports(u.id);
    expect(imported!.status).toBe('ready');
    expect(imported!.rows).toBe(ROWS + 1);
    // The same week as .xls (re-saved by a spreadsheet program) under a plain name: the rows differ by
    // the deduction, the fingerprint too, but WB's row ids are the imported report's.
    const xls = Buffer.from(
      XLSX.write(XLSX.read(w1.portal.file, { type: 'buffer' }), { type: 'buffer', bookType: 'biff8' }),
    );
    const again = await uploadMultipart(u.token, { filename: 'отчёт за май.xls', file: xls });
    expect(again.statusCode, again.body).toBe(409);
    expect(bodyOf<{ error: { code: string; details: Record<string, unknown> } }>(again).error).toMatchObject({
      code: 'duplicate_report',
      details: { report_id: imported!.id, reason: 'shared_rows' },
    });
    await idleWorkers();
    expect((await listReports(u.id, { limit: 100 })).items).toHaveLength(1);
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows)).toEqual([ROWS + 1]);
  });

  it('the pages of rows leave the bucket once imported or found a duplicate, and with the connection', async () => {
    const pages = async (userId: string, id: string) =>
      (
        (await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: `sources/wbsync/${userId}/${id}/` })))
          .Contents ?? []
      ).map((o) => o.Key!);
    {
      const { emu, clock, deps } = await start({ weeks: 2 });
      const [w1] = emu.weeks as [EmulatedWeek];
      const u = await newUser(100_000, 'wb');
      // Week 1 is uploaded already (a plain name): read from WB, then found a duplicate.
      await uploadOk(u.token, { filename: 'week.xlsx', file: w1.portal.file });
      await idleWorkers();
      const c = await connectOk(u, emu.tokens.valid);
      let most = 0;
      for (let i = 0; i < 40; i++) {
        clock.advance(INTERVAL_MS + 1_000);
        await runStep(deps, u.id, c.id);
        most = Math.max(most, (await pages(u.id, c.id)).length);
        const now = (await getConnection(u.id, c.id))!;
        if (now.cursor.phase === 'idle' && now.pending.length === 0) break;
      }
      await idleWorkers();
      // Seen between steps: the pages before the last; the last page's step ends the report and imports it.
      expect(most).toBe(Math.ceil(ROWS / PAGE) - 1);
      expect(await pages(u.id, c.id)).toEqual([]);
      const done = (await getConnection(u.id, c.id))!;
      expect(done.reports_imported).toBe(1);
      // The imported report keeps its own joined source, which a rebuild reads.
      const imported = (await wbReports(u.id))[0]!;
      expect(
        (await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: `sources/${u.id}/${imported.id}/` })))
          .KeyCount,
      ).toBe(1);
      await emu.close();
    }
    {
      const { emu, clock, deps } = await start({ weeks: 1 });
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      // Two pages read; the step reading the third dies after storing it, before its cursor moved.
      let stored = 0;
      const dying: StepDeps = {
        ...deps,
        putPage: async (key, body) => {
          await deps.putPage(key, body);
          if (++stored === 3) throw new Error('killed');
        },
      };
      for (let i = 0; i < 10 && stored < 3; i++) {
        clock.advance(INTERVAL_MS + 1_000);
        await runStep(dying, u.id, c.id).catch(() => undefined);
      }
      expect(await pages(u.id, c.id)).toHaveLength(3);
      expect((await getConnection(u.id, c.id))!.reading?.pages).toHaveLength(2);
      expect((await call(u.token, 'DELETE', `/api/wb/connections/${c.id}`, undefined, c.id)).statusCode).toBe(204);
      expect(await pages(u.id, c.id)).toEqual([]);
    }
  });

  it('WB answers 404 mid-read (the report vanished): its stored pages leave the bucket, the round goes on', async () => {
    const { emu, clock, deps } = await start({ weeks: 2 });
    const [w1, w2] = emu.weeks as [EmulatedWeek, EmulatedWeek];
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    const prefix = `sources/wbsync/${u.id}/${c.id}/`;
    const stored = async () =>
      ((await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: prefix }))).Contents ?? []).map(
        (o) => o.Key!,
      );
    // Read until week 1 has two of its three pages stored.
    for (let i = 0; i < 20; i++) {
      clock.advance(INTERVAL_MS + 1_000);
      await runStep(deps, u.id, c.id);
      if ((await getConnection(u.id, c.id))!.reading?.pages.length === 2) break;
    }
    const reading = (await getConnection(u.id, c.id))!.reading!;
    expect(reading.wb_report_id).toBe(w1.item.reportId);
    expect((await stored()).sort()).toEqual(reading.pages.map((p) => p.key).sort());

    // WB no longer has week 1: the next call answers 404.
    emu.withdrawReport(w1.item.reportId);
    clock.advance(INTERVAL_MS + 1_000);
    expect(await runStep(deps, u.id, c.id)).toBe('called');
    expect(emu.calls.at(-1)).toEqual({
      path: `/api/finance/v1/sales-reports/detailed/${w1.item.reportId}`,
      status: 404,
    });
    expect(await stored()).toEqual([]);
    expect((await getConnection(u.id, c.id))!).toMatchObject({
      reading: null,
      pending: [],
      cursor: { phase: 'detail', reportId: w2.item.reportId, rrdId: 0 },
    });

    // Week 2 is read and imported as ever; nothing of week 1 is charged or left behind.
    const done = await syncRound(deps, clock, u.id, c.id);
    expect(done).toMatchObject({ reports_imported: 1, reading: null, pending: [] });
    expect((await wbReports(u.id)).map((r) => r.wb_report_id)).toEqual([String(w2.item.reportId)]);
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows)).toEqual([ROWS]);
    expect(await stored()).toEqual([]);
  });

  it('the limit history shows each import as a charge of its rows, never as a grant', async () => {
    const INITIAL = 100_000;
    const { emu, clock, deps } = await start({ weeks: 2 });
    const u = await newUser(INITIAL, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    const reports = await wbReports(u.id);
    expect(reports).toHaveLength(2);
    const r = await historyHandler(apiEvent({ method: 'GET', path: '/api/auth/limit-history', token: u.token }));
    expect(r.statusCode).toBe(200);
    const page = bodyOf<LimitHistoryPage>(r);
    expect(page.totals).toEqual({ charged: 2 * ROWS, refunded: 0, topped_up: 0 });
    expect(page.items.map((h) => [h.operation, h.rows]).sort()).toEqual([
      ['expense', ROWS],
      ['expense', ROWS],
    ]);
    for (const h of page.items) {
      const report = reports.find((x) => x.id === h.report_id)!;
      expect(h).toMatchObject({ report_title: report.title, report_deleted: false });
    }
    const limits = (await getUserById(u.id))!.limits;
    expect(limits).toBe(INITIAL - 2 * ROWS);
    // What the settings page reads off them (web/src/pages/settings-page.tsx limitFacts): granted at
    // registration = balance − topped up + charged − refunded.
    const t = page.totals!;
    expect(limits - t.topped_up + t.charged - t.refunded).toBe(INITIAL);
  });

  it('limits that run out stop the sync with a clear status; a top-up resumes it, nothing charged twice', async () => {
    const { emu, clock, deps } = await start({ weeks: 2 });
    const u = await newUser(ROWS + 10, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    const stopped = await syncRound(deps, clock, u.id, c.id);
    expect(stopped.sync_status).toBe('limits_exhausted');
    expect(stopped.error?.code).toBe('insufficient_limits');
    const shown = bodyOf<{ connection: WbConnection }>(
      await call(u.token, 'GET', `/api/wb/connections/${c.id}`, undefined, c.id),
    );
    expect(shown.connection.sync.status).toBe('limits_exhausted');
    expect(await wbReports(u.id)).toHaveLength(1);
    // More steps change nothing and call WB no more.
    const calls = emu.calls.length;
    for (let i = 0; i < 3; i++) {
      clock.advance(INTERVAL_MS + 1_000);
      expect(await runStep(deps, u.id, c.id)).toBe('limits_exhausted');
    }
    expect(emu.calls).toHaveLength(calls);
    await topUp({ userId: u.id, rows: 1_000 });
    // The tick picks it up (the connection is due while a read report waits).
    clock.advance(INTERVAL_MS + 1_000);
    const ticked = await tick(deps);
    expect(ticked.find((t) => t.id === c.id)?.result).toBe('imported');
    await idleWorkers();
    const resumed = (await getConnection(u.id, c.id))!;
    expect(resumed).toMatchObject({ sync_status: 'scheduled', reports_imported: 2, error: null });
    const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
    expect(history.map((h) => h.rows)).toEqual([ROWS, ROWS]);
    expect(await wbReports(u.id)).toHaveLength(2);
  });
});

describe('paging by WB’s rrdId when WB misbehaves', () => {
  it.each([
    ['repeat-across-pages', true],
    ['repeat-in-page', true],
    ['descending', false],
  ] as const)(
    'WB’s pages %s: every row once in the report and in the limits, the repeats noted',
    async (mode, repeats) => {
      const { emu, clock, deps } = await start({ weeks: 1 });
      emu.setDetailedMode(mode);
      const week = emu.weeks[0]!;
      const u = await newUser(100_000, 'wb');
      const c = await connectOk(u, emu.tokens.valid);
      const done = await syncRound(deps, clock, u.id, c.id);
      expect(done).toMatchObject({ sync_status: 'scheduled', reports_imported: 1, error: null });
      expect(done.round.rows_read).toBe(ROWS);
      const [r] = await wbReports(u.id);
      const report = await getReportOk(u.token, r!.id);
      expect(report).toMatchObject({ status: 'ready', rows: ROWS });
      const parsed = aggregateApiRows([week.rows]);
      const expected = computeTotals(
        buildItems({ articles: parsed.articles }, { tax: report.tax_profile, costPrices: {} }).items.map(
          (i) => i.effective,
        ),
      );
      expect(report.totals.payout).toBe(rub(expected.payout ?? 0));
      expect(report.reconciliation?.status).toBe('match');
      const history = (await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense');
      expect(history.map((h) => h.rows)).toEqual([ROWS]);
      const note = report.warnings.find((w) => w.code === 'wb_duplicate_rows');
      if (repeats) expect(note?.message).toMatch(/WB прислал \d+ строк повторно/);
      else expect(note).toBeUndefined();
      expect(emu.calls.filter((x) => x.status === 429)).toEqual([]);
    },
  );

  it('a page that brings no new row ends the read with an error: nothing built or charged, retried next round', async () => {
    const { emu, clock, deps } = await start({ weeks: 1 });
    emu.setDetailedMode('stale');
    const u = await newUser(100_000, 'wb');
    const c = await connectOk(u, emu.tokens.valid);
    const done = await syncRound(deps, clock, u.id, c.id);
    expect(done).toMatchObject({ sync_status: 'error', reports_imported: 0, error: { code: 'wb_unavailable' } });
    expect(done.error?.message).toContain('brings no new row');
    // Two pages: the second brought the first page's rows again, and the read stopped there.
    expect(emu.calls.filter((x) => x.path.includes('/detailed/')).map((x) => x.status)).toEqual([200, 200]);
    expect(await wbReports(u.id)).toEqual([]);
    expect((await listLimitHistory(u.id)).items.filter((h) => h.operation === 'expense')).toEqual([]);
    // WB mends its paging: the next round reads the week.
    emu.setDetailedMode(null);
    clock.advance(25 * 3_600_000);
    const again = await syncRound(deps, clock, u.id, c.id);
    expect(again).toMatchObject({ sync_status: 'scheduled', reports_imported: 1, error: null });
  });
});

describe('the token’s expiry', () => {
  const EXPIRY_SUBJECT = 'Токен WB скоро истечёт';
  // The notice is a token_expiring notification: the notifications tick mails it.
  const mailsTo = async (email: string) => {
    await notificationsTick(deliverDeps());
    return (await readMail(getConfig().SES_ENDPOINT as string)).filter(
      (m) => m.subject === EXPIRY_SUBJECT && m.to.includes(email),
    );
  };

  it('mails the seller once, 7 days before the expiry (on the clock); at the expiry the sync stops', async () => {
    const { emu, clock, deps } = await start({ weeks: 1, tokenDays: 8 });
    const u = await newUser(100_000, 'wb');
    const email = (await getUserById(u.id))!.email;
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    expect(await mailsTo(email)).toEqual([]);

    // A day later the token has 7 days left: the next step mails, once.
    clock.advance(DAY_S * 1000);
    await runStep(deps, u.id, c.id);
    const [mail, ...more] = await mailsTo(email);
    expect(more).toEqual([]);
    expect(mail!.text).toContain(c.token_hint);
    expect(mail!.text).toContain(`ID продавца WB ${c.wb_seller_id}`);
    expect(mail!.text).toContain(new Date(c.expires_at).toLocaleDateString('ru-RU', { timeZone: 'Europe/Moscow' }));
    expect(mail!.links).toContain(`${getConfig().APP_URL.replace(/\/+$/, '')}/settings`);
    expect(mail!.text).not.toContain(emu.tokens.valid.slice(-20));
    const shown = bodyOf<{ connection: WbConnection }>(
      await call(u.token, 'GET', `/api/wb/connections/${c.id}`, undefined, c.id),
    ).connection;
    expect(shown).toMatchObject({ status: 'active', expiry_mail_sent_at: clock.now().toISOString() });

    // Every later step (daily rounds) sends nothing more.
    for (let day = 0; day < 3; day++) {
      clock.advance(DAY_S * 1000);
      await syncRound(deps, clock, u.id, c.id);
    }
    expect(await mailsTo(email)).toHaveLength(1);

    // At the expiry: stopped, in Russian; no WB call made with the dead token.
    clock.set(Date.parse(c.expires_at));
    const calls = emu.calls.length;
    expect(await runStep(deps, u.id, c.id)).toBe('inactive');
    expect(emu.calls).toHaveLength(calls);
    const stopped = bodyOf<{ connection: WbConnection }>(
      await call(u.token, 'GET', `/api/wb/connections/${c.id}`, undefined, c.id),
    ).connection;
    expect(stopped).toMatchObject({
      status: 'token_expired',
      sync: { status: 'stopped' },
      error: { code: 'wb_token_expired', message: 'Срок действия токена WB истёк: вставьте новый токен.' },
    });
    expect(await mailsTo(email)).toHaveLength(1);
  });

  it('a paused connection is mailed too, once, on the tick’s due index, without a WB call and still paused', async () => {
    const { emu, clock, deps } = await start({ weeks: 1, tokenDays: 8 });
    const u = await newUser(100_000, 'wb');
    const email = (await getUserById(u.id))!.email;
    const c = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, c.id);
    await updateConnection({ ...connectionDeps, clock }, u.id, c.id, { paused: true });
    const paused = (await getConnection(u.id, c.id))!;
    expect(paused).toMatchObject({ status: 'paused', sync_status: 'stopped' });
    const calls = emu.calls.length;

    // Not due before the notice; due at it (the query the tick runs), and the step mails.
    const noticeAt = Date.parse(c.expires_at) - 7 * DAY_S * 1000;
    const dueIds = async () => (await dueConnections(clock.now().getTime(), 1000)).map((d) => d.id);
    clock.set(noticeAt - 1);
    expect(await dueIds()).not.toContain(c.id);
    clock.set(noticeAt);
    expect(await dueIds()).toContain(c.id);
    expect(await runStep(deps, u.id, c.id)).toBe('inactive');
    const [mail, ...more] = await mailsTo(email);
    expect(more).toEqual([]);
    expect(mail!.text).toContain(c.token_hint);
    const shown = bodyOf<{ connection: WbConnection }>(
      await call(u.token, 'GET', `/api/wb/connections/${c.id}`, undefined, c.id),
    ).connection;
    expect(shown).toMatchObject({
      status: 'paused',
      sync: { status: 'stopped' },
      expiry_mail_sent_at: new Date(noticeAt).toISOString(),
    });
    const after = (await getConnection(u.id, c.id))!;
    expect(after.cursor).toEqual(paused.cursor);

    // Days later: not due again before the expiry, nothing more sent, WB never called.
    for (let day = 1; day <= 3; day++) {
      clock.set(noticeAt + day * DAY_S * 1000);
      expect(await dueIds()).not.toContain(c.id);
      expect(await runStep(deps, u.id, c.id)).toBe('inactive');
    }
    expect(await mailsTo(email)).toHaveLength(1);
    expect(emu.calls).toHaveLength(calls);
  });
});
