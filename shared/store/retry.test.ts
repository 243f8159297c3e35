import { describe, expect, it } from 'vitest';
import { fullJitter, isTransient, transientRetry } from './retry';

const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name }, extra);
const cancelled = (...codes: string[]) =>
  named('TransactionCanceledException', { CancellationReasons: codes.map((Code) => ({ Code })) });

describe('isTransient', () => {
  it.each([
    ['TransactionConflictException', named('TransactionConflictException')],
    ['a transaction cancelled by throttling', cancelled('None', 'ThrottlingError')],
    ['a transaction cancelled by a conflict', cancelled('TransactionConflict', 'None')],
    ['a transaction cancelled by throughput', cancelled('ProvisionedThroughputExceeded')],
  ])('%s: retried', (_n, e) => expect(isTransient(e)).toBe(true));

  it.each([
    ['a failed condition', cancelled('ConditionalCheckFailed', 'None')],
    [
      'a failed condition beside throttling (an answer, whatever else happened)',
      cancelled('ConditionalCheckFailed', 'ThrottlingError'),
    ],
    ['ConditionalCheckFailedException', named('ConditionalCheckFailedException')],
    ['a throttled call (the SDK retries it)', named('ProvisionedThroughputExceededException')],
    ['a validation error', named('ValidationException')],
    ['not an error', 'ThrottlingException'],
  ])('%s: passed on', (_n, e) => expect(isTransient(e)).toBe(false));
});

describe('transientRetry', () => {
  const noSleep = { sleep: async () => {}, delayMs: () => 0 };

  it('sends a throttled transaction again until it goes through', async () => {
    const failures = [
      cancelled('ThrottlingError'),
      cancelled('TransactionConflict'),
      named('TransactionConflictException'),
    ];
    let calls = 0;
    const send = transientRetry({ attempts: 6, ...noSleep })(async (args: { n: number }) => {
      calls++;
      const f = failures.shift();
      if (f) throw f;
      return { ok: args.n };
    });
    await expect(send({ n: 7 })).resolves.toEqual({ ok: 7 });
    expect(calls).toBe(4);
  });

  it('gives up after its attempts with the last error', async () => {
    let calls = 0;
    const send = transientRetry({ attempts: 3, ...noSleep })(async () => {
      calls++;
      throw cancelled('ThrottlingError');
    });
    await expect(send({})).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(calls).toBe(3);
  });

  it('passes a failed condition on at once', async () => {
    let calls = 0;
    const send = transientRetry({ attempts: 6, ...noSleep })(async () => {
      calls++;
      throw cancelled('ConditionalCheckFailed');
    });
    await expect(send({})).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(calls).toBe(1);
  });

  it('waits with full jitter under an exponential ceiling', async () => {
    const waits: number[] = [];
    const send = transientRetry({
      attempts: 4,
      delayMs: fullJitter(25, 2_000, () => 1),
      sleep: async (ms) => void waits.push(ms),
    })(async () => {
      throw cancelled('ThrottlingError');
    });
    await expect(send({})).rejects.toThrow();
    expect(waits).toEqual([50, 100, 200]);
    expect(fullJitter(25, 2_000, () => 1)(10)).toBe(2_000);
  });
});
