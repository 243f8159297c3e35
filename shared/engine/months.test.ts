import { describe, expect, it } from 'vitest';
import { amountBySize, inMonth, monthTitle, sinceMonth, untilMonth } from './months';
import { thresholdStatus } from './tax-thresholds';

const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('month names in the right case', () => {
  it('«с мая 2026 по май 2026», «в мае 2026», «Май 2026»', () => {
    expect(`${sinceMonth('2026-05')} ${untilMonth('2026-05')}`).toBe('с мая 2026 по май 2026');
    expect(`${sinceMonth('2026-01')} ${untilMonth('2026-12')}`).toBe('с января 2026 по декабрь 2026');
    expect(sinceMonth('2026-03')).toBe('с марта 2026');
    expect(inMonth('2026-05')).toBe('в мае 2026');
    expect(inMonth('2026-08')).toBe('в августе 2026');
    expect(monthTitle('2026-05')).toBe('Май 2026');
  });
});

describe('money by size', () => {
  it('whole roubles below a million, millions with one decimal from a million on', () => {
    expect(plain(amountBySize(822_000))).toBe('8 220 ₽');
    expect(plain(amountBySize(822_050))).toBe('8 221 ₽');
    expect(plain(amountBySize(99_999_949))).toBe('999 999 ₽');
    expect(amountBySize(100_000_000)).toBe('1 млн ₽');
    expect(amountBySize(123_456_789)).toBe('1,2 млн ₽');
    expect(amountBySize(2_000_000_000)).toBe('20 млн ₽');
    expect(amountBySize(0)).toBe('0 ₽');
    expect(plain(amountBySize(-1_500_000))).toBe('-15 000 ₽');
  });

  it('the VAT banner says «Доход 2026 года 8 220 ₽», not «0 млн ₽»', () => {
    const income = new Map([['2026-05', 822_000]]);
    const s = thresholdStatus(income, 2026, '2026-05')!;
    expect(plain(s.message)).toContain('Доход 2026 года 8 220 ₽ — ');
    expect(s.message).toContain('порога освобождения от НДС 20 млн ₽');
  });
});
