import { describe, expect, it } from 'vitest';
import { buildItems } from '../engine/build';
import { ownCostRates } from '../engine/own-costs';
import { computeTotals } from '../engine/totals';
import { zeroAggregates } from '../engine/fields';
import type { AggregateValues } from '../engine/types';
import { summaryTotals } from './xls-summary';
import { exportTotals } from './xlsx-export';

const agg = (over: Partial<AggregateValues>): AggregateValues => ({ ...zeroAggregates(), ...over });

describe('own costs in the exports', () => {
  const rates = ownCostRates(
    [
      { article: null, name: 'Упаковка', amounts: [{ valid_from: null, amount: 1_250 }] },
      { article: 'B', name: 'Упаковка', amounts: [{ valid_from: null, amount: 4_000 }] },
    ],
    '2026-02-10',
  );
  const { items } = buildItems(
    {
      articles: [
        {
          article: 'A',
          category: '',
          nm_id: '1',
          brand: '',
          aggregates: agg({ sales_qty: 3, realization: 300_000, for_pay: 250_000 }),
        },
        {
          article: 'B',
          category: '',
          nm_id: '2',
          brand: '',
          aggregates: agg({ sales_qty: 2, realization: 200_000, for_pay: 150_000 }),
        },
      ],
    },
    {
      tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
      costPrices: { A: 10_000, B: 20_000 },
      ownCosts: rates,
    },
  );
  const totals = computeTotals(items.map((i) => i.effective));

  it('the xlsx totals row: own_costs summed, own_cost_price a ratio of the totals, no mismatch', () => {
    const out = exportTotals({ items, totals });
    expect(out.mismatches).toEqual([]);
    expect(out.totals.own_costs).toBe(3 * 1_250 + 2 * 4_000);
    expect(out.totals.own_cost_price).toBe(Math.round(11_750 / 5));
  });

  it('the legacy summary recomputes ROI on cost price and own costs', () => {
    const t = summaryTotals([
      { report_number: '1', seller: null, period_from: null, period_to: null, rows: 1, totals },
    ]);
    expect(t.own_costs).toBe(11_750);
    expect(t.roi).toBe(totals.roi);
    // profit / (cost_total + own_costs)
    expect(t.roi).toBe(Math.round((totals.profit! / (70_000 + 11_750)) * 10_000) / 100);
  });
});
