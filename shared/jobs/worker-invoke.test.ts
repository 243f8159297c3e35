/**
 * Unit tier: the worker's invoke is Lambda's asynchronous invoke of WORKER_FUNCTION_NAME at the config's
 * endpoint, and nothing else: without a function name it refuses (nothing in a function runs the worker
 * itself), an answer other than 202 is a failure, and a changed LAMBDA_ENDPOINT gets a client of its own.
 */
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { describe, expect, it, vi } from 'vitest';
import { setUnitEnv } from '../../test/support/unit-fixtures';
import { lambdaClient, lambdaWorkerInvoker, type WorkerEvent } from './worker-invoke';

const event: WorkerEvent = { kind: 'report', user_id: 'u1', report_id: 'r1', task_id: 't1' };

describe('the worker invoke', () => {
  it('without WORKER_FUNCTION_NAME the invoke fails: there is no worker to hand the report to', async () => {
    setUnitEnv({ WORKER_FUNCTION_NAME: '' });
    await expect(lambdaWorkerInvoker.invoke(event)).rejects.toThrow(/WORKER_FUNCTION_NAME is not set/);
  });

  it('sends an Event invoke of the worker function with the event as its payload; 202 is success', async () => {
    setUnitEnv({ WORKER_FUNCTION_NAME: 'svc-prod-reportsWorker', LAMBDA_ENDPOINT: 'http://127.0.0.1:1' });
    const send = vi.spyOn(lambdaClient(), 'send').mockResolvedValueOnce({ StatusCode: 202 } as never);
    await lambdaWorkerInvoker.invoke(event);
    const command = send.mock.calls[0]![0] as InvokeCommand;
    expect(command.input).toMatchObject({ FunctionName: 'svc-prod-reportsWorker', InvocationType: 'Event' });
    expect(JSON.parse(Buffer.from(command.input.Payload as Uint8Array).toString())).toEqual(event);
    send.mockResolvedValueOnce({ StatusCode: 200 } as never);
    await expect(lambdaWorkerInvoker.invoke(event)).rejects.toThrow('worker invoke answered 200');
  });

  it('a client per endpoint: a process pointed at another endpoint talks to that one', async () => {
    setUnitEnv({ LAMBDA_ENDPOINT: 'http://127.0.0.1:1' });
    const first = lambdaClient();
    expect(lambdaClient()).toBe(first);
    setUnitEnv({ LAMBDA_ENDPOINT: 'http://127.0.0.1:2' });
    const second = lambdaClient();
    expect(second).not.toBe(first);
    expect(await second.config.endpoint!()).toMatchObject({ hostname: '127.0.0.1', port: 2 });
  });
});
