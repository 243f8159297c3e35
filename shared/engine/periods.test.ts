import { describe, expect, it } from 'vitest';
import { buildItems } from './build';
import {
  applicableVatRate,
  costPriceOn,
  invalidVatPeriods,
  isIsoDate,
  periodInForce,
  periodMiddle,
  resolveTax,
  vatRateValidOn,
  type TaxPeriod,
} from './periods';
import { DEFAULT_TAX_PROFILE } from './types';

/** A seller's history as a 2026 user would enter it. */
const history: TaxPeriod[] = [
  { valid_from: '2026-01-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
  { valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  { valid_from: '2025-01-01', tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 },
];

describe('periods', () => {
  it('dates and the middle of a period', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2023-02-29')).toBe(false);
    expect(isIsoDate('2024-2-1')).toBe(false);
    expect(periodMiddle('2021-05-03', '2021-05-09')).toBe('2021-05-06');
    expect(periodMiddle('2025-12-29', '2026-01-04')).toBe('2026-01-01');
    expect(periodMiddle('2025-12-28', '2026-01-03')).toBe('2025-12-31');
    expect(periodMiddle(null, '2026-01-04')).toBe('2026-01-04');
    expect(periodMiddle(null, null)).toBeNull();
  });

  it('the period in force: the last one started on or before the date; the first one before any starts', () => {
    expect(periodInForce(history, '2021-05-06')?.valid_from).toBeNull();
    expect(periodInForce(history, '2025-01-01')?.valid_from).toBe('2025-01-01');
    expect(periodInForce(history, '2026-03-01')?.valid_from).toBe('2026-01-01');
    expect(periodInForce(history.slice(0, 1), '2021-05-06')?.valid_from).toBe('2026-01-01');
    expect(periodInForce([], '2021-05-06')).toBeNull();
    // No report date: the one in force today.
    expect(periodInForce(history, null, '2025-06-01')?.valid_from).toBe('2025-01-01');
  });

  it('a 2021 report under a 2026 profile history gets the 2021 rules', () => {
    const r = resolveTax(history, '2021-05-06', DEFAULT_TAX_PROFILE);
    expect(r.profile).toEqual({ tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 });
    expect(r.vat_adjusted).toBeUndefined();
    expect(resolveTax(history, '2025-06-15', DEFAULT_TAX_PROFILE).profile).toEqual({
      tax_system: 'usn_income_expenses',
      usn_rate: 15,
      vat_rate: 0,
    });
    expect(resolveTax(history, '2026-02-12', DEFAULT_TAX_PROFILE).profile.vat_rate).toBe(5);
  });

  it('VAT rates by date: 5 and 7 from 2025, 22 from 2026, 20 before 2026, 10 and 0 always', () => {
    expect([5, 7].map((r) => vatRateValidOn(r, '2024-12-31'))).toEqual([false, false]);
    expect([5, 7].map((r) => vatRateValidOn(r, '2025-01-01'))).toEqual([true, true]);
    expect([vatRateValidOn(22, '2025-12-31'), vatRateValidOn(22, '2026-01-01')]).toEqual([false, true]);
    expect([vatRateValidOn(20, '2025-12-31'), vatRateValidOn(20, '2026-01-01')]).toEqual([true, false]);
    expect([0, 10].every((r) => vatRateValidOn(r, '2019-01-01') && vatRateValidOn(r, '2030-01-01'))).toBe(true);
    expect(vatRateValidOn(18, '2018-01-01')).toBe(false);
  });

  it('a rate that does not exist on the report’s date is replaced by the rule, and says so', () => {
    expect(applicableVatRate(5, '2021-05-06')).toBe(0);
    expect(applicableVatRate(7, '2024-12-31')).toBe(0);
    expect(applicableVatRate(22, '2025-06-01')).toBe(20);
    expect(applicableVatRate(20, '2026-06-01')).toBe(22);
    expect(applicableVatRate(10, '2021-05-06')).toBe(10);
    const plain: TaxPeriod[] = [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 }];
    const r = resolveTax(plain, '2021-05-06', DEFAULT_TAX_PROFILE);
    expect(r.profile.vat_rate).toBe(0);
    expect(r.vat_adjusted).toEqual({ configured: 5, applied: 0 });
    // And the engine computes no VAT on that week.
    const { items } = buildItems(
      {
        articles: [{ article: 'A', category: '', nm_id: '', brand: '', aggregates: { realization: 10_000 } as never }],
      },
      { tax: r.profile, costPrices: {}, allocation: 'none' },
    );
    expect(items[0]!.computed.vat).toBe(0);
  });

  it('saving refuses a period whose VAT rate does not exist on its first day', () => {
    expect(
      invalidVatPeriods([
        { valid_from: '2024-06-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
        { valid_from: '2026-02-01', tax_system: 'none', usn_rate: 0, vat_rate: 20 },
        { valid_from: '2025-03-01', tax_system: 'none', usn_rate: 0, vat_rate: 22 },
        { valid_from: '2025-03-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 7 },
        { valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 22 },
      ]),
    ).toEqual([
      { valid_from: '2024-06-01', vat_rate: 5, valid_from_rate: '2025-01-01', valid_until_rate: null },
      { valid_from: '2026-02-01', vat_rate: 20, valid_from_rate: null, valid_until_rate: '2026-01-01' },
      { valid_from: '2025-03-01', vat_rate: 22, valid_from_rate: '2026-01-01', valid_until_rate: null },
    ]);
  });

  it('cost prices by date: the price in force on the middle of the report', () => {
    const prices = [
      { valid_from: null, cost_price: 10_000 },
      { valid_from: '2026-03-01', cost_price: 15_000 },
    ];
    expect(costPriceOn(prices, periodMiddle('2025-03-03', '2025-03-09'))).toBe(10_000);
    expect(costPriceOn(prices, periodMiddle('2026-02-23', '2026-03-08'))).toBe(15_000);
    expect(costPriceOn(prices, periodMiddle('2026-02-23', '2026-03-01'))).toBe(10_000);
    expect(costPriceOn([], '2026-03-01')).toBeNull();
  });
});
