/**
 * An in-memory stand-in for shared/store/throttle.repo.ts with the same rules (sliding windows, the
 * doubling locks of lockSeconds), for unit tests of the account use cases: time is whatever `now` the
 * use case passes (its injected clock), so a 15-minute window passes by moving a manual clock.
 * test/security/throttling.test.ts runs the real store against DynamoDB Local.
 */
import { lockSeconds, type LockoutPolicy, type ThrottleInput } from '../../shared/store/throttle.repo';

export function memoryThrottle() {
  const sends = new Map<string, number[]>();
  const failures = new Map<string, number[]>();
  const lockedUntil = new Map<string, number>();
  const knownUntil = new Map<string, number>();
  const key = (kind: string, subject: string) => `${kind}#${subject}`;
  const inWindow = (list: number[] | undefined, now: number, windowSeconds: number) =>
    (list ?? []).filter((t) => t > now - windowSeconds * 1000);

  async function tryConsume(input: ThrottleInput): Promise<boolean> {
    const k = key(input.kind, input.subject);
    const now = input.now ?? Date.now();
    const recent = inWindow(sends.get(k), now, input.windowSeconds);
    if (recent.length >= input.limit) return false;
    sends.set(k, [...recent, now]);
    return true;
  }

  return {
    tryConsume,
    async consumeSlot(input: ThrottleInput): Promise<{ ok: true } | { ok: false; retryAfter: number }> {
      if (await tryConsume(input)) return { ok: true };
      const now = input.now ?? Date.now();
      const oldest = Math.min(...inWindow(sends.get(key(input.kind, input.subject)), now, input.windowSeconds));
      return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + input.windowSeconds * 1000 - now) / 1000)) };
    },
    async lockedFor(policy: LockoutPolicy, subject: string, now = Date.now()): Promise<number> {
      const until = lockedUntil.get(key(policy.kind, subject)) ?? 0;
      return until > now ? Math.ceil((until - now) / 1000) : 0;
    },
    async failureCount(policy: LockoutPolicy, subject: string, now = Date.now()): Promise<number> {
      return inWindow(failures.get(key(policy.kind, subject)), now, policy.windowSeconds).length;
    },
    async recordFailure(policy: LockoutPolicy, subject: string, now = Date.now()): Promise<number> {
      const k = key(policy.kind, subject);
      const list = [...inWindow(failures.get(k), now, policy.windowSeconds), now];
      failures.set(k, list);
      const lock = lockSeconds(policy, list.length);
      if (lock > 0) lockedUntil.set(k, Math.max(lockedUntil.get(k) ?? 0, now + lock * 1000));
      return lock;
    },
    async markKnown(kind: string, subject: string, seconds: number, now = Date.now()): Promise<void> {
      knownUntil.set(key(kind, subject), now + seconds * 1000);
    },
    async isKnown(kind: string, subject: string, now = Date.now()): Promise<boolean> {
      return (knownUntil.get(key(kind, subject)) ?? 0) > now;
    },
    async clearFailures(policy: LockoutPolicy, subject: string): Promise<void> {
      failures.delete(key(policy.kind, subject));
      lockedUntil.delete(key(policy.kind, subject));
    },
  };
}
