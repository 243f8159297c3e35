import { describe, expect, it } from 'vitest';
import {
  millions,
  nextMonth,
  proposeTaxPeriods,
  TAX_THRESHOLDS,
  thresholdStatus,
  thresholdsOf,
  WARNING_SHARE,
} from './tax-thresholds';

const M = 100_000_000;
const months = (year: number, perMonth: number[]): Map<string, number> =>
  new Map(perMonth.map((v, i) => [`${year}-${String(i + 1).padStart(2, '0')}`, v]));

describe('the thresholds as data', () => {
  it('the exemption steps and the bands of 2025 and 2026', () => {
    expect(thresholdsOf(2025)).toMatchObject({ exemption: 60 * M, rate5: 250 * M, rate7: 450 * M });
    expect(thresholdsOf(2026)).toMatchObject({ exemption: 20 * M, rate5: 272.5 * M, rate7: 490.5 * M });
    expect(thresholdsOf(2027)!.exemption).toBe(15 * M);
    expect(thresholdsOf(2028)!.exemption).toBe(10 * M);
    expect(thresholdsOf(2030)!.exemption).toBe(10 * M);
    expect(thresholdsOf(2024)).toBeNull();
    for (const t of TAX_THRESHOLDS) expect(t.source).toMatch(/НК РФ/);
  });
  it('writes millions of roubles', () => {
    expect(millions(20 * M)).toBe('20 млн ₽');
    expect(millions(272.5 * M)).toBe('272,5 млн ₽');
    expect(millions(250_895_786)).toBe('2,5 млн ₽');
  });
  it('next month wraps the year', () => {
    expect(nextMonth('2026-12')).toBe('2027-01');
    expect(nextMonth('2026-03')).toBe('2026-04');
  });
});

describe('thresholdStatus', () => {
  it('below the warning share', () => {
    const s = thresholdStatus(months(2026, [5 * M, 5 * M]), 2026, '2026-02')!;
    expect(s.level).toBe('below');
    expect(s.share).toBe(50);
    expect(s.vat_from).toBeNull();
    expect(s.vat_rate).toBe(0);
  });
  it(`approaching from ${WARNING_SHARE} %`, () => {
    const s = thresholdStatus(months(2026, [8 * M, 8 * M]), 2026, '2026-02')!;
    expect(s.level).toBe('approaching');
    expect(s.share).toBe(80);
    expect(s.message).toContain('80 % порога');
    expect(s.message).toContain('16 млн ₽');
    expect(s.message).toContain('20 млн ₽');
  });
  it('crossing 20 M ₽ in March 2026: VAT 5 % from April 1st', () => {
    const s = thresholdStatus(months(2026, [8 * M, 8 * M, 4 * M + 1, 3 * M]), 2026, '2026-04')!;
    expect(s.level).toBe('crossed');
    expect(s.vat_from).toEqual({ month: '2026-03', from: '2026-04-01' });
    expect(s.vat_rate).toBe(5);
    expect(s.message).toContain('марте 2026');
    expect(s.message).toContain('01.04.2026');
    // Exactly 20 M ₽ is not above the threshold.
    expect(thresholdStatus(months(2026, [20 * M]), 2026, '2026-01')!.vat_from).toBeNull();
  });
  it('the same income in 2025 stays under the 60 M ₽ threshold', () => {
    const s = thresholdStatus(months(2025, [8 * M, 8 * M, 4 * M + 1, 3 * M]), 2025, '2025-04')!;
    expect(s.level).toBe('below');
  });
  it('counts only the months up to as_of', () => {
    const s = thresholdStatus(months(2026, [8 * M, 8 * M, 8 * M]), 2026, '2026-02')!;
    expect(s.income).toBe(16 * M);
  });
  it('the previous year above the threshold: no exemption from January 1st', () => {
    const income = new Map([...months(2025, [25 * M]), ...months(2026, [1 * M])]);
    const s = thresholdStatus(income, 2026, '2026-01', true)!;
    expect(s.previous_year_over).toBe(true);
    expect(s.vat_from).toEqual({ month: '2025-12', from: '2026-01-01' });
  });
  it('7 % above the first band, USN lost above the second', () => {
    const s = thresholdStatus(months(2026, [100 * M, 100 * M, 100 * M]), 2026, '2026-03')!;
    expect(s.rate7_from).toEqual({ month: '2026-03', from: '2026-04-01' });
    expect(s.vat_rate).toBe(7);
    const lost = thresholdStatus(months(2026, [300 * M, 300 * M]), 2026, '2026-02')!;
    expect(lost.usn_lost_from).toEqual({ month: '2026-02', from: '2026-03-01' });
  });
});

describe('proposeTaxPeriods', () => {
  const usn = { tax_system: 'usn_income' as const, usn_rate: 6 };
  it('proposes 5 % from the month after the crossing, unless VAT is already set', () => {
    const s = thresholdStatus(months(2026, [15 * M, 6 * M]), 2026, '2026-02')!;
    expect(proposeTaxPeriods(s, usn, () => 0)).toEqual([
      { valid_from: '2026-03-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
    ]);
    expect(proposeTaxPeriods(s, usn, () => 5)).toEqual([]);
  });
  it('5 % then 7 %', () => {
    const s = thresholdStatus(months(2026, [21 * M, 100 * M, 200 * M]), 2026, '2026-03')!;
    expect(proposeTaxPeriods(s, usn, () => 0)).toEqual([
      { valid_from: '2026-02-01', ...usn, vat_rate: 5 },
      { valid_from: '2026-04-01', ...usn, vat_rate: 7 },
    ]);
  });
  it('nothing below the threshold', () => {
    const s = thresholdStatus(months(2026, [1 * M]), 2026, '2026-01')!;
    expect(proposeTaxPeriods(s, usn, () => 0)).toEqual([]);
  });
});
