/**
 * Unit tier: which invoker a process's compositions reach. A Lambda function's is Lambda's, which
 * refuses to run without a worker function name (nothing in a function runs the worker itself); a
 * process whose root set another (tests, local scripts) gets that one, through every composition's
 * processWorkerInvoker, even one built before it was set.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setUnitEnv } from '../../test/support/unit-fixtures';
import { processWorkerInvoker, useWorkerInvoker, type WorkerEvent } from './worker-invoke';

const event: WorkerEvent = { kind: 'report', user_id: 'u1', report_id: 'r1', task_id: 't1' };

afterEach(() => useWorkerInvoker(null));

describe('the process’s worker invoker', () => {
  it('without one set and without WORKER_FUNCTION_NAME, the invoke fails: no worker runs in a function', async () => {
    setUnitEnv({ WORKER_FUNCTION_NAME: '' });
    await expect(processWorkerInvoker.invoke(event)).rejects.toThrow(/WORKER_FUNCTION_NAME is not set/);
  });

  it('hands each event to the invoker the process’s root set, and to Lambda’s again once unset', async () => {
    setUnitEnv({ WORKER_FUNCTION_NAME: '' });
    const invoke = vi.fn(async () => undefined);
    useWorkerInvoker({ invoke });
    await processWorkerInvoker.invoke(event);
    expect(invoke).toHaveBeenCalledWith(event);
    useWorkerInvoker(null);
    await expect(processWorkerInvoker.invoke(event)).rejects.toThrow(/WORKER_FUNCTION_NAME/);
    expect(invoke).toHaveBeenCalledTimes(1);
  });
});
