import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  BACKOFF_MAX_MS,
  isoWeek,
  lastDigestRun,
  limitsLow,
  nextDigestRun,
  profitDrop,
  quietUntil,
} from './rules';

const at = (iso: string) => Date.parse(iso);

describe('quiet hours (Moscow time, UTC+3)', () => {
  const night = { from: '23:00', to: '08:00' };
  it('holds a message inside hours that cross midnight until they end, the next morning', () => {
    // 23:30 MSK = 20:30 UTC → ends 08:00 MSK = 05:00 UTC next day
    expect(quietUntil(night, at('2026-03-02T20:30:00Z'))).toBe(at('2026-03-03T05:00:00Z'));
    // 02:00 MSK (23:00 UTC the day before) → ends 05:00 UTC the same Moscow day
    expect(quietUntil(night, at('2026-03-02T23:00:00Z'))).toBe(at('2026-03-03T05:00:00Z'));
  });
  it('lets a message go outside the hours, at their end, and when there are none', () => {
    expect(quietUntil(night, at('2026-03-02T05:00:00Z'))).toBeNull(); // 08:00 MSK exactly
    expect(quietUntil(night, at('2026-03-02T12:00:00Z'))).toBeNull();
    expect(quietUntil(null, at('2026-03-02T20:30:00Z'))).toBeNull();
    expect(quietUntil({ from: '10:00', to: '10:00' }, at('2026-03-02T07:00:00Z'))).toBeNull();
  });
  it('handles hours within one day', () => {
    // 13:00–15:00 MSK; 13:30 MSK = 10:30 UTC → ends 12:00 UTC
    expect(quietUntil({ from: '13:00', to: '15:00' }, at('2026-03-02T10:30:00Z'))).toBe(at('2026-03-02T12:00:00Z'));
    expect(quietUntil({ from: '13:00', to: '15:00' }, at('2026-03-02T09:59:00Z'))).toBeNull();
  });
});

describe('backoff', () => {
  it('doubles from a minute up to six hours', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(backoffMs(30)).toBe(BACKOFF_MAX_MS);
  });
  it("keeps a channel's retry-after when it is longer", () => {
    expect(backoffMs(1, 90_000)).toBe(90_000);
    expect(backoffMs(3, 1_000)).toBe(240_000);
  });
});

describe('profit drop against the previous four weeks', () => {
  it('is a drop past the threshold, in percent', () => {
    // average 100 000 ₽ → 70 000 ₽ is a 30 % drop
    expect(profitDrop(7_000_000, [10_000_000, 9_000_000, 11_000_000, 10_000_000], 20)).toBe(30);
    expect(profitDrop(-1_000_000, [10_000_000, 10_000_000], 50)).toBe(110);
  });
  it('is none at or under the threshold, without two weeks before, or from an average of no profit', () => {
    expect(profitDrop(8_000_000, [10_000_000, 10_000_000, 10_000_000, 10_000_000], 20)).toBeNull();
    expect(profitDrop(1, [10_000_000], 20)).toBeNull();
    expect(profitDrop(-5, [-10, -20], 20)).toBeNull();
  });
  it('reads only the four newest weeks', () => {
    expect(profitDrop(50, [100, 100, 100, 100, 1_000_000], 40)).toBe(50);
  });
});

describe('limits low', () => {
  it('is low when the rest is under the weekly average of the last four weeks', () => {
    expect(limitsLow(900, [2000, 1000, 1000, 0])).toEqual({ average: 1000 });
    expect(limitsLow(1000, [2000, 1000, 1000, 0])).toBeNull();
  });
  it('is never low for a user who charged nothing', () => {
    expect(limitsLow(0, [0, 0, 0, 0])).toBeNull();
    expect(limitsLow(0, [])).toBeNull();
  });
});

describe('the digest week', () => {
  it('runs Monday 07:00 UTC; an event belongs to the next run', () => {
    // 2026-03-02 is a Monday
    expect(lastDigestRun(at('2026-03-02T07:00:00Z'))).toBe(at('2026-03-02T07:00:00Z'));
    expect(lastDigestRun(at('2026-03-02T06:59:00Z'))).toBe(at('2026-02-23T07:00:00Z'));
    expect(lastDigestRun(at('2026-03-08T23:00:00Z'))).toBe(at('2026-03-02T07:00:00Z'));
    expect(nextDigestRun(at('2026-03-04T12:00:00Z'))).toBe(at('2026-03-09T07:00:00Z'));
  });
  it('names ISO weeks, across a year end too', () => {
    expect(isoWeek(at('2026-03-02T07:00:00Z'))).toBe('2026-W10');
    expect(isoWeek(at('2027-01-01T07:00:00Z'))).toBe('2026-W53');
    expect(isoWeek(at('2024-12-30T07:00:00Z'))).toBe('2025-W01');
  });
});
