import { describe, expect, it } from 'vitest';
import { applyManualValue, buildItems } from './build';
import { combineItems, combinePeriods, combineSellers } from './combine';
import { zeroAggregates } from './fields';
import type { AggregateValues, ReportSettings } from './types';

const zero = (): AggregateValues => zeroAggregates();
const settings: ReportSettings = {
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  costPrices: { A: 50_000, B: 10_000, C: 0 },
};

const week1 = buildItems(
  {
    articles: [
      {
        article: 'A',
        category: 'Футболки',
        nm_id: '1',
        brand: 'X',
        aggregates: {
          ...zero(),
          sales_qty: 5,
          returns_qty: 1,
          realization: 500_000,
          seller_price: 600_000,
          sales_seller_price: 700_000,
          wb_discount: 100_000,
          for_pay: 400_000,
          logistics: 20_000,
          category_commission_percent: 25,
        },
      },
      {
        article: 'B',
        category: 'Носки',
        nm_id: '2',
        brand: '',
        aggregates: {
          ...zero(),
          sales_qty: 3,
          realization: 300_000,
          seller_price: 330_000,
          sales_seller_price: 330_000,
          wb_discount: 30_000,
          for_pay: 250_000,
          category_commission_percent: 15,
        },
      },
    ],
  },
  settings,
).items;
const week2Built = buildItems(
  {
    articles: [
      {
        article: 'A',
        category: '',
        nm_id: '1',
        brand: '',
        aggregates: {
          ...zero(),
          sales_qty: 2,
          realization: 200_000,
          seller_price: 260_000,
          sales_seller_price: 260_000,
          wb_discount: 60_000,
          for_pay: 160_000,
          category_commission_percent: 20,
        },
      },
      { article: 'C', category: 'Шапки', nm_id: '3', brand: '', aggregates: { ...zero(), storage: 1_000 } },
    ],
  },
  settings,
).items;
// A correction in week 2 carries over into the combination.
const week2 = [applyManualValue(week2Built[0]!, 'realization', 210_000, settings.tax), week2Built[1]!];

describe('combineItems', () => {
  const combined = combineItems([week1, week2]);
  const a = combined.find((i) => i.article === 'A')!;

  it('merges by article, first non-empty info wins', () => {
    expect(combined.map((i) => i.article)).toEqual(['A', 'B', 'C']);
    expect(a).toMatchObject({ category: 'Футболки', nm_id: '1', brand: 'X', manual_values: {} });
    expect(a.effective).toEqual(a.computed);
  });

  it('sums the sources’ effective values, so corrections carry over', () => {
    // week 2 A: income 210 000; expenses 50 000 + 100 000 = 150 000; usn 12 600; profit 47 400
    expect(week2[0]!.effective.profit).toBe(47_400);
    expect(a.effective).toMatchObject({
      sales_qty: 7,
      returns_qty: 1,
      realization: 710_000,
      wb_discount: 150_000,
      for_pay: 560_000,
      logistics: 20_000,
      cost_total: 300_000,
      usn: 42_600,
      profit: 197_400,
      income: 710_000,
      expenses: 470_000,
      payout: 540_000,
    });
  });

  it('recomputes ratios on the sums', () => {
    expect(a.effective.net_qty).toBe(6);
    expect(a.effective.avg_seller_price).toBe(137_143); // 960 000 / 7
    expect(a.effective.margin).toBe(27.8); // 197 400 / 710 000
    expect(a.effective.roi).toBe(65.8); // 197 400 / 300 000
    expect(a.effective.cost_price).toBe(50_000); // 300 000 / 6
    expect(a.effective.category_commission_percent).toBe(23.52); // (25 · 500 000 + 20 · 210 000) / 710 000
  });

  it('an article of one source only keeps its values', () => {
    const c = combined.find((i) => i.article === 'C')!;
    expect(c.effective).toMatchObject({
      storage: 1_000,
      profit: -1_000,
      cost_price: null,
      margin: null,
      roi: null,
      avg_seller_price: null,
    });
    const b = combined.find((i) => i.article === 'B')!;
    expect(b.effective).toEqual({ ...week1[1]!.effective });
  });
});

describe('combinePeriods and combineSellers', () => {
  it('union of periods, ignoring unknown ends', () => {
    expect(
      combinePeriods([
        { period_from: '2024-01-08', period_to: '2024-01-14' },
        { period_from: null, period_to: null },
        { period_from: '2024-01-01', period_to: '2024-01-07' },
      ]),
    ).toEqual({ period_from: '2024-01-01', period_to: '2024-01-14' });
    expect(combinePeriods([])).toEqual({ period_from: null, period_to: null });
  });
  it('one shared seller or none', () => {
    expect(combineSellers(['1', '1'])).toBe('1');
    expect(combineSellers(['1', '2'])).toBeNull();
    expect(combineSellers(['1', null])).toBeNull();
    expect(combineSellers([])).toBeNull();
  });
});
