/**
 * The two roads into the engine give one report: a generated portal file read by the engine's reader, and
 * the same week as WB API rows mapped through shared/marketplaces/wb/finance/row-map.ts into the same aggregator.
 */
import { describe, expect, it } from 'vitest';
import { buildItems } from '../../../shared/engine/build';
import { readReport } from '../../../shared/engine/read-report';
import { computeTotals } from '../../../shared/engine/totals';
import { DEFAULT_TAX_PROFILE } from '../../../shared/engine/types';
import { moneyToKopecks } from '../../../shared/marketplaces/wb/money';
import { reportSumsFromRows } from '../../../shared/marketplaces/wb/finance/report-sums';
import { aggregateApiRows } from '../../../shared/marketplaces/wb/finance/row-map';
import { DEMO_PLAN, demoRows, emulatedWeek } from './weeks';

const settings = { tax: DEFAULT_TAX_PROFILE, costPrices: {} };

describe.each(['2026', '2025'] as const)('portal file and API rows of one week (%s layout)', (layout) => {
  const week = emulatedWeek({ index: 2, rows: 1500, seed: 11, layout });

  it('give the same engine result, to the kopeck', async () => {
    const fromFile = await readReport({ buffer: week.portal.file, filename: week.portal.filename });
    const fromApi = aggregateApiRows([week.rows.slice(0, 700), week.rows.slice(700)]);
    expect(fromApi.rows).toBe(fromFile.rows);
    expect(fromApi.articles).toEqual(fromFile.articles);
    expect(fromApi.period_from).toBe(fromFile.period_from);
    expect(fromApi.period_to).toBe(fromFile.period_to);
    expect(fromApi.warnings).toEqual(fromFile.warnings);
    const totalsFile = computeTotals(buildItems(fromFile, settings).items.map((i) => i.effective));
    const totalsApi = computeTotals(buildItems(fromApi, settings).items.map((i) => i.effective));
    expect(totalsApi).toEqual(totalsFile);
    // And both equal the generator's own answer key.
    const expectedForPay = week.portal.expected.articles.reduce((s, a) => s + a.aggregates.for_pay, 0);
    expect(totalsApi.for_pay).toBe(expectedForPay);
  });

  it("the list's «Итого к оплате» (audit formula, WB's) is the engine's payout; the cash formula differs by rebill and loyalty compensation", async () => {
    const parsed = await readReport({ buffer: week.portal.file, filename: week.portal.filename });
    const totals = computeTotals(buildItems(parsed, settings).items.map((i) => i.effective));
    expect(moneyToKopecks(week.item.bankPaymentSum)).toBe(totals.payout);
    const cash = reportSumsFromRows(week.rows, 'cash');
    const a = parsed.articles.reduce((s, x) => ({ rebill: s.rebill + x.aggregates.rebill_logistics }), { rebill: 0 });
    expect(a.rebill).toBeGreaterThan(0);
    expect(totals.payout! - cash.bankPaymentSum).toBe(a.rebill - cash.cashbackDiscountSum);
    expect(cash.rebillLogisticCostSum).toBe(a.rebill);
  });
});

describe('a week of the emulator', () => {
  it('has its rows dated in the week its list item names', async () => {
    const week = emulatedWeek({ index: 1, rows: 200, seed: 3, firstMonday: '2026-11-09' });
    expect([week.item.dateFrom, week.item.dateTo]).toEqual(['2026-11-16', '2026-11-22']);
    const parsed = await readReport({ buffer: week.portal.file, filename: week.portal.filename });
    expect([parsed.period_from, parsed.period_to]).toEqual(['2026-11-16', '2026-11-22']);
  });
});

describe('the demo seller’s weeks (DEMO_PLAN)', () => {
  const weeks = [0, 1, 2, 3].map((index) => emulatedWeek({ index, rows: 400, seed: 1, demo: true }));
  const built = weeks.map((w) => buildItems(aggregateApiRows([w.rows]), settings).items);
  const totals = built.map((items) => computeTotals(items.map((i) => i.effective)));

  it('differ week to week by the season, with the same articles every week', () => {
    // Rows: 400 · 1, 1.3, 0.75, 1.55, and the loss-maker's extra logistics row.
    expect(weeks.map((w) => w.rows.length)).toEqual([401, 521, 301, 621]);
    const realization = totals.map((t) => t.realization);
    expect(new Set(realization).size).toBe(4);
    // The busiest week sells more than the quietest by more than the noise of one seed.
    expect(realization[3]!).toBeGreaterThan(realization[2]! * 1.5);
    // One shop: 400 / 40 = 10 articles, whatever the week's volume.
    const articles = new Set(built.flatMap((items) => items.map((i) => i.article).filter((a) => a !== '')));
    expect(articles.size).toBe(10);
    expect(weeks.map((w) => moneyToKopecks(w.item.bankPaymentSum))).toEqual(totals.map((t) => t.payout));
  });

  it('show returns, penalties, ads and a loss-making article in every week', () => {
    for (const [i, t] of totals.entries()) {
      expect(t.returns_qty, `week ${i}`).toBeGreaterThan(0);
      expect(t.penalties, `week ${i}`).toBeGreaterThan(0);
      expect(t.ads, `week ${i}`).toBeGreaterThan(0);
      const loss = built[i]!.find((x) => x.article === DEMO_PLAN.lossArticle)!;
      expect(loss.effective.profit!, `week ${i}`).toBeLessThan(0);
      // Only the loss-maker loses before a cost price: the rest of the shop earns.
      expect(built[i]!.filter((x) => x.article !== '' && (x.effective.profit ?? 0) < 0).map((x) => x.article)).toEqual([
        DEMO_PLAN.lossArticle,
      ]);
    }
  });

  it('are the same at every start (seeded)', () => {
    const again = emulatedWeek({ index: 2, rows: 400, seed: 1, demo: true });
    expect(again.rows).toEqual(weeks[2]!.rows);
    expect(again.item).toEqual(weeks[2]!.item);
    expect(demoRows(800, 13)).toBe(Math.round(800 * DEMO_PLAN.season[1]));
  });
});
