import { describe, expect, it } from 'vitest';
import {
  mulDivRound,
  parseKopecks,
  parsePercent,
  parseQty,
  round2,
  roundHalfAway,
  scanScaled,
  toIsoDate,
} from './money';

describe('parseKopecks', () => {
  it.each([
    ['1557.71', 155771],
    ['1234.5', 123450],
    ['1609', 160900],
    ['-0.01', -1],
    ['0', 0],
    ['-0', 0],
    ['1E-3', 0],
    ['5E-3', 1],
    ['-5E-3', -1],
    ['1.2345E+3', 123450],
    ['1.2345e3', 123450],
    ['1e-7', 0],
    ['', 0],
    ['   ', 0],
    [' 12,50 ', 1250],
    ['1 234,56', 123456],
    ['1\u00a0234,56', 123456],
    ['1,234.56', 123456],
    ['1,234,567.5', 123456750],
    ['1.234,5', 123],
    ['12,5.', 12500],
    ['0.30000000000000004', 30],
    ['1557.7099999999998', 155771],
    ['155770.99999999997', 15577100],
    ['2.675', 268],
    ['-2.675', -268],
    ['2.6749999999999998', 268],
    ['0.004', 0],
    ['0.005', 1],
    ['-0.005', -1],
    ['+3.1', 310],
    ['20.84', 2084],
    ['-20.84', -2084],
    ['123456789012.34', 12345678901234],
  ])('%j → %d kopecks', (text, kopecks) => {
    expect(parseKopecks(text)).toBe(kopecks);
  });

  it('treats undefined and non-numeric text as 0', () => {
    expect(parseKopecks(undefined)).toBe(0);
    expect(parseKopecks('abc')).toBe(0);
    expect(parseKopecks('-')).toBe(0);
    expect(parseKopecks('1.2.3')).toBe(0);
    expect(parseKopecks('1,2,3')).toBe(0);
    expect(scanScaled('1.5,2', 2)).toBe(152);
    expect(parseKopecks('12abc')).toBe(0);
  });

  it('scanScaled reports non-numeric text as NaN (so the aggregator can warn) but blank as 0', () => {
    expect(scanScaled('н/д', 2)).toBeNaN();
    expect(scanScaled('1e', 2)).toBeNaN();
    expect(scanScaled(' ', 2)).toBe(0);
    // single digits, the commonest cell, at every scale the aggregator uses and beyond
    expect([0, 2, 6, 23].map((scale) => scanScaled('7', scale))).toEqual([7, 700, 7_000_000, 7 * Math.pow(10, 23)]);
    expect(Object.is(scanScaled('0', 2), 0)).toBe(true);
    expect(scanScaled('x', 2)).toBeNaN();
  });

  it('sums of parsed cells are exact where float sums are not', () => {
    const cells = ['0.1', '0.2', '0.3'];
    expect(cells.reduce((s, c) => s + parseKopecks(c), 0)).toBe(60);
    expect(0.1 + 0.2 + 0.3).not.toBe(0.6);
  });
});

describe('parseQty and parsePercent', () => {
  it('parses counts', () => {
    expect(parseQty('1')).toBe(1);
    expect(parseQty('12')).toBe(12);
    expect(parseQty('2.0')).toBe(2);
    expect(parseQty('-1')).toBe(-1);
    expect(parseQty('')).toBe(0);
    expect(parseQty(undefined)).toBe(0);
  });
  it('parses percents as written (fraction detection is per column, in the aggregator)', () => {
    expect(parsePercent('27.5')).toBe(27.5);
    expect(parsePercent('0.15')).toBe(0.15);
    expect(parsePercent('15%')).toBe(15);
    expect(parsePercent('12,5')).toBe(12.5);
    expect(parsePercent('0')).toBe(0);
    expect(parsePercent('')).toBe(0);
  });
});

describe('rounding', () => {
  it('roundHalfAway rounds halves away from zero, including float near-halves', () => {
    expect(roundHalfAway(2.5)).toBe(3);
    expect(roundHalfAway(-2.5)).toBe(-3);
    expect(roundHalfAway(2.4999)).toBe(2);
    expect(roundHalfAway(-2.4999)).toBe(-2);
    expect(roundHalfAway(1.005 * 100)).toBe(101);
    expect(roundHalfAway(-0.4)).toBe(0);
    expect(Object.is(roundHalfAway(-0.4), -0)).toBe(false);
  });
  it('round2 keeps 2 decimals', () => {
    expect(round2(27.345)).toBe(27.35);
    expect(round2(-27.345)).toBe(-27.35);
    expect(round2(15)).toBe(15);
  });
  it('mulDivRound is exact on integers', () => {
    expect(mulDivRound(1000, 20, 120)).toBe(167); // 166.67
    expect(mulDivRound(600, 1, 4)).toBe(150);
    expect(mulDivRound(5, 1, 2)).toBe(3);
    expect(mulDivRound(-5, 1, 2)).toBe(-3);
    expect(mulDivRound(5, 1, -2)).toBe(-3);
    expect(mulDivRound(7, 1, 2)).toBe(4);
    expect(mulDivRound(1, 1, 3)).toBe(0);
  });
});

describe('toIsoDate', () => {
  it.each([
    ['2022-10-03', '2022-10-03'],
    ['2022-10-03T12:00:00', '2022-10-03'],
    ['2022-10-03T12:00:00Z', '2022-10-03'],
    ['2022-10-03 12:00:00', '2022-10-03'],
    [' 2022-10-03 ', '2022-10-03'],
    ['03.10.2022', '2022-10-03'],
    ['44837', '2022-10-03'],
    ['44837.5', '2022-10-03'],
    ['61', '1900-03-01'],
  ])('%j → %s', (text, iso) => {
    expect(toIsoDate(text)).toBe(iso);
  });
  it.each([[undefined], [''], ['abc'], ['2022-13-01'], ['2022-02-30'], ['31.02.2022'], ['2022-10-03X'], ['0'], ['-5']])(
    '%j is not a date',
    (text) => {
      expect(toIsoDate(text)).toBeNull();
    },
  );
});
