import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildItems } from './build';
import { readReport } from './read-report';
import {
  marginAtPrice,
  priceAfterDiscount,
  priceBeforeDiscount,
  priceForMargin,
  unitEconomicsOf,
  unitEconomicsOfWeeks,
  type UnitEconomics,
  type WeekValues,
} from './target-price';

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

describe('unit economics over weeks (the real 2022 report)', () => {
  const FIXTURE = join(__dirname, '../../fixtures/wb-detail-2022-49col.xlsx');
  const ARTICLE = 'MFG1BUM001MFG1BUM001-w';
  let week: WeekValues;

  beforeAll(async () => {
    const parsed = await readReport({ path: FIXTURE });
    const built = buildItems(parsed, {
      tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
      costPrices: { [ARTICLE]: 70_000 },
      allocation: 'none',
    });
    week = built.items.find((i) => i.article === ARTICLE)!.effective;
  });

  it('the price for 20 % margin, by hand from the article’s rows', () => {
    // The article's rows: 64 units sold, no return; realization 102 960,05 ₽, seller's price 117 056,00 ₽
    // (WB's discount 14 095,95 ₽); commission 1 282,69, acquiring 1 008,66, attorney services 807,76,
    // logistics 308,80 + 33,00 back; USN 6 % = 6 177,60; cost price 700 ₽ · 64 = 44 800 ₽.
    const share = (1282.69 + 1008.66 + 6177.6) / 102960.05; // commission + acquiring + tax, of the price
    const fixed = (308.8 + 33 + 807.76 + 44800) / 64; // 717,961875 ₽ per unit whatever the price
    const byHand = fixed / (1 - share - 0.2); // 1 000,3017… ₽
    expect(byHand).toBeCloseTo(1000.3018, 4);

    const ue = unitEconomicsOfWeeks([week]);
    expect(ue.units).toBe(64);
    expect(ue.price).toBe(1608.75); // 102 960,05 / 64
    expect(ue.price_before_discount).toBe(1829); // 117 056,00 / 64
    expect(ue.discount_rate).toBe(12.04); // 14 095,95 / 117 056,00
    expect(ue.commission_rate).toBe(1.25);
    expect(ue.tax_rate).toBe(6);
    expect(ue.per_unit).toMatchObject({ cost_price: 700, logistics: 4.83, reverse_logistics: 0.52, other: 12.62 });
    // Profit: 102 960,05 − 1 282,69 − 1 008,66 − 807,76 − 308,80 − 33,00 − 6 177,60 − 44 800 = 48 541,54 ₽.
    expect(ue.per_unit!.profit).toBe(758.46); // 48 541,54 / 64
    expect(ue.margin).toBe(47.15);

    const u = ue.economics!;
    const price = priceForMargin(u, 20)!;
    expect(price).toBe(1000.31); // byHand rounded up to the kopeck
    expect(marginAtPrice(u, price).margin).toBe(20);
    // Before WB's discount: 1 000,31 / (1 − 14 095,95 / 117 056,00) = 1 137,25… → 1 137,26 ₽.
    expect(priceBeforeDiscount(u, price)).toBe(1137.26);
    expect(priceAfterDiscount(u, 1137.26)).toBe(1000.31);
    // At today's price the formula gives the report's own profit per unit.
    expect(marginAtPrice(u, 102960.05 / 64).profit).toBe(758.46);
  });

  it('round trip: margin(price(m)) = m', () => {
    const u = unitEconomicsOfWeeks([week]).economics!;
    for (const m of [-50, 0, 5, 12.5, 20, 33.33, 60, 85])
      expect(marginAtPrice(u, priceForMargin(u, m)!).margin).toBe(m);
    expect(priceForMargin(u, 92)).toBeNull(); // 100 − 8,23 % of WB and the tax
  });

  it('two weeks add up before dividing; the lines add up to the profit', () => {
    const w2: WeekValues = {
      ...week,
      sales_qty: 10,
      returns_qty: 2,
      net_qty: 8,
      realization: 1_300_000,
      seller_price: 1_500_000,
      wb_discount: 200_000,
      commission: 130_000,
      acquiring: 20_000,
      logistics: 40_000,
      reverse_logistics: 10_000,
      storage: 8_000,
      acceptance: 800,
      penalties: 50_000,
      deductions: 0,
      ads: 120_000,
      vat: 0,
      usn: 78_000,
      cost_total: 560_000,
      own_costs: 16_000,
      profit: 260_000,
    };
    const ue = unitEconomicsOfWeeks([week, w2]);
    expect(ue.units).toBe(72);
    expect(ue.sales_qty).toBe(74);
    expect(ue.return_rate).toBe(2.7); // 2 / 74
    // ДРР over both weeks: 1 200 / (102 960,05 + 13 000) · 100.
    expect(ue.drr).toBe(1.03);
    const p = ue.per_unit!;
    const lines =
      p.commission +
      p.acquiring +
      p.logistics +
      p.reverse_logistics +
      p.storage +
      p.acceptance +
      p.penalties +
      p.ads +
      p.vat +
      p.usn +
      p.cost_price +
      p.own_costs +
      p.other;
    expect(Math.abs(ue.price! - lines - p.profit)).toBeLessThanOrEqual(0.07); // each line rounded to the kopeck
    expect(p.penalties).toBe(6.94); // 500 / 72
    expect(unitEconomicsOfWeeks([{ ...w2, net_qty: 0 }]).economics).toBeNull();
  });
});
