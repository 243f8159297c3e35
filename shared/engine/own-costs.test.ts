import { describe, expect, it } from 'vitest';
import { buildItems } from './build';
import { combineItems } from './combine';
import { deriveValues } from './derive';
import { zeroAggregates } from './fields';
import { ownCostPerUnit, ownCostRates, type OwnCostLine } from './own-costs';
import { computeTotals } from './totals';
import type { AggregateValues, TaxProfile } from './types';

const agg = (over: Partial<AggregateValues>): AggregateValues => ({ ...zeroAggregates(), ...over });
const USN6: TaxProfile = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 };
const USN15: TaxProfile = { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 };

const LINES: OwnCostLine[] = [
  // default «Упаковка»: 10 ₽ until March, 12,50 ₽ from 2026-03-01
  {
    article: null,
    name: 'Упаковка',
    amounts: [
      { valid_from: null, amount: 1_000 },
      { valid_from: '2026-03-01', amount: 1_250 },
    ],
  },
  { article: null, name: 'Фулфилмент', amounts: [{ valid_from: null, amount: 3_000 }] },
  // A-1 packs in a bigger box; B-2 needs no fulfilment (0 switches the default off)
  { article: 'A-1', name: 'Упаковка', amounts: [{ valid_from: '2026-02-01', amount: 4_000 }] },
  { article: 'B-2', name: 'Фулфилмент', amounts: [{ valid_from: null, amount: 0 }] },
  { article: 'C-3', name: 'Маркировка', amounts: [{ valid_from: null, amount: 500 }] },
];

describe('ownCostRates: defaults, article lines and dates', () => {
  it('an article line replaces the default of its name; the other defaults still apply', () => {
    const r = ownCostRates(LINES, '2026-02-15');
    expect(r.fallback).toBe(1_000 + 3_000);
    expect(r.byArticle).toEqual({
      'A-1': 4_000 + 3_000,
      'B-2': 1_000 + 0,
      'C-3': 1_000 + 3_000 + 500,
    });
    expect(ownCostPerUnit(r, 'A-1')).toBe(7_000);
    expect(ownCostPerUnit(r, 'Z-9')).toBe(4_000);
    // the rows without an article get none
    expect(ownCostPerUnit(r, '')).toBe(0);
  });

  it('each line takes the amount in force on the day, as a cost price does (before its first period: the first one)', () => {
    expect(ownCostRates(LINES, '2026-03-01').fallback).toBe(1_250 + 3_000);
    expect(ownCostRates(LINES, '2026-02-28').fallback).toBe(1_000 + 3_000);
    // A-1's own line starts 2026-02-01; on an earlier day the earliest known amount applies
    expect(ownCostRates(LINES, '2026-01-10').byArticle['A-1']).toBe(4_000 + 3_000);
    // a report without a period: today
    expect(ownCostRates(LINES, null, undefined, '2026-05-01').fallback).toBe(4_250);
  });

  it('limits the article lines to the report’s articles', () => {
    expect(Object.keys(ownCostRates(LINES, '2026-02-15', ['B-2', 'X']).byArticle)).toEqual(['B-2']);
  });

  it('no lines: nothing', () => {
    expect(ownCostRates([], '2026-02-15')).toEqual({ byArticle: {}, fallback: 0 });
    expect(ownCostPerUnit(undefined, 'A-1')).toBe(0);
  });
});

describe('own_costs in the derived values', () => {
  const a = agg({
    sales_qty: 10,
    returns_qty: 2,
    realization: 1_000_000,
    for_pay: 800_000,
    logistics: 60_000,
  });

  it('per unit × net units enter expenses, profit, margin and ROI; the payout does not move', () => {
    const without = deriveValues(a, 30_000, USN6, {});
    const v = deriveValues(a, 30_000, USN6, {}, 0, 7_050);
    expect(v.own_cost_price).toBe(7_050);
    expect(v.own_costs).toBe(7_050 * 8);
    expect(v.expenses).toBe(without.expenses! + 56_400);
    // usn_income: the tax does not depend on expenses
    expect(v.usn).toBe(without.usn);
    expect(v.profit).toBe(without.profit! - 56_400);
    // 1 000 000 − 60 000 (USN 6 %) − (200 000 + 60 000 + 240 000 + 56 400) = 383 600
    expect(v.profit).toBe(383_600);
    expect(v.margin).toBe(38.36);
    // ROI on what the units cost: 383 600 / (240 000 + 56 400) = 129.42 %
    expect(v.roi).toBe(129.42);
    expect(v.payout).toBe(without.payout);
    expect(v.payout).toBe(800_000 - 60_000);
  });

  it('«доходы минус расходы»: own costs lower the tax base', () => {
    const without = deriveValues(a, 30_000, USN15, {});
    const v = deriveValues(a, 30_000, USN15, {}, 0, 7_050);
    expect(v.usn).toBe(without.usn! - Math.round(56_400 * 0.15));
  });

  it('a manual own_cost_price wins and the total follows it', () => {
    const v = deriveValues(a, 30_000, USN6, { own_cost_price: 10_000 }, 0, 7_050);
    expect(v.own_cost_price).toBe(10_000);
    expect(v.own_costs).toBe(80_000);
  });

  it('buildItems: defaults vs article lines, none for «Без артикула»; totals and a combine sum them', () => {
    const rates = ownCostRates(LINES, '2026-03-10');
    const built = buildItems(
      {
        articles: [
          {
            article: 'A-1',
            category: '',
            nm_id: '1',
            brand: '',
            aggregates: agg({ sales_qty: 3, realization: 300_000 }),
          },
          {
            article: 'Z-9',
            category: '',
            nm_id: '2',
            brand: '',
            aggregates: agg({ sales_qty: 5, returns_qty: 1, realization: 400_000 }),
          },
          { article: '', category: '', nm_id: '', brand: '', aggregates: agg({ sales_qty: 1, storage: 5_000 }) },
        ],
      },
      { tax: USN6, costPrices: {}, ownCosts: rates, allocation: 'none' },
    );
    const [a1, z9, none] = built.items.map((i) => i.computed);
    expect(a1!.own_costs).toBe(3 * (4_000 + 3_000));
    expect(z9!.own_costs).toBe(4 * (1_250 + 3_000));
    expect(none!.own_costs).toBe(0);
    const totals = computeTotals(built.items.map((i) => i.effective));
    expect(totals.own_costs).toBe(21_000 + 17_000);
    expect(totals.own_cost_price).toBe(Math.round(38_000 / 8));
    const combined = combineItems([built.items, built.items]);
    expect(combined.find((i) => i.article === 'A-1')!.computed.own_costs).toBe(42_000);
    expect(combined.find((i) => i.article === 'A-1')!.computed.own_cost_price).toBe(7_000);
  });
});
