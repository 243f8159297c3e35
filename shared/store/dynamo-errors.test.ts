import { describe, expect, it } from 'vitest';
import { conditionHeld } from './dynamo-errors';

function named(name: string): Error {
  const e = new Error(name);
  e.name = name;
  return e;
}

describe('conditionHeld', () => {
  it('true when the write went through, false when its condition failed', async () => {
    expect(await conditionHeld(Promise.resolve({}))).toBe(true);
    expect(await conditionHeld(Promise.reject(named('ConditionalCheckFailedException')))).toBe(false);
  });

  it('passes any other failure on', async () => {
    await expect(conditionHeld(Promise.reject(named('ProvisionedThroughputExceededException')))).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
  });
});
