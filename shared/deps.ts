/**
 * The dependency pattern of the use cases: a use case takes what it talks to as an argument
 * (`makeX(deps)` or `x(deps, input)`), so a test passes fakes and production wires the real ones once
 * per cold start in a composition module (shared/reports/deps.ts for the reports). The small shared
 * parts live here; each area defines its own `…Deps` from them.
 */

/** Now, as the use case sees it: the real time in production, a fixed or stepped one in tests. */
export interface Clock {
  now(): Date;
}

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that stays at `at` until moved (tests): `advance(ms)` moves it forward. */
export function manualClock(
  at: Date | string | number = Date.now(),
): Clock & { advance(ms: number): void; set(at: Date | string | number): void } {
  let t = new Date(at).getTime();
  return {
    now: () => new Date(t),
    advance(ms: number) {
      t += ms;
    },
    set(next: Date | string | number) {
      t = new Date(next).getTime();
    },
  };
}

/** Epoch milliseconds of a clock (leases and deadlines are kept in epoch ms). */
export const nowMs = (clock: Clock): number => clock.now().getTime();

/** Fresh unique ids (report ids, task ids, lease owners); tests may pass a predictable sequence. */
export interface IdSource {
  newId(): string;
}

/**
 * A use case `f(deps, ...args)` with its dependencies already given: what a port holds when one use
 * case calls another (the worker's `settings.resolveReportSettings(user, …)`), bound by the composition.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Bound<F> = F extends (deps: any, ...args: infer A) => infer R ? (...args: A) => R : never;
