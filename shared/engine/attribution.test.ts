import { describe, expect, it } from 'vitest';
import { attributeCosts, cardLineArticle } from './attribution';
import { buildItems } from './build';
import { computeTotals } from './totals';
import type { AggregateValues, ReportSettings } from './types';
import { AGGREGATE_FIELDS } from './fields';
import { emulatedWeek } from '../../scripts/local/wb/weeks';
import { EXTRA_NM, promotionOf } from '../../scripts/local/wb/promotion';
import { aggregateApiRows } from '../marketplaces/wb/finance/row-map';

const zero = (): AggregateValues => {
  const a = {} as AggregateValues;
  for (const d of AGGREGATE_FIELDS) a[d.name] = 0;
  return a;
};
const art = (article: string, nm: string, over: Partial<AggregateValues>) => ({
  article,
  category: 'Платья',
  nm_id: nm,
  brand: 'B',
  aggregates: { ...zero(), ...over },
});

/** Three articles that sold, and «Без артикула» with 1 000 ₽ of «ВБ.Продвижение» deductions and 300 ₽ of storage. */
const parsed = {
  articles: [
    art('A', '101', { sales_qty: 2, realization: 200_000, for_pay: 170_000, seller_price: 220_000 }),
    art('B', '102', { sales_qty: 1, realization: 100_000, for_pay: 85_000, seller_price: 110_000 }),
    art('C', '103', { sales_qty: 1, realization: 50_000, for_pay: 42_000, seller_price: 55_000 }),
    art('', '', { ads: 100_000, storage: 30_000 }),
  ],
};
const settings: ReportSettings = {
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  costPrices: {},
  allocation: 'none',
};

describe('attributeCosts', () => {
  it('lays each card’s spend on its article; the deductions’ rest stays without an article', () => {
    const r = attributeCosts(parsed.articles, {
      ads: { byNm: { '101': 40_000, '102': 25_000, '103': 5_000 }, revenueByNm: { '101': 160_000 }, days: 7 },
    });
    expect(r.articles.map((a) => a.aggregates.ads)).toEqual([40_000, 25_000, 5_000, 30_000]);
    expect(r.adRevenue).toEqual([160_000, 0, 0, 0]);
    expect(r.summary.ads).toMatchObject({
      report: 100_000,
      api: 70_000,
      attributed: 70_000,
      unmatched: 0,
      remainder: 30_000,
      articles: 3,
      days: 7,
    });
    expect(r.warnings).toEqual([]);
    // The input is not touched.
    expect(parsed.articles[0]!.aggregates.ads).toBe(0);
  });

  it('names a card’s own line by its vendor code when WB’s answers gave it (paid storage), by the card alone when not', () => {
    const r = attributeCosts(parsed.articles, {
      ads: { byNm: { '101': 40_000, '777': 5_000, '888': 1_000 }, days: 7 },
      storage: { byNm: { '777': 2_000 }, names: { '777': 'ART-777', '101': 'A' }, days: 7 },
    });
    const lines = r.articles.filter((a) => a.article.startsWith('Карточка'));
    expect(lines.map((a) => [a.article, a.nm_id, a.aggregates.ads, a.aggregates.storage])).toEqual([
      ['Карточка 777 (ART-777)', '777', 5_000, 2_000],
      ['Карточка 888', '888', 1_000, 0],
    ]);
    // An article with rows keeps the seller's own article, whatever WB calls it.
    expect(r.articles[0]!.article).toBe('A');
    expect(cardLineArticle('777', ' ')).toBe('Карточка 777');
  });

  it('gives a card without rows its own line with its spend; nothing of it stays to be spread', () => {
    const r = attributeCosts(parsed.articles, {
      ads: { byNm: { '101': 40_000, '999': 12_000 } },
      storage: { byNm: { '999': 1_000 } },
    });
    expect(r.articles.map((a) => [a.article, a.nm_id, a.aggregates.ads, a.aggregates.storage])).toEqual([
      ['A', '101', 40_000, 0],
      ['B', '102', 0, 0],
      ['C', '103', 0, 0],
      ['', '', 48_000, 29_000],
      [cardLineArticle('999'), '999', 12_000, 1_000],
    ]);
    expect(r.articles[4]!.aggregates.sales_qty).toBe(0);
    expect(r.summary.ads).toMatchObject({ api: 52_000, attributed: 40_000, unmatched: 12_000, remainder: 48_000 });
    expect(r.summary.ads!.articles).toBe(1);
    expect(r.summary.ads!.unmatched_cards).toEqual([{ nm_id: '999', kopecks: 12_000 }]);
    expect(r.summary.storage).toMatchObject({ attributed: 0, unmatched: 1_000, remainder: 29_000 });
  });

  it('never changes the report total: more spend than deductions leaves a negative remainder and a warning', () => {
    const r = attributeCosts(parsed.articles, { ads: { byNm: { '101': 90_000, '102': 30_000 } } });
    expect(r.articles.map((a) => a.aggregates.ads)).toEqual([90_000, 30_000, 0, -20_000]);
    expect(r.warnings.map((w) => w.code)).toEqual(['cost_attribution_exceeds_report']);
  });

  it('replaces an article’s own row value, never adds to it, and adds a no-article item when needed', () => {
    const rows = [art('A', '101', { storage: 5_000, realization: 1 }), art('B', '102', { storage: 3_000 })];
    const r = attributeCosts(rows, { storage: { byNm: { '101': 6_500 } } });
    // A: the API's 65 ₽ instead of the rows' 50; B keeps its rows' 30; the total 80 stays: 65 + 30 − 15.
    expect(r.articles.map((a) => [a.article, a.aggregates.storage])).toEqual([
      ['A', 6_500],
      ['B', 3_000],
      ['', -1_500],
    ]);
  });

  it('a report without any of the cost (a «по выкупам» report) is left as it is', () => {
    const rows = [art('A', '101', { realization: 1 }), art('', '', { storage: 5 })];
    const r = attributeCosts(rows, { ads: { byNm: { '101': 40_000 } } });
    expect(r.articles.map((a) => a.aggregates.ads)).toEqual([0, 0]);
    expect(r.summary).toEqual({});
  });

  it('a kind without costs is left as the rows give it', () => {
    const r = attributeCosts(parsed.articles, { ads: { byNm: {} } });
    expect(r.articles.map((a) => [a.aggregates.ads, a.aggregates.storage])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [100_000, 30_000],
    ]);
  });
});

describe('buildItems with WB costs', () => {
  it('counts each rouble of ads once: totals and payout equal the build without the API; ДРР and ROAS per article', () => {
    const costs = {
      ads: { byNm: { '101': 40_000, '102': 25_000, '103': 5_000 }, revenueByNm: { '101': 160_000, '102': 50_000 } },
      storage: { byNm: { '101': 10_000, '102': 10_000, '103': 10_000 } },
    };
    for (const allocation of ['none', 'realization', 'quantity'] as const) {
      const plain = buildItems(parsed, { ...settings, allocation });
      const withApi = buildItems(parsed, { ...settings, allocation, costs });
      const t0 = computeTotals(plain.items.map((i) => i.effective));
      const t1 = computeTotals(withApi.items.map((i) => i.effective));
      for (const f of ['ads', 'storage', 'expenses', 'payout', 'profit', 'usn'] as const) expect(t1[f], f).toBe(t0[f]);
      expect(withApi.attribution?.ads?.remainder).toBe(30_000);
      expect(withApi.attribution?.storage?.remainder).toBe(0);
    }
    const built = buildItems(parsed, { ...settings, costs });
    const a = built.items.find((i) => i.article === 'A')!.effective;
    expect(a.ads).toBe(40_000);
    expect(a.drr).toBe(20); // 400 ₽ of 2 000 ₽
    expect(a.ad_revenue).toBe(160_000);
    expect(a.roas).toBe(400); // 1 600 ₽ of orders on 400 ₽ of ads
    const c = built.items.find((i) => i.article === 'C')!.effective;
    expect(c.drr).toBe(10);
    expect(c.roas).toBeNull(); // no orders put down to its ads
    const t = computeTotals(built.items.map((i) => i.effective));
    expect(t.drr).toBe(28.57); // 1 000 ₽ of 3 500 ₽
    expect(t.roas).toBe(210); // 2 100 ₽ of orders on 1 000 ₽ of ads
  });

  it('without costs nothing changes and no attribution is reported', () => {
    const built = buildItems(parsed, settings);
    expect(built.attribution).toBeUndefined();
    expect(built.items.find((i) => i.article === '')!.computed.ads).toBe(100_000);
  });
});

describe('a generated week with ads on a card that sold nothing', () => {
  it('the sold articles carry only their own spend, the card its own line with −spend as profit', () => {
    const week = emulatedWeek({ index: 0, rows: 400, seed: 11 });
    const promo = promotionOf([week]).weeks[0]!;
    expect(promo.spend.map((s) => s.nmId)).toContain(EXTRA_NM);
    const parsedWeek = aggregateApiRows([week.rows]);
    expect(parsedWeek.articles.some((a) => a.nm_id === String(EXTRA_NM))).toBe(false);
    const byNm = Object.fromEntries(promo.spend.map((s) => [String(s.nmId), s.kopecks]));
    for (const allocation of ['realization', 'quantity', 'none'] as const) {
      const plain = buildItems(parsedWeek, { ...settings, allocation });
      const built = buildItems(parsedWeek, { ...settings, allocation, costs: { ads: { byNm } } });
      for (const s of promo.spend.slice(0, 3)) {
        const item = built.items.find((i) => i.nm_id === String(s.nmId))!;
        expect(item.effective.ads, `ads of ${s.nmId}`).toBe(s.kopecks);
      }
      const extra = promo.spend[3]!.kopecks;
      const line = built.items.find((i) => i.nm_id === String(EXTRA_NM))!;
      expect(line.article).toBe(cardLineArticle(String(EXTRA_NM)));
      expect(line.effective).toMatchObject({ sales_qty: 0, realization: 0, ads: extra, allocated_expenses: 0 });
      expect(line.effective.profit).toBe(-extra);
      // «Без артикула» keeps only the deductions no card explains: the card's spend is not spread.
      const none = built.items.find((i) => i.article === '')!;
      const all = promo.spend.reduce((sum, s) => sum + s.kopecks, 0);
      expect(none.effective.ads).toBe(promo.deductions - all);
      // What is spread onto the sold articles is that remainder (and the rows' other no-article costs), never the card's spend.
      const spread = (items: typeof built.items) =>
        items.filter((i) => i.article !== '').reduce((sum, i) => sum + (i.effective.allocated_expenses ?? 0), 0);
      if (allocation !== 'none') expect(spread(plain.items) - spread(built.items)).toBe(all);
      // The report's totals stay those of the rows alone.
      const t0 = computeTotals(plain.items.map((i) => i.effective));
      const t1 = computeTotals(built.items.map((i) => i.effective));
      for (const f of ['ads', 'expenses', 'payout', 'profit'] as const) expect(t1[f], f).toBe(t0[f]);
    }
  });
});
