import { describe, expect, it } from 'vitest';
import { afterFailure, afterRateLimited, earliestCall, handoverDelaySeconds, type RatePolicy } from './rate';

const policy: RatePolicy = { intervalMs: 60_000, backoffMaxMs: 600_000, maxFailures: 5, retryAfterMaxMs: 3_600_000 };

describe('WB call budget', () => {
  it('one call per interval', () => {
    expect(earliestCall(null, policy)).toBe(0);
    expect(earliestCall(1_000, policy)).toBe(61_000);
  });
  it('a 429 waits for X-Ratelimit-Retry, and never less than the interval', () => {
    expect(afterRateLimited(1_000, 95, policy)).toBe(96_000);
    expect(afterRateLimited(1_000, 3, policy)).toBe(61_000);
    expect(afterRateLimited(0, 0.2, { ...policy, intervalMs: 100 })).toBe(200);
  });
  it('transient failures back off exponentially up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => afterFailure(0, n, policy))).toEqual([
      120_000, 240_000, 480_000, 600_000, 600_000,
    ]);
    expect(afterFailure(0, 1, { ...policy, backoffMaxMs: 1 })).toBe(60_000);
  });
  it('hand-over delay is whole seconds within SQS limits', () => {
    expect(handoverDelaySeconds(10_500, 10_000)).toBe(1);
    expect(handoverDelaySeconds(5_000, 10_000)).toBe(0);
    expect(handoverDelaySeconds(10_000 + 3_600_000, 10_000)).toBe(900);
  });
});
