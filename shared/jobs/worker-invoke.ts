/**
 * Handing work to the report worker (functions/reports/worker.handler.ts) without waiting for it:
 * Lambda's asynchronous invoke (`InvocationType: 'Event'`): Lambda queues the event, answers 202 at
 * once, retries a crashed run (maximumRetryAttempts) and sends what still fails to the on-failure
 * destination (serverless.yml). Locally the same call goes to serverless-offline's Lambda endpoint
 * (LAMBDA_ENDPOINT), which runs the worker in the background too. A process that is no Lambda
 * function and has no worker function (integration tests, local scripts) runs the worker itself: its
 * composition root sets that invoker (useWorkerInvoker; scripts/local/in-process-worker.ts), so no
 * function's bundle reaches the worker through this module (it knows nothing of the reports).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { getConfig } from '../config';

/** One unit of work: build (task upload) or rebuild (task rebuild) one report. */
export interface WorkerEvent {
  kind: 'report';
  user_id: string;
  report_id: string;
  task_id: string;
}

let client: LambdaClient | undefined;

function lambda(): LambdaClient {
  const c = getConfig();
  client ??= new LambdaClient({ region: c.AWS_REGION, endpoint: c.LAMBDA_ENDPOINT, maxAttempts: 3 });
  return client;
}

/** Hands events to the worker (the report use cases take one: shared/reports/ports.ts). */
export interface WorkerInvoker {
  /**
   * Queues `event` for the worker. Throws when the invoke itself fails (the caller keeps the report
   * in `processing`: recovery re-invokes it once its lease runs out).
   */
  invoke(event: WorkerEvent): Promise<void>;
}

/**
 * Lambda's asynchronous invoke of WORKER_FUNCTION_NAME (the deployed worker; locally serverless-offline's,
 * through LAMBDA_ENDPOINT). Without a function name there is no worker to hand events to: it throws.
 */
export function lambdaWorkerInvoker(): WorkerInvoker {
  return {
    async invoke(event) {
      const name = getConfig().WORKER_FUNCTION_NAME;
      if (!name)
        throw new Error(
          'WORKER_FUNCTION_NAME is not set: this process has no worker (a test or local script sets its own, useWorkerInvoker)',
        );
      const r = await lambda().send(
        new InvokeCommand({
          FunctionName: name,
          InvocationType: 'Event',
          Payload: Buffer.from(JSON.stringify(event)),
        }),
      );
      if (r.StatusCode !== 202) throw new Error(`worker invoke answered ${String(r.StatusCode)}`);
    },
  };
}

let processInvoker: WorkerInvoker | undefined;

/**
 * The invoker of this process: Lambda's unless the process's composition root set another. A Lambda
 * function never does; the integration tests' setup and the local scripts that run without a worker
 * function (scripts/local/in-process-worker.ts) set one that runs the worker in this process.
 */
export function workerInvoker(): WorkerInvoker {
  processInvoker ??= lambdaWorkerInvoker();
  return processInvoker;
}

/** Sets this process's invoker (a composition root outside the function bundles); null: Lambda's again. */
export function useWorkerInvoker(invoker: WorkerInvoker | null): void {
  processInvoker = invoker ?? undefined;
}

/**
 * The invoker the compositions hold: each invoke goes to this process's invoker of the moment, so a
 * composition built before its process's root set one still uses it.
 */
export const processWorkerInvoker: WorkerInvoker = { invoke: (event) => workerInvoker().invoke(event) };
