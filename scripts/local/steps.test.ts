import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDuration, step, stepPrinter, type StepEvent } from './steps';

afterEach(() => vi.useRealTimers());

describe('steps of the local stack', () => {
  it('tells when a step starts and ends, with its time, and when it fails', async () => {
    let t = 1_000;
    const events: StepEvent[] = [];
    expect(
      await step(
        (e) => events.push(e),
        'DynamoDB Local',
        async () => ((t += 2_500), 'ok'),
        () => t,
      ),
    ).toBe('ok');
    const boom = new Error('no java');
    await expect(
      step(
        (e) => events.push(e),
        'API',
        async () => ((t += 100), Promise.reject(boom)),
        () => t,
      ),
    ).rejects.toBe(boom);
    expect(events).toEqual([
      { step: 'DynamoDB Local', state: 'start' },
      { step: 'DynamoDB Local', state: 'done', ms: 2_500 },
      { step: 'API', state: 'start' },
      { step: 'API', state: 'failed', ms: 100, error: boom },
    ]);
  });

  it('prints each step with the time since the start, and every heartbeat what is still running', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const startedAt = Date.now();
    const printer = stepPrinter((l) => lines.push(l), { heartbeatMs: 15_000, startedAt });
    printer.listener({ step: 'API: compiling every function (esbuild)', state: 'start' });
    printer.listener({ step: 's3rver', state: 'start' });
    vi.advanceTimersByTime(200);
    printer.listener({ step: 's3rver', state: 'done', ms: 200 });
    vi.advanceTimersByTime(14_800);
    vi.advanceTimersByTime(120_000);
    printer.listener({ step: 'API: compiling every function (esbuild)', state: 'done', ms: 135_000 });
    vi.advanceTimersByTime(60_000);
    printer.stop();
    expect(lines[0]).toBe('[   0.0 s] … API: compiling every function (esbuild)');
    expect(lines[2]).toBe('[   0.2 s] ✓ s3rver (0.2 s)');
    expect(lines[3]).toBe('[    15 s]   still working: API: compiling every function (esbuild) (15 s)');
    expect(lines.at(-1)).toBe('[2 min 15 s] ✓ API: compiling every function (esbuild) (2 min 15 s)');
    // Nothing running: no heartbeat lines after the last step.
    expect(lines.filter((l) => l.includes('still working'))).toHaveLength(9);
  });

  it('formats durations for people', () => {
    expect([950, 9_949, 10_000, 59_400, 60_000, 163_000].map(formatDuration)).toEqual([
      '0.9 s',
      '9.9 s',
      '10 s',
      '59 s',
      '1 min 0 s',
      '2 min 43 s',
    ]);
  });
});
