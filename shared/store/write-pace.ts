/**
 * A token bucket on DynamoDB write units, for writers that would otherwise outrun one partition: a
 * partition key takes at most 1,000 write units a second, and a new seller's catalog (shared/store/
 * products.repo.ts, every product under `USER#<id>`) arrives as transactions of 100 puts, 8 in flight —
 * 1,600 units in the first instant, all on one key. Each writer takes the units a request will cost before
 * sending it; the bucket refills at `unitsPerSecond` up to `burst`, and a taker that finds too few waits
 * its turn (takers queue in the order they came: the bucket goes negative and each wait covers the debt
 * before it). Time is the injected clock and sleep, so tests move through seconds at once.
 */
import type { Clock } from '../deps';

export interface TokenBucketOptions {
  unitsPerSecond: number;
  /** Units available at once (a full bucket). */
  burst: number;
  clock: Clock;
  sleep?: (ms: number) => Promise<void>;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly o: TokenBucketOptions) {
    if (!(o.unitsPerSecond > 0) || !(o.burst > 0)) throw new Error('TokenBucket: rate and burst must be positive');
    this.tokens = o.burst;
    this.last = o.clock.now().getTime();
    this.sleep = o.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms)));
  }

  private refill(): void {
    const now = this.o.clock.now().getTime();
    this.tokens = Math.min(this.o.burst, this.tokens + ((now - this.last) / 1000) * this.o.unitsPerSecond);
    this.last = now;
  }

  /** Units available now (negative: owed by takers still waiting). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  /** Whether the bucket is full (nothing taken recently): such a bucket can be dropped and made anew. */
  idle(): boolean {
    return this.available() >= this.o.burst;
  }

  /** Takes `units`, waiting until the bucket has paid for them; answers the milliseconds waited. */
  async take(units: number): Promise<number> {
    this.refill();
    this.tokens -= units;
    if (this.tokens >= 0) return 0;
    const waitMs = Math.ceil((-this.tokens / this.o.unitsPerSecond) * 1000);
    await this.sleep(waitMs);
    return waitMs;
  }
}

/** Buckets by key (a partition key), made on first use, dropped once idle so the map stays small. */
export class BucketsByKey {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly make: () => TokenBucket) {}

  take(key: string, units: number): Promise<number> {
    for (const [k, b] of this.buckets) if (k !== key && b.idle()) this.buckets.delete(k);
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = this.make()));
    return b.take(units);
  }

  get size(): number {
    return this.buckets.size;
  }
}
