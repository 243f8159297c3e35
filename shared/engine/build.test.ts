import { describe, expect, it } from 'vitest';
import { applyManualValue, buildItems, FieldNotCorrectableError, InvalidManualValueError, rederiveItem } from './build';
import { zeroAggregates } from './fields';
import type { AggregateValues, ParsedReport, ReportSettings } from './types';

const zero = (): AggregateValues => zeroAggregates();

const parsed: Pick<ParsedReport, 'articles'> = {
  articles: [
    {
      article: 'A',
      category: 'Футболки',
      nm_id: '1',
      brand: 'B',
      // 5 sold, 1 returned; realization 5 000.00, for_pay 4 000.00
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
      },
    },
    { article: '', category: '', nm_id: '', brand: '', aggregates: { ...zero(), storage: 30_000 } },
  ],
};
const settings: ReportSettings = {
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  costPrices: { A: 50_000, Z: 1 },
  // These tests are about prices and corrections; allocation has its own tests (allocation.test.ts).
  allocation: 'none',
};

describe('buildItems', () => {
  it('computes with the snapshot cost price (0 when the catalog lacks the article)', () => {
    const { items, dropped } = buildItems(parsed, settings);
    expect(dropped).toEqual([]);
    const [a, none] = items;
    expect(a).toMatchObject({ article: 'A', category: 'Футболки', nm_id: '1', brand: 'B', manual_values: {} });
    // cost 4 · 500.00; expenses = 1 000 + 200 + 2 000 = 3 200.00; usn 300.00; profit = 5 000 − 300 − 3 200
    expect(a!.computed).toMatchObject({
      cost_price: 50_000,
      net_qty: 4,
      cost_total: 200_000,
      expenses: 320_000,
      usn: 30_000,
      profit: 150_000,
      margin: 30,
      roi: 75,
    });
    expect(a!.effective).toEqual(a!.computed);
    expect(none!.computed).toMatchObject({ cost_price: 0, profit: -30_000, payout: -30_000, margin: null, roi: null });
  });

  it('applies manual values by article and drops those whose article is gone', () => {
    const { items, dropped } = buildItems(parsed, settings, {
      A: { logistics: 0, profit: 100_000 },
      GONE: { realization: 5 },
    });
    const a = items[0]!;
    expect(a.manual_values).toEqual({ logistics: 0, profit: 100_000 });
    expect(a.computed.logistics).toBe(20_000);
    expect(a.effective.logistics).toBe(0);
    expect(a.effective.payout).toBe(400_000);
    expect(a.computed.payout).toBe(380_000);
    expect(a.effective.profit).toBe(100_000);
    expect(a.effective.margin).toBe(20);
    expect(dropped).toEqual([{ article: 'GONE', field: 'realization', value: 5 }]);
  });

  it('a stored manual value on a field that no longer accepts one is dropped, not applied', () => {
    const { items, dropped } = buildItems(parsed, settings, { A: { payout: 1 } as never });
    expect(items[0]!.manual_values).toEqual({});
    expect(dropped).toEqual([{ article: 'A', field: 'payout', value: 1 }]);
  });
});

describe('applyManualValue', () => {
  const item = buildItems(parsed, settings).items[0]!;

  it('sets a value, re-derives effective values, leaves computed alone', () => {
    const next = applyManualValue(item, 'realization', 600_000, settings.tax);
    expect(next.manual_values).toEqual({ realization: 600_000 });
    expect(next.computed).toEqual(item.computed);
    // income 6 000; usn 360; expenses 2 000 + 200 + 2 000 = 4 200; profit 1 440
    expect(next.effective).toMatchObject({
      realization: 600_000,
      wb_discount: 0,
      usn: 36_000,
      expenses: 420_000,
      profit: 144_000,
      margin: 24,
    });
    expect(item.manual_values).toEqual({});
  });

  it('uses the snapshot cost price from computed.cost_price', () => {
    const next = applyManualValue(item, 'returns_qty', 0, settings.tax);
    expect(next.effective.cost_total).toBe(250_000);
  });

  it('null removes a correction', () => {
    const set = applyManualValue(item, 'vat', 1_000, settings.tax);
    const cleared = applyManualValue(set, 'vat', null, settings.tax);
    expect(cleared.manual_values).toEqual({});
    expect(cleared.effective).toEqual(item.computed);
  });

  it('rounds to the unit of the field', () => {
    expect(applyManualValue(item, 'storage', 10.5, settings.tax).manual_values).toEqual({ storage: 11 });
    expect(applyManualValue(item, 'margin', 12.345, settings.tax).effective.margin).toBe(12.35);
  });

  it('rejects fields that take no manual value and non-numbers', () => {
    for (const f of ['payout', 'wb_discount', 'net_qty', 'roi', 'nonsense']) {
      expect(() => applyManualValue(item, f, 1, settings.tax)).toThrow(FieldNotCorrectableError);
    }
    expect(() => applyManualValue(item, 'profit', Number.NaN, settings.tax)).toThrow(InvalidManualValueError);
  });
});

describe('rederiveItem', () => {
  it('re-derives under a new tax profile and keeps the corrections', () => {
    const set = applyManualValue(buildItems(parsed, settings).items[0]!, 'logistics', 0, settings.tax);
    const next = rederiveItem(set, { tax_system: 'none', usn_rate: 0, vat_rate: 0 });
    expect(next.computed.usn).toBe(0);
    expect(next.computed.profit).toBe(180_000);
    expect(next.effective.profit).toBe(200_000);
    expect(next.manual_values).toEqual({ logistics: 0 });
  });
});

describe('missing cost prices', () => {
  const sold = (article: string, realization: number, sales_qty: number) => ({
    article,
    category: '',
    nm_id: '',
    brand: '',
    aggregates: { ...zero(), realization, sales_qty, for_pay: realization },
  });
  const report = {
    articles: [
      sold('PRICED', 600_000, 3),
      sold('NO-PRICE-1', 300_000, 2),
      sold('NO-PRICE-2', 100_000, 1),
      sold('RETURNS-ONLY', -50_000, 0),
      { ...sold('', 0, 0), aggregates: { ...zero(), storage: 10_000 } },
    ],
  };

  it('counts the articles that sold without a price, and their share of realization', () => {
    const { warnings } = buildItems(report, { tax: settings.tax, costPrices: { PRICED: 10_000 } });
    expect(warnings.find((w) => w.code === 'missing_cost_price')).toEqual({
      code: 'missing_cost_price',
      message: expect.stringContaining('2 артикулов') as unknown as string,
      // 4 000 of 9 500 realization
      details: {
        articles: 2,
        realization_share: 42.11,
        realization: 400_000,
        sample_articles: ['NO-PRICE-1', 'NO-PRICE-2'],
      },
    });
  });

  it('a price of 0 that is set counts as set; none missing → no warning', () => {
    const { warnings } = buildItems(report, {
      tax: settings.tax,
      costPrices: { PRICED: 1, 'NO-PRICE-1': 0, 'NO-PRICE-2': 5 },
    });
    expect(warnings.filter((w) => w.code === 'missing_cost_price')).toEqual([]);
  });

  it('USN «доходы минус расходы» says where the minimum tax is an estimate', () => {
    const { warnings } = buildItems(report, {
      tax: { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 },
      costPrices: { PRICED: 500_000 },
    });
    expect(warnings.find((w) => w.code === 'usn_minimum_tax')?.details).toEqual({ articles: 1, estimate: true });
  });
});
