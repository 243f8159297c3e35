import { describe, expect, it } from 'vitest';
import { kopecksToMoney, moneyToKopecks, numberText } from './money';

describe('WB money text', () => {
  it('reads decimal strings exactly', () => {
    expect(moneyToKopecks('1557.71')).toBe(155771);
    expect(moneyToKopecks('0.29')).toBe(29); // 0.29 * 100 = 28.999999999999996 as a float
    expect(moneyToKopecks('-12.5')).toBe(-1250);
    expect(moneyToKopecks('0')).toBe(0);
    expect(moneyToKopecks('-0.00')).toBe(0);
    expect(moneyToKopecks('+3')).toBe(300);
    expect(moneyToKopecks('123456789012.34')).toBe(12345678901234);
  });
  it('rounds beyond two decimals half away from zero', () => {
    expect(moneyToKopecks('1.005')).toBe(101);
    expect(moneyToKopecks('1.0049')).toBe(100);
    expect(moneyToKopecks('-1.005')).toBe(-101);
  });
  it('reads JSON numbers through their decimal text', () => {
    expect(moneyToKopecks(1557.71)).toBe(155771);
    expect(moneyToKopecks(0.1 + 0.2)).toBe(30);
    expect(numberText(1e-7)).toBe('0.0000001');
  });
  it('refuses what is not an amount', () => {
    for (const bad of ['', 'abc', '1,5', '1.2.3', '1e3', ' - 1'])
      expect(() => moneyToKopecks(bad)).toThrow(/not a money amount/);
  });
  it('writes two decimals', () => {
    expect(kopecksToMoney(155771)).toBe('1557.71');
    expect(kopecksToMoney(-5)).toBe('-0.05');
    expect(kopecksToMoney(0)).toBe('0.00');
    expect(kopecksToMoney(100)).toBe('1.00');
    for (const k of [1, -1, 99, 12345, -987654321]) expect(moneyToKopecks(kopecksToMoney(k))).toBe(k);
  });
});
