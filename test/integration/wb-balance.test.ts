/**
 * WB's balance through the local stack: DynamoDB Local, s3rver and the in-repo WB emulator (its balance
 * moves as the weeks are paid). The connect route runs on the real clock; the sync's steps and the
 * emulator share a manual clock, so WB's minutes and hours cost nothing. The cash flow is the use case with
 * the real stores on that clock (and the route once): it shows the reading, says why there is none, and
 * marks a payout paid when «Можно вывести» rose by it.
 */
import { randomInt } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as connectionsHandler } from '../../functions/wb/connections.handler';
import { handler as cashFlowHandler } from '../../functions/cashflow/get.handler';
import { startWbEmulator, type WbEmulator } from '../../scripts/local/wb-emulator';
import { getCashFlow } from '../../shared/cashflow/cashflow';
import { cashFlowDeps } from '../../shared/cashflow/deps';
import { payoutCalendar } from '../../shared/cashflow/payout-calendar';
import type { CashFlow } from '../../shared/contract';
import type { WbConnection } from '../../shared/contract/shapes';
import { manualClock } from '../../shared/deps';
import { moneyToKopecks } from '../../shared/marketplaces/wb/money';
import { stepDeps, syncSettings } from '../../shared/marketplaces/wb/sync/step-deps';
import { runStep, type StepDeps } from '../../shared/marketplaces/wb/sync/step';
import { latestBalances } from '../../shared/store/wb-balance.repo';
import { getConnection } from '../../shared/store/wb-connections.repo';
import { getUserById } from '../../shared/store/users.repo';
import { listReports } from '../../shared/store/reports.repo';
import { newUser, type TestUser } from '../support/reports';
import { readMail } from '../support/emulators';
import { deliverDeps } from '../../shared/notifications/deliver-deps';
import { notificationsTick } from '../../shared/notifications/deliver';
import { rub } from '../../shared/notifications/messages';
import { notificationStore } from '../../shared/store/notifications.repo';
import { apiEvent, bodyOf } from '../support/test-event';
import { idleWorkers } from '../support/worker';

const INTERVAL_MS = 60_000;
const HOUR = 3_600_000;
const ROWS = 300;

let emu: WbEmulator | null = null;
afterEach(async () => {
  await idleWorkers();
  await emu?.close();
  emu = null;
});
beforeAll(() => {
  process.env.WB_CALL_INTERVAL_SECONDS = String(INTERVAL_MS / 1000);
});

async function start(weeks = 1, firstMonday?: string) {
  const clock = manualClock(Date.now());
  emu = await startWbEmulator({
    port: 0,
    intervalMs: INTERVAL_MS,
    weeks,
    rowsPerWeek: ROWS,
    seed: 11,
    now: () => clock.now().getTime(),
    sellerId: randomInt(5_000_000, 9_000_000),
    ...(firstMonday ? { firstMonday } : {}),
  });
  process.env.WB_FINANCE_API_URL = emu.url;
  // The Finance sync and the balance (the per-article costs' steps: wb-costs.test.ts).
  const deps: StepDeps = {
    ...stepDeps,
    clock,
    settings: () => ({ ...syncSettings(), pageLimit: 100 }),
    costs: undefined,
  };
  return { emu, clock, deps };
}

async function connectOk(u: TestUser, token: string): Promise<WbConnection> {
  const r = await connectionsHandler(
    apiEvent({ method: 'POST', path: '/api/wb/connections', token: u.token, body: { token } }),
  );
  expect(r.statusCode, r.body).toBe(201);
  return bodyOf<{ connection: WbConnection }>(r).connection;
}

/** Steps a minute and a second apart until the round is over and every read report imported. */
async function syncRound(deps: StepDeps, clock: ReturnType<typeof manualClock>, userId: string, id: string) {
  const results: string[] = [];
  for (let i = 0; i < 40; i++) {
    clock.advance(INTERVAL_MS + 1_000);
    results.push(await runStep(deps, userId, id));
    const c = (await getConnection(userId, id))!;
    if (results.includes('called') && c.cursor.phase === 'idle' && c.pending.length === 0 && c.reading === null) {
      await idleWorkers();
      return { c, results };
    }
  }
  throw new Error(`the round did not end: ${results.join(', ')}`);
}

const month = (ms: number) => new Date(ms).toISOString().slice(0, 7);

describe('WB’s balance in the sync and on the cash flow', () => {
  it('connect a token → the balance is read at the first sync call and GET /api/cash-flow shows it with its time', async () => {
    const { emu, clock, deps } = await start();
    const u = await newUser(100_000, 'wbbal');
    const conn = await connectOk(u, emu.tokens.valid);
    const { results } = await syncRound(deps, clock, u.id, conn.id);
    expect(results.filter((r) => r !== 'wait')[0]).toBe('balance');
    const balanceCalls = emu.calls.filter((x) => x.path === '/api/v1/account/balance');
    expect(balanceCalls).toEqual([{ path: '/api/v1/account/balance', status: 200 }]);
    const readAt = emu.timeline.find((x) => x.path === '/api/v1/account/balance')!.at;
    const wb = emu.balanceOf();
    expect(await latestBalances(u.id)).toEqual([
      {
        wb_seller_id: conn.wb_seller_id,
        connection_id: conn.id,
        currency: 'RUB',
        current: wb.current,
        for_withdraw: wb.for_withdraw,
        as_of: new Date(readAt).toISOString(),
      },
    ]);
    // The week was imported beside it.
    expect((await listReports(u.id, { limit: 10 })).items.filter((r) => r.source === 'wb_api')).toHaveLength(1);

    const q = { from: month(clock.now().getTime()), to: month(clock.now().getTime()) };
    const cf = await getCashFlow({ ...cashFlowDeps, clock }, (await getUserById(u.id))!, q);
    expect(cf.balance).toEqual({
      currency: 'RUB',
      current: wb.current / 100,
      for_withdraw: wb.for_withdraw / 100,
      as_of: new Date(readAt).toISOString(),
      accounts: 1,
    });
    expect(cf.balance_status).toEqual({ connected: 1, notes: [] });
    // The route answers the same reading.
    const routed = await cashFlowHandler(apiEvent({ method: 'GET', path: '/api/cash-flow', token: u.token, query: q }));
    expect(routed.statusCode, routed.body).toBe(200);
    expect(bodyOf<CashFlow>(routed).balance).toEqual(cf.balance);

    // An hour on WB is asked again; the same balance is not kept twice, yet its time is the newer one.
    clock.advance(HOUR);
    expect(await runStep(deps, u.id, conn.id)).toBe('balance');
    expect(await latestBalances(u.id)).toHaveLength(1);
    const later = await getCashFlow({ ...cashFlowDeps, clock }, (await getUserById(u.id))!, q);
    expect(later.balance!.as_of).toBe(clock.now().toISOString());
  });

  it('WB refuses the balance for the token’s scope (401): the week is still imported, the cash flow says why', async () => {
    const { emu, clock, deps } = await start();
    const u = await newUser(100_000, 'wbbal');
    const conn = await connectOk(u, emu.tokens.valid);
    emu.setFault({ kind: 'scope', status: 401, only: 'balance' });
    const { c } = await syncRound(deps, clock, u.id, conn.id);
    expect(emu.calls.filter((x) => x.path === '/api/v1/account/balance')).toEqual([
      { path: '/api/v1/account/balance', status: 401 },
    ]);
    // The report sync is untouched: active, scheduled, the week imported.
    expect(c).toMatchObject({ status: 'active', sync_status: 'scheduled', error: null, reports_imported: 1 });
    expect(c.cursor.phase).toBe('idle');
    expect(await latestBalances(u.id)).toEqual([]);

    const q = { from: month(clock.now().getTime()), to: month(clock.now().getTime()) };
    const cf = await getCashFlow({ ...cashFlowDeps, clock }, (await getUserById(u.id))!, q);
    expect(cf.balance).toBeNull();
    expect(cf.balance_status.connected).toBe(1);
    expect(cf.balance_status.notes).toEqual([
      {
        wb_seller_id: conn.wb_seller_id,
        code: 'wb_balance_scope',
        message: expect.stringMatching(
          /WB не даёт баланс по этому токену \(401: token scope not allowed for this method\)/,
        ),
        at: c.balance!.error!.at,
      },
    ]);
    // The payouts are there without the balance.
    expect(cf.payouts.length + cf.months.length).toBeGreaterThan(0);

    // WB lets the token read it later: the next hourly reading clears the reason.
    emu.setFault(null);
    clock.advance(HOUR);
    expect(await runStep(deps, u.id, conn.id)).toBe('balance');
    const after = await getCashFlow({ ...cashFlowDeps, clock }, (await getUserById(u.id))!, q);
    expect(after.balance_status.notes).toEqual([]);
    expect(after.balance?.for_withdraw).toBe(emu.balanceOf().for_withdraw / 100);
  });

  it('a payout is marked paid once «Можно вывести» rose by it on its day (hourly readings on the clock)', async () => {
    // Two weeks; the later one is paid within the days ahead, by WB's dated rules.
    const { emu, clock, deps } = await start(2);
    const u = await newUser(100_000, 'wbbal');
    const conn = await connectOk(u, emu.tokens.valid);
    await syncRound(deps, clock, u.id, conn.id);
    const today = clock.now().toISOString().slice(0, 10);
    const calendar = payoutCalendar(
      emu.weeks.map((w) => ({
        report_id: String(w.item.reportId),
        wb_report_id: String(w.item.reportId),
        period_from: w.item.dateFrom.slice(0, 10),
        period_to: w.item.dateTo.slice(0, 10),
        amount: moneyToKopecks(w.item.bankPaymentSum),
      })),
      { today, balances: [] },
    );
    const ahead = calendar.find((p) => p.expected_date > today && p.amount > 0);
    expect(ahead, 'a week paid after today').toBeDefined();
    // Hourly steps until the day after the payout day.
    const until = Date.parse(`${ahead!.expected_date}T12:00:00Z`);
    const from = clock.now().getTime();
    while (clock.now().getTime() < until) {
      clock.advance(HOUR);
      await runStep(deps, u.id, conn.id);
    }
    await idleWorkers();
    const q = { from: ahead!.expected_date.slice(0, 7), to: ahead!.expected_date.slice(0, 7) };
    const cf = await getCashFlow({ ...cashFlowDeps, clock }, (await getUserById(u.id))!, q);
    const p = cf.payouts.find((x) => x.wb_report_id === ahead!.wb_report_id);
    expect(p).toMatchObject({
      expected_date: ahead!.expected_date,
      status: 'paid',
      paid_by: 'balance_rise',
      paid_on: ahead!.expected_date,
      amount: ahead!.amount / 100,
    });
    // The seller hears that it came, once: the sync told it when it read the rise; the notifications'
    // tick on the same clock mails it.
    const ours = (await listReports(u.id, { limit: 20 })).items.find((r) => r.wb_report_id === ahead!.wb_report_id)!;
    const event = await notificationStore.getEvent(u.id, `payout_paid:${ours.id}`);
    expect(event).toMatchObject({ kind: 'payout', facts: { amount: ahead!.amount, paid_on: ahead!.expected_date } });
    await notificationsTick({ ...deliverDeps(), clock });
    await notificationsTick({ ...deliverDeps(), clock });
    const email = (await getUserById(u.id))!.email;
    const arrived = (await readMail(process.env.SES_ENDPOINT as string)).filter(
      (m) => m.to.includes(email) && m.subject.includes('пришла'),
    );
    expect(arrived.map((m) => m.subject)).toEqual([event!.subject]);
    expect(arrived[0]!.text).toContain(`Выплата: ${rub(ahead!.amount)}`);
    // Kept: the changes (weeks formed, paid) and one a day, not every hourly reading.
    const kept = await latestBalances(u.id, 500);
    const hours = Math.round((until - from) / HOUR);
    expect(kept.length).toBeLessThanOrEqual(Math.ceil(hours / 24) + 1 + 2 * emu.weeks.length);
    expect(emu.calls.filter((x) => x.path === '/api/v1/account/balance').length).toBeGreaterThanOrEqual(hours - 1);
  }, 240_000);
});
