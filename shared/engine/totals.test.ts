import { describe, expect, it } from 'vitest';
import { applyManualValue, buildItems } from './build';
import { FIELDS, zeroAggregates } from './fields';
import { commissionByCategory, computeTotals } from './totals';
import type { AggregateValues, ReportSettings } from './types';

const zero = (): AggregateValues => zeroAggregates();

const settings: ReportSettings = {
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  costPrices: { A: 50_000, B: 10_000 },
};
const { items } = buildItems(
  {
    articles: [
      {
        article: 'A',
        category: 'Футболки',
        nm_id: '1',
        brand: '',
        aggregates: {
          ...zero(),
          sales_qty: 5,
          returns_qty: 1,
          realization: 500_000,
          seller_price: 600_000,
          sales_seller_price: 700_000,
          wb_discount: 100_000,
          for_pay: 400_000,
          commission: 100_000,
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
          commission: 45_000,
          category_commission_percent: 15,
        },
      },
      { article: '', category: '', nm_id: '', brand: '', aggregates: { ...zero(), storage: 30_000 } },
    ],
  },
  settings,
);

describe('computeTotals', () => {
  const totals = computeTotals(items.map((i) => i.effective));

  it('sums every additive field so the totals row equals the column sums', () => {
    for (const f of FIELDS) {
      if (
        ['margin', 'roi', 'avg_seller_price', 'cost_price', 'category_commission_percent', 'drr', 'roas'].includes(
          f.name,
        )
      )
        continue;
      expect(totals[f.name], f.name).toBe(items.reduce((s, i) => s + (i.effective[f.name] ?? 0), 0));
    }
    // A: 150 000, B: 300 000 − 18 000 − (50 000 + 30 000) = 202 000, "": −30 000
    expect(totals.profit).toBe(322_000);
    expect(totals.payout).toBe(600_000);
    expect(totals.net_qty).toBe(7);
  });

  it('recomputes ratios from the totals', () => {
    expect(totals.avg_seller_price).toBe(128_750); // 1 030 000 / 8
    expect(totals.margin).toBe(40.25); // 322 000 / 800 000
    expect(totals.roi).toBe(140); // 322 000 / 230 000
    expect(totals.cost_price).toBe(32_857); // 230 000 / 7
    expect(totals.category_commission_percent).toBe(21.25); // (25 · 500 000 + 15 · 300 000) / 800 000
  });

  it('null ratios on empty totals', () => {
    const t = computeTotals([]);
    expect([t.margin, t.roi, t.avg_seller_price, t.cost_price, t.profit]).toEqual([null, null, null, null, 0]);
  });
});

describe('commissionByCategory', () => {
  it('per category on effective values, biggest realization first', () => {
    const corrected = [applyManualValue(items[0]!, 'commission', 110_000, settings.tax), items[1]!, items[2]!];
    expect(commissionByCategory(corrected)).toEqual([
      { category: 'Футболки', realization: 500_000, commission: 110_000, percent: 22 },
      { category: 'Носки', realization: 300_000, commission: 45_000, percent: 15 },
      { category: '', realization: 0, commission: 0, percent: null },
    ]);
  });
});
