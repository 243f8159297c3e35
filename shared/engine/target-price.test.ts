import { describe, expect, it } from 'vitest';
import { marginAtPrice, priceForMargin, unitEconomicsOf, type UnitEconomics } from './target-price';

// A worked example, by hand: WB's commission 20 %, acquiring 2 %, USN 6 % — 28 % of the price; logistics
// 80 ₽, ads 20 ₽ and cost price 300 ₽ per unit — 400 ₽ whatever the price.
const u: UnitEconomics = {
  commission_rate: 20,
  acquiring_rate: 2,
  tax_rate: 6,
  logistics_per_unit: 80,
  ads_per_unit: 20,
  cost_per_unit: 300,
};

describe('the price for a target margin', () => {
  it('20 % margin: 400 / (1 − 0,28 − 0,20) = 769,2307… → 769,24 ₽ (rounded up to the kopeck)', () => {
    expect(priceForMargin(u, 20)).toBe(769.24);
    // Back: 769,24 · 0,72 − 400 = 153,85 ₽ of profit, 20,00 %.
    expect(marginAtPrice(u, 769.24)).toEqual({ profit: 153.85, margin: 20 });
  });

  it('the margin at a typed price: 1 000 ₽ → 720 − 400 = 320 ₽, 32 %', () => {
    expect(marginAtPrice(u, 1000)).toEqual({ profit: 320, margin: 32 });
    expect(marginAtPrice(u, 400)).toEqual({ profit: -112, margin: -28 });
    expect(marginAtPrice(u, 0)).toEqual({ profit: -400, margin: null });
  });

  it('a margin WB and the taxes leave no room for (72 % and up here) has no price', () => {
    expect(priceForMargin(u, 72)).toBeNull();
    expect(priceForMargin(u, 71)).toBe(40_000);
    expect(priceForMargin(u, 0)).toBe(555.56);
  });

  it('takes an article’s per-unit economics from its report (kopecks in, roubles and % out)', () => {
    const v = {
      realization: 100_000,
      net_qty: 2,
      commission: 20_000,
      acquiring: 2_000,
      logistics: 12_000,
      reverse_logistics: 4_000,
      ads: 4_000,
      vat: 0,
      usn: 6_000,
      cost_price: 25_000,
      own_cost_price: 5_000,
    };
    expect(unitEconomicsOf(v)).toEqual(u);
    expect(unitEconomicsOf({ ...v, net_qty: 0 })).toBeNull();
    expect(unitEconomicsOf({ ...v, realization: 0 })).toBeNull();
  });
});
