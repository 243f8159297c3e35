import { describe, expect, it } from 'vitest';
import { manualClock } from '../deps';
import { BucketsByKey, TokenBucket } from './write-pace';

/** A clock that sleeping moves: waits pass at once, and the clock shows they passed. */
function pacedClock() {
  const clock = manualClock('2024-03-01T10:00:00Z');
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
    clock.advance(ms);
  };
  return { clock, sleep, slept };
}

describe('TokenBucket', () => {
  it('a full bucket pays at once; beyond it each taker waits for the units it owes', async () => {
    const { clock, sleep, slept } = pacedClock();
    const b = new TokenBucket({ unitsPerSecond: 500, burst: 200, clock, sleep });
    expect(await b.take(200)).toBe(0);
    expect(await b.take(200)).toBe(400);
    expect(await b.take(100)).toBe(200);
    expect(slept).toEqual([400, 200]);
  });

  it('concurrent takers queue: the units written per second stay at the rate', async () => {
    const { clock } = pacedClock();
    // Sleeps that do not move the clock: all eight take at the same instant.
    const b = new TokenBucket({ unitsPerSecond: 500, burst: 200, clock, sleep: async () => undefined });
    const start = clock.now().getTime();
    // Eight transactions of 100 puts (200 units each) at once, as the catalog sync sends them.
    const waits = await Promise.all(Array.from({ length: 8 }, () => b.take(200)));
    expect(waits).toEqual([0, 400, 800, 1200, 1600, 2000, 2400, 2800]);
    // The last is sent 2.8 s in: beyond the burst's 200, 1,400 units in 2.8 s = 500 a second.
    expect(Math.round((8 * 200 - 200) / (waits.at(-1)! / 1000))).toBe(500);
    expect(clock.now().getTime()).toBe(start);
  });

  it('refills with time, never above the burst', async () => {
    const { clock, sleep } = pacedClock();
    const b = new TokenBucket({ unitsPerSecond: 100, burst: 50, clock, sleep });
    await b.take(50);
    clock.advance(10_000);
    expect(b.available()).toBe(50);
    expect(b.idle()).toBe(true);
    await b.take(1);
    expect(b.idle()).toBe(false);
  });

  it('refuses a rate or burst that is not positive', () => {
    const { clock } = pacedClock();
    expect(() => new TokenBucket({ unitsPerSecond: 0, burst: 1, clock })).toThrow();
    expect(() => new TokenBucket({ unitsPerSecond: 1, burst: 0, clock })).toThrow();
  });
});

describe('BucketsByKey', () => {
  it('one bucket per key; an idle bucket of another key is dropped', async () => {
    const { clock, sleep } = pacedClock();
    const buckets = new BucketsByKey(() => new TokenBucket({ unitsPerSecond: 100, burst: 100, clock, sleep }));
    expect(await buckets.take('USER#a', 100)).toBe(0);
    // Another partition has its own budget.
    expect(await buckets.take('USER#b', 100)).toBe(0);
    expect(await buckets.take('USER#a', 100)).toBe(1000);
    expect(buckets.size).toBe(2);
    clock.advance(5_000);
    await buckets.take('USER#c', 10);
    expect(buckets.size).toBe(1);
  });
});
