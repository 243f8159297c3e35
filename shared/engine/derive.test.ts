import { describe, expect, it } from 'vitest';
import { deriveValues, percentOf, usnMinimumApplies } from './derive';
import { nullReason, nullReasons, nullReasonText } from './fields';
import type { AggregateValues, TaxProfile } from './types';

/**
 * One item, kopecks. Hand-worked values for each tax profile are in the tests below. The rebill and the
 * loyalty discount compensation are for reference: neither an expense nor a payout line.
 */
const AGG: AggregateValues = {
  sales_qty: 10,
  returns_qty: 2,
  seller_price: 1_200_000,
  sales_seller_price: 1_440_000,
  wb_discount: 200_000,
  realization: 1_000_000,
  commission: 150_000,
  acquiring: 20_000,
  acquiring_billed: 5_000,
  attorney_services: 30_000,
  for_pay: 800_000,
  compensations: 50_000,
  additional_payments: 10_000,
  loyalty: 5_000,
  loyalty_discount: 3_000,
  logistics: 60_000,
  reverse_logistics: 10_000,
  rebill_logistics: 7_000,
  storage: 20_000,
  acceptance: 3_000,
  penalties: 2_000,
  deductions: 4_000,
  ads: 30_000,
  loans: 100_000,
  category_commission_percent: 25,
};
const COST = 30_000;
const USN6: TaxProfile = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 };
const zero = Object.fromEntries(Object.keys(AGG).map((k) => [k, 0])) as AggregateValues;

describe('deriveValues: computed inputs', () => {
  it('usn_income 6 %, no VAT: every derived field', () => {
    const v = deriveValues(AGG, COST, USN6, {});
    expect(v).toMatchObject({
      ...AGG,
      cost_price: 30_000,
      net_qty: 8,
      avg_seller_price: 144_000,
      income: 1_050_000,
      vat: 0,
      cost_total: 240_000,
      // (1 000 000 − 800 000) + 5 000 (acquiring billed) + 60 000 + 10 000 + 20 000 + 3 000 + 2 000 + 4 000 + 30 000 − 5 000 + 240 000
      expenses: 569_000,
      usn: 63_000,
      profit: 428_000,
      margin: 42.8,
      roi: 178.33,
      // 800 000 + 50 000 + 10 000 + 5 000 − (60 000 + 10 000 + 20 000 + 3 000 + 2 000 + 4 000 + 30 000 + 100 000)
      payout: 636_000,
    });
  });

  it.each([
    // income · rate / (100 + rate), then USN 6 % on income − VAT
    [5, 50_000, 60_000, 381_000],
    [7, 68_692, 58_878, 363_430], // 68 691.59 → 68 692; 981 308 · 6 % = 58 878.48 → 58 878
    [10, 95_455, 57_273, 338_272], // 95 454.55 → 95 455; 954 545 · 6 % = 57 272.7 → 57 273
    [22, 189_344, 51_639, 250_017], // 189 344.26 → 189 344; 860 656 · 6 % = 51 639.36 → 51 639
  ])('VAT %d %%: vat %d, usn %d, profit %d', (vatRate, vat, usn, profit) => {
    const v = deriveValues(AGG, COST, { tax_system: 'usn_income', usn_rate: 6, vat_rate: vatRate }, {});
    expect([v.vat, v.usn, v.profit]).toEqual([vat, usn, profit]);
  });

  it('usn_income_expenses 15 %: on income − VAT − expenses', () => {
    const v = deriveValues(AGG, COST, { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 }, {});
    // (1 050 000 − 569 000) · 15 % = 72 150
    expect(v.usn).toBe(72_150);
    expect(v.profit).toBe(418_850);
    expect(v.margin).toBe(41.89); // 41.885 → half away
  });

  it('usn_income_expenses is the minimum tax (1 % of income) when expenses exceed income', () => {
    const v = deriveValues(AGG, 200_000, { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 }, {});
    expect(v.cost_total).toBe(1_600_000);
    expect(v.expenses).toBe(1_929_000);
    // max(15 % · max(0, 1 050 000 − 1 929 000), 1 % · 1 050 000) = 10 500
    expect(v.usn).toBe(10_500);
    expect(v.profit).toBe(-879_500);
    expect(v.margin).toBe(-87.95);
    expect(v.roi).toBe(-54.97);
    expect(usnMinimumApplies({ tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 }, v)).toBe(true);
  });

  it('usn_income_expenses: max(rate × (income − expenses), 1 % × income) picks the larger', () => {
    const tax = { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 } as const;
    // (1 050 000 − 569 000) · 15 % = 72 150 > 10 500
    const v = deriveValues(AGG, COST, tax, {});
    expect(v.usn).toBe(72_150);
    expect(usnMinimumApplies(tax, v)).toBe(false);
  });

  it('allocated expenses lower profit, margin and ROI but not the tax base', () => {
    const base = deriveValues(AGG, COST, { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }, {});
    const v = deriveValues(AGG, COST, { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }, {}, 12_345);
    expect(v.allocated_expenses).toBe(12_345);
    expect(v.usn).toBe(base.usn);
    expect(v.expenses).toBe(base.expenses);
    expect(v.profit).toBe((base.profit ?? 0) - 12_345);
    expect(v.margin).toBe(percentOf(v.profit ?? 0, v.realization ?? 0));
    expect(v.roi).toBe(percentOf(v.profit ?? 0, v.cost_total ?? 0));
  });

  it('tax system none: no income tax', () => {
    const v = deriveValues(AGG, COST, { tax_system: 'none', usn_rate: 6, vat_rate: 0 }, {});
    expect(v.usn).toBe(0);
    expect(v.profit).toBe(491_000);
  });

  it('a fractional regional rate stays exact', () => {
    const v = deriveValues(AGG, COST, { tax_system: 'usn_income', usn_rate: 4.5, vat_rate: 0 }, {});
    expect(v.usn).toBe(47_250);
  });

  it('rounds half away from zero once per value', () => {
    expect(deriveValues({ ...zero, realization: 25 }, 0, USN6, {}).usn).toBe(2); // 1.5
    expect(deriveValues({ ...zero, realization: -25 }, 0, USN6, {}).usn).toBe(-2); // −1.5
    expect(deriveValues({ ...zero, realization: 24 }, 0, USN6, {}).usn).toBe(1); // 1.44
  });

  it('ROI without a cost price is null with its reason, even with own per-unit costs', () => {
    const v = deriveValues(AGG, 0, USN6, {}, 0, 5_000);
    expect(v.own_costs).toBe(40_000);
    expect(v.roi).toBeNull();
    expect(nullReasonText('roi', v)).toContain('Нет себестоимости');
    expect(nullReasonText('roi', deriveValues(AGG, COST, USN6, {}))).toBeNull();
  });

  it('margin without a cost price is null with its reason; with one it is profit / realization', () => {
    const without = deriveValues(AGG, 0, USN6, {}, 0, 5_000);
    expect(without.realization).toBeGreaterThan(0);
    expect(without.margin).toBeNull();
    expect(nullReason('margin', without)).toBe('no_cost_price');
    expect(nullReasonText('margin', without)).toBe('Нет себестоимости: маржа не считается — укажите её в каталоге');
    expect(nullReasons(without)).toEqual({ margin: 'no_cost_price', roi: 'no_cost_price' });
    const priced = deriveValues(AGG, COST, USN6, {});
    expect(priced.margin).toBe(percentOf(priced.profit!, priced.realization!));
    expect(nullReasons(priced)).toEqual({});
    // A manual margin wins, a manual cost price brings it back.
    expect(deriveValues(AGG, 0, USN6, { margin: 12.5 }).margin).toBe(12.5);
    expect(deriveValues(AGG, 0, USN6, { cost_price: COST }).margin).toBe(priced.margin);
    // Without realization the reason says so; a priced article that sold none back has no ROI.
    const returned = deriveValues({ ...zero, returns_qty: 1, realization: -1000 }, COST, USN6, {});
    expect(nullReasons(returned)).toEqual({ margin: 'no_realization', roi: 'no_net_sales' });
  });

  it('null where undefined: average price without sales, margin without realization, ROI without cost', () => {
    const v = deriveValues({ ...zero, returns_qty: 1, realization: -1000, for_pay: -800 }, 0, USN6, {});
    expect(v.avg_seller_price).toBeNull();
    expect(v.margin).toBeNull();
    expect(v.roi).toBeNull();
    expect(v.net_qty).toBe(-1);
  });
});

describe('deriveValues: manual values', () => {
  it('a corrected aggregate feeds every later field; wb_discount follows it', () => {
    const v = deriveValues(AGG, COST, USN6, { realization: 1_100_000 });
    expect(v.realization).toBe(1_100_000);
    expect(v.wb_discount).toBe(100_000);
    expect(v.income).toBe(1_150_000);
    expect(v.expenses).toBe(669_000);
    expect(v.usn).toBe(69_000);
    expect(v.profit).toBe(422_000);
    expect(v.margin).toBe(38.36);
  });

  it('corrected sales_qty changes net_qty, average price and cost', () => {
    const v = deriveValues(AGG, COST, USN6, { sales_qty: 12 });
    expect([v.net_qty, v.avg_seller_price, v.cost_total, v.profit]).toEqual([10, 120_000, 300_000, 368_000]);
  });

  it('manual cost_price wins over the snapshot', () => {
    const v = deriveValues(AGG, COST, USN6, { cost_price: 50_000 });
    expect([v.cost_price, v.cost_total, v.expenses, v.profit, v.roi]).toEqual([50_000, 400_000, 729_000, 268_000, 67]);
  });

  it('manual vat is used by usn and profit', () => {
    const v = deriveValues(AGG, COST, USN6, { vat: 10_000 });
    expect([v.vat, v.usn, v.profit]).toEqual([10_000, 62_400, 418_600]);
  });

  it('manual usn is used by profit', () => {
    const v = deriveValues(AGG, COST, USN6, { usn: 0 });
    expect([v.usn, v.profit, v.margin]).toEqual([0, 491_000, 49.1]);
  });

  it('manual profit is used by margin and roi', () => {
    const v = deriveValues(AGG, COST, USN6, { profit: 500_000 });
    expect([v.profit, v.margin, v.roi]).toEqual([500_000, 50, 208.33]);
  });

  it('manual margin is shown as set; profit and roi stay computed', () => {
    const v = deriveValues(AGG, COST, USN6, { margin: 10 });
    expect([v.margin, v.profit, v.roi]).toEqual([10, 428_000, 178.33]);
  });

  it('manual costs move payout and profit together', () => {
    const v = deriveValues(AGG, COST, USN6, { logistics: 0, ads: 0 });
    expect(v.payout).toBe(636_000 + 90_000);
    expect(v.profit).toBe(428_000 + 90_000);
  });
});
