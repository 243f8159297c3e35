/**
 * Per-article costs, end to end on DynamoDB Local, s3rver, the report worker and the WB emulator (Finance,
 * promotion and seller-analytics APIs; docs/METRICS.md «Per-article costs from WB»): a connected seller's
 * week whose «ВБ.Продвижение» deductions two campaigns over three articles mostly explain, and whose paid
 * storage and acceptance WB's report tasks give per card. After the sync and the cost steps, each
 * article's `ads` is its campaigns' spend, its `storage` and `acceptance` WB's per-card sums for the week,
 * the rest of each stays on «Без артикула», the report's totals (storage, acceptance, expenses, payout)
 * are those of the rows alone — no rouble twice — ДРР is ads ÷ realization, and a manual correction made
 * before the costs came survives the rebuild.
 *
 * Manual clock shared with the emulator: a minute between Finance calls, 20 s between promotion calls and
 * WB's report-task limits (a minute per task, 5 s per status) cost nothing.
 */
import { randomInt } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as connectionsHandler } from '../../functions/wb/connections.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as pnlHandler } from '../../functions/pnl/get.handler';
import type { Pnl } from '../../shared/contract/pnl-shapes';
import { startWbEmulator, type WbEmulator } from '../../scripts/local/wb-emulator';
import { manualClock } from '../../shared/deps';
import { buildItems, computeTotals, percentOf } from '../../shared/engine';
import { idleWorkers } from '../support/worker';
import type { WbConnection } from '../../shared/contract/shapes';
import { listReports } from '../../shared/store/reports.repo';
import { getConnection } from '../../shared/store/wb-connections.repo';
import { aggregateApiRows } from '../../shared/marketplaces/wb/finance/row-map';
import { stepDeps } from '../../shared/marketplaces/wb/sync/step-deps';
import { runStep } from '../../shared/marketplaces/wb/sync/step';
import { getReportOk, newUser, rub } from '../support/reports';
import { apiEvent, bodyOf } from '../support/test-event';
import { EXTRA_NM } from '../../scripts/local/wb/promotion';

const FINANCE_MS = 60_000;
const ADVERT_MS = 20_000;

let emu: WbEmulator | null = null;
afterEach(async () => {
  await idleWorkers();
  await emu?.close();
  emu = null;
});
beforeAll(() => {
  process.env.WB_CALL_INTERVAL_SECONDS = String(FINANCE_MS / 1000);
  process.env.WB_ADVERT_CALL_INTERVAL_SECONDS = String(ADVERT_MS / 1000);
});

/** Kopecks by nmId of rows carrying roubles (the emulator's wire rows). */
function perNm<R>(rows: readonly R[], nm: (r: R) => number, rub: (r: R) => number): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of rows) out.set(nm(r), (out.get(nm(r)) ?? 0) + Math.round(rub(r) * 100));
  return out;
}

describe('per-article costs from WB’s promotion and analytics APIs', () => {
  it('ads = campaigns’ spend, storage and acceptance = WB’s per-card sums, the rest «Без артикула», totals unchanged, ДРР; corrections kept', async () => {
    const clock = manualClock(Date.now());
    emu = await startWbEmulator({
      port: 0,
      intervalMs: FINANCE_MS,
      advertIntervalMs: ADVERT_MS,
      weeks: 1,
      rowsPerWeek: 300,
      seed: 3,
      now: () => clock.now().getTime(),
      sellerId: randomInt(5_000_000, 9_000_000),
    });
    process.env.WB_FINANCE_API_URL = emu.url;
    process.env.WB_ADVERT_API_URL = emu.url;
    process.env.WB_ANALYTICS_API_URL = emu.url;
    const week = emu.promotion.weeks[0]!;
    // The demo week: «Продвижение» deductions, three cards with rows and a fourth without.
    expect(week.deductions).toBeGreaterThan(0);
    expect(week.spend.map((s) => s.nmId)).toContain(EXTRA_NM);
    expect(new Set(week.spend.slice(0, 3).map((s) => s.advertId)).size).toBe(2);

    const u = await newUser(100_000, 'wbads');
    const created = await connectionsHandler(
      apiEvent({ method: 'POST', path: '/api/wb/connections', token: u.token, body: { token: emu.tokens.promotion } }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const c = bodyOf<{ connection: WbConnection }>(created).connection;
    expect(c.scopes).toContain('Продвижение');
    expect(c.scopes).toContain('Аналитика');
    const deps = { ...stepDeps, clock };

    // The Finance part first: the week imported and built from its rows.
    const steps: string[] = [];
    let reportId: string | null = null;
    let importedAt: number | null = null;
    for (let i = 0; i < 30 && !reportId; i++) {
      clock.advance(FINANCE_MS + 1_000);
      const callsBefore = emu.calls.length;
      steps.push(await runStep(deps, u.id, c.id));
      // The step that charged the week: its clock time is the import's.
      if (importedAt === null && (await listReports(u.id, { limit: 10 })).items.length > 0) {
        importedAt = clock.now().getTime();
        // That step's WB calls: the Finance page that ended the week, then the week's first ads call.
        const paths = emu.calls.slice(callsBefore).map((x) => x.path);
        expect(paths.some((p) => p.startsWith('/adv/'))).toBe(true);
      }
      await idleWorkers();
      reportId = (await listReports(u.id, { limit: 10, ready: true })).items[0]?.id ?? null;
    }
    expect(reportId, steps.join(',')).not.toBeNull();
    expect(importedAt).not.toBeNull();
    // Costs right from the first minute: the first promotion and analytics calls for the week come
    // within one pacing slot of the import (WB's minute), not at the next scan ten minutes on.
    const firstCall = (prefix: string) => emu!.timeline.find((x) => x.path.startsWith(prefix))?.at ?? Infinity;
    expect(firstCall('/adv/') - importedAt!).toBeLessThanOrEqual(FINANCE_MS);
    const before = await getReportOk(u.token, reportId!);
    expect(before.cost_attribution).toBeNull();
    // Until WB's APIs answer for the week, the report and its P&L month say so.
    expect(before.costs_pending).toEqual(['ads', 'storage', 'acceptance']);
    const month = before.period_from!.slice(0, 7);
    const pnlOf = async () => {
      const r = await pnlHandler(
        apiEvent({ method: 'GET', path: '/api/pnl', token: u.token, query: { from: month, to: month } }),
      );
      expect(r.statusCode, r.body).toBe(200);
      return bodyOf<Pnl>(r);
    };
    expect((await pnlOf()).months[0]!.costs_pending).toEqual(['ads', 'storage', 'acceptance']);

    // A correction before the costs come: the rebuild must keep it.
    const corrected = before.items.find((i) => i.nm_id === String(week.spend[1]!.nmId))!;
    const put = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${corrected.item_id}/manual-value`,
        token: u.token,
        pathParameters: { item_id: corrected.item_id },
        body: { field: 'cost_price', value: 321.5 },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);

    // The cost steps: scan; count, fullstats; each report's task made, polled, downloaded; the rebuild.
    for (let i = 0; i < 80; i++) {
      clock.advance(ADVERT_MS + 1_000);
      steps.push(await runStep(deps, u.id, c.id));
      await idleWorkers();
      const conn = await getConnection(u.id, c.id);
      if (conn?.costs?.done[reportId!] && conn.costs.rederive.length === 0) break;
    }
    expect(steps).toContain('rederived');
    // The first analytics call came within a slot of the ads' (the same week's jobs, one after another).
    expect(firstCall('/api/v1/paid_storage') - importedAt!).toBeLessThanOrEqual(3 * FINANCE_MS);
    const conn = await getConnection(u.id, c.id);
    expect(conn?.costs?.error ?? null).toBeNull();
    expect(conn?.costs?.refused).toEqual([]);
    // One task per report kind for the week (≤ 8 and ≤ 31 days), none made again.
    expect(emu.analytics.taskIds()).toHaveLength(2);
    const report = await getReportOk(u.token, reportId!);
    // Every source answered and the report is re-derived: nothing pending, on the report and in the P&L.
    expect(report.costs_pending).toEqual([]);
    expect((await pnlOf()).months[0]!.costs_pending).toEqual([]);
    const byNm = new Map(report.items.map((i) => [i.nm_id, i]));
    for (const s of week.spend.slice(0, 3)) {
      const item = byNm.get(String(s.nmId))!;
      expect(item.effective.ads, `ads of ${s.nmId}`).toBe(rub(s.kopecks));
      expect(item.effective.ad_revenue).toBe(rub(s.orders));
      // ДРР = ads ÷ realization, as the test computes it.
      const realization = Math.round((item.effective.realization as number) * 100);
      expect(item.effective.drr).toBe(realization > 0 ? percentOf(s.kopecks, realization) : null);
    }
    const onArticles = week.spend.slice(0, 3).reduce((sum, s) => sum + s.kopecks, 0);
    const extra = week.spend[3]!.kopecks;
    // The card that sold nothing this week: its own line, its spend as its cost, −spend as profit.
    const line = byNm.get(String(EXTRA_NM))!;
    expect(line.article).toBe(`Карточка ${EXTRA_NM}`);
    expect(line.effective).toMatchObject({ sales_qty: 0, realization: 0, ads: rub(extra), allocated_expenses: 0 });
    expect(line.effective.profit).toBe(rub(-extra));
    // «Без артикула» keeps only the deductions no card explains; the card's spend is spread onto nobody.
    const none = report.items.find((i) => i.article === '')!;
    expect(none.effective.ads).toBe(rub(week.deductions - onArticles - extra));
    // The promotion API's part and the report's own: one rouble counted once.
    expect(report.cost_attribution?.ads).toMatchObject({
      report_total: rub(week.deductions),
      from_api: rub(onArticles),
      without_article: rub(week.deductions - onArticles - extra),
      unmatched: rub(week.spend[3]!.kopecks),
      unmatched_cards: [{ nm_id: String(EXTRA_NM), amount: rub(week.spend[3]!.kopecks) }],
      articles: 3,
      days: 7,
    });
    // The totals of the rows alone (no double count of the deduction), with the correction.
    const parsed = aggregateApiRows([emu.weeks[0]!.rows]);
    const plain = buildItems(
      { articles: parsed.articles },
      { tax: report.tax_profile, costPrices: {} },
      { [corrected.article]: { cost_price: 32_150 } },
    );
    const expected = computeTotals(plain.items.map((i) => i.effective));
    for (const f of ['ads', 'storage', 'acceptance', 'expenses', 'payout', 'realization', 'usn'] as const)
      expect(report.totals[f], f).toBe(rub(expected[f] ?? 0));
    expect(report.totals.ads).toBe(rub(week.deductions));
    expect(report.totals.drr).toBe(percentOf(week.deductions, Math.round((report.totals.realization as number) * 100)));

    // Paid storage and acceptance: each article its card's sum from WB's reports for the week, the rest
    // on «Без артикула», the totals those of the rows.
    const analytics = emu.analytics.weeks[0]!;
    const apiCosts = {
      storage: perNm(
        analytics.storage,
        (r) => r.nmId,
        (r) => r.warehousePrice,
      ),
      acceptance: perNm(
        analytics.acceptance,
        (r) => r.nmID,
        (r) => r.total,
      ),
    };
    const articles = report.items.filter((i) => i.article !== '');
    for (const field of ['storage', 'acceptance'] as const) {
      const api = apiCosts[field];
      expect(api.size, field).toBeGreaterThan(0);
      for (const [nm, kopecks] of api) {
        expect(byNm.get(String(nm))?.effective[field], `${field} of ${nm}`).toBe(rub(kopecks));
      }
      const total = expected[field] ?? 0;
      const onArticles = articles.reduce((sum, i) => sum + Math.round((i.effective[field] as number) * 100), 0);
      const apiTotal = [...api.values()].reduce((a, b) => a + b, 0);
      expect(report.totals[field], field).toBe(rub(total));
      expect(Math.round((none.effective[field] as number) * 100), `${field} without article`).toBe(total - onArticles);
      expect(report.cost_attribution?.[field], field).toMatchObject({
        report_total: rub(total),
        from_api: rub(apiTotal),
        api_total: rub(apiTotal),
        without_article: rub(total - onArticles),
        unmatched: 0,
        articles: api.size,
        days: 7,
      });
    }
    // The correction is still there.
    const after = report.items.find((i) => i.article === corrected.article)!;
    expect(after.manual_values.cost_price).toBe(321.5);
    expect(report.reconciliation?.status).toBe('match');
  });
});
