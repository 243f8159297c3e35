import { afterEach, describe, expect, it, vi } from 'vitest';
import { everyInterval } from './schedule';

afterEach(() => vi.useRealTimers());

describe('everyInterval (the local stand-in for a schedule)', () => {
  it('runs the job every interval, never two at once, and stop waits for the run in progress', async () => {
    vi.useFakeTimers();
    let runs = 0;
    let finish: () => void = () => undefined;
    const job = () =>
      new Promise<void>((resolve) => {
        runs++;
        finish = resolve;
      });
    const s = everyInterval(1_000, job, () => undefined);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(3_000); // still running: the next ticks are skipped
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
  });

  it('a failing run is reported and the next one still comes', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let runs = 0;
    const s = everyInterval(
      500,
      async () => {
        runs++;
        throw new Error('boom');
      },
      (e) => errors.push(e),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    expect(errors).toHaveLength(2);
    await s.stop();
  });
});
