/**
 * Acquiring WB bills separately, end to end on DynamoDB Local, s3rver, the report worker and the WB emulator
 * (docs/METRICS.md «Row money», «Per-article costs from WB»): a generated week half of whose sales are paid
 * «Комиссия за организацию платежа с НДС» (for_pay without the acquiring) is synced; the sync asks WB's
 * acquiring report for the week, the report says it is loading until then, and afterwards each article's
 * «Эквайринг отдельным счётом» is the acquiring report's for its card while the payout stays WB's «Итого к
 * оплате». A week whose rows keep acquiring inside for_pay never asks for the acquiring report.
 *
 * Manual clock shared with the emulator: WB's minute between calls costs nothing.
 */
import { randomInt } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as connectionsHandler } from '../../functions/wb/connections.handler';
import { startWbEmulator, type WbEmulator } from '../../scripts/local/wb-emulator';
import { manualClock } from '../../shared/deps';
import { buildItems, computeTotals } from '../../shared/engine';
import { moneyToKopecks } from '../../shared/marketplaces/wb/money';
import { aggregateApiRows } from '../../shared/marketplaces/wb/finance/row-map';
import { stepDeps } from '../../shared/marketplaces/wb/sync/step-deps';
import { runStep } from '../../shared/marketplaces/wb/sync/step';
import type { WbConnection } from '../../shared/contract/shapes';
import { listReports } from '../../shared/store/reports.repo';
import { getConnection } from '../../shared/store/wb-connections.repo';
import { getReportOk, newUser, rub } from '../support/reports';
import { apiEvent, bodyOf } from '../support/test-event';
import { idleWorkers } from '../support/worker';

const MINUTE = 60_000;
const ACQUIRING_PATH = '/api/finance/v1/acquiring/detailed';

let emu: WbEmulator | null = null;
afterEach(async () => {
  await idleWorkers();
  await emu?.close();
  emu = null;
});
beforeAll(() => {
  process.env.WB_CALL_INTERVAL_SECONDS = String(MINUTE / 1000);
});

async function connectedWeek(billSeparately: boolean, tag: string) {
  const clock = manualClock(Date.now());
  emu = await startWbEmulator({
    port: 0,
    intervalMs: MINUTE,
    weeks: 1,
    rowsPerWeek: 240,
    seed: 5,
    now: () => clock.now().getTime(),
    sellerId: randomInt(5_000_000, 9_000_000),
  });
  process.env.WB_FINANCE_API_URL = emu.url;
  const changed = billSeparately ? emu.acquiring.billSeparately(emu.weeks[0]!.item.reportId, 2) : 0;
  const u = await newUser(100_000, tag);
  // «Финансы» alone: the acquiring report is the Finance API's; no ads or analytics source runs.
  const created = await connectionsHandler(
    apiEvent({ method: 'POST', path: '/api/wb/connections', token: u.token, body: { token: emu.issue() } }),
  );
  expect(created.statusCode, created.body).toBe(201);
  const c = bodyOf<{ connection: WbConnection }>(created).connection;
  const deps = { ...stepDeps, clock };
  const steps: string[] = [];
  let reportId: string | null = null;
  for (let i = 0; i < 30 && !reportId; i++) {
    clock.advance(MINUTE + 1_000);
    steps.push(await runStep(deps, u.id, c.id));
    await idleWorkers();
    reportId = (await listReports(u.id, { limit: 10, ready: true })).items[0]?.id ?? null;
  }
  expect(reportId, steps.join(',')).not.toBeNull();
  return { emu, clock, u, c, deps, steps, reportId: reportId!, changed };
}

describe('acquiring billed separately, from WB’s acquiring report', () => {
  it('the week’s acquiring per article is the acquiring report’s; loading until it comes; the payout is WB’s', async () => {
    const { emu, clock, u, c, deps, steps, reportId, changed } = await connectedWeek(true, 'wbacq');
    expect(changed).toBeGreaterThan(10);
    const before = await getReportOk(u.token, reportId);
    // Until WB's acquiring report answers, the report says so and lays out nothing from it.
    expect(before.costs_pending).toEqual(['acquiring_billed']);
    expect(before.cost_attribution).toBeNull();

    for (let i = 0; i < 40; i++) {
      clock.advance(MINUTE + 1_000);
      steps.push(await runStep(deps, u.id, c.id));
      await idleWorkers();
      const conn = await getConnection(u.id, c.id);
      if (conn?.costs?.done[reportId] && conn.costs.rederive.length === 0) break;
    }
    expect(steps).toContain('rederived');
    const conn = await getConnection(u.id, c.id);
    expect(conn?.costs?.error ?? null).toBeNull();
    const calls = emu.calls.filter((x) => x.path === ACQUIRING_PATH);
    // The pages until WB's 204: one page of rows, then no more.
    expect(calls.map((x) => x.status)).toEqual([200, 204]);

    const report = await getReportOk(u.token, reportId);
    expect(report.costs_pending).toEqual([]);
    // The acquiring report, per card, as the emulator bills it (returns count against sales).
    const expected = new Map<string, number>();
    for (const r of emu.acquiring.rows()) {
      const sign = r.docTypeName === 'Возврат' ? -1 : 1;
      expected.set(String(r.nmId), (expected.get(String(r.nmId)) ?? 0) + sign * moneyToKopecks(r.acquiringFee));
    }
    expect(expected.size).toBeGreaterThan(1);
    const byNm = new Map(report.items.filter((i) => i.article !== '').map((i) => [i.nm_id, i]));
    for (const [nm, kopecks] of expected)
      expect(byNm.get(nm)?.effective.acquiring_billed, `acquiring billed of ${nm}`).toBe(rub(kopecks));
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(report.cost_attribution?.acquiring_billed).toMatchObject({
      report_total: rub(total),
      from_api: rub(total),
      without_article: 0,
      unmatched: 0,
      articles: expected.size,
    });
    // The payout is WB's «Итого к оплате» and the rows' own: the acquiring report is not a payout line.
    const rowsOnly = computeTotals(
      buildItems(
        { articles: aggregateApiRows([emu.weeks[0]!.rows]).articles },
        { tax: report.tax_profile, costPrices: {} },
      ).items.map((i) => i.effective),
    );
    expect(report.totals.payout).toBe(rub(rowsOnly.payout ?? 0));
    expect(report.totals.payout).toBe(before.totals.payout);
    expect(report.totals.payout).toBe(rub(moneyToKopecks(emu.weeks[0]!.item.bankPaymentSum)));
    expect(report.totals.acquiring_billed).toBe(rub(total));
    expect(report.reconciliation?.status).toBe('match');
  });

  it('a week whose acquiring is inside for_pay never asks for the acquiring report', async () => {
    const { emu, clock, u, c, deps, reportId } = await connectedWeek(false, 'wbacq0');
    const report = await getReportOk(u.token, reportId);
    expect(report.costs_pending).toEqual([]);
    for (let i = 0; i < 5; i++) {
      clock.advance(MINUTE + 1_000);
      await runStep(deps, u.id, c.id);
      await idleWorkers();
    }
    expect(emu.calls.filter((x) => x.path.startsWith('/api/finance/v1/acquiring'))).toEqual([]);
    expect((await getReportOk(u.token, reportId)).cost_attribution).toBeNull();
  });
});
