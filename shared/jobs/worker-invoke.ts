/**
 * Handing work to the report worker (functions/reports/worker.handler.ts) without waiting for it:
 * Lambda's asynchronous invoke (`InvocationType: 'Event'`): Lambda queues the event, answers 202 at
 * once, retries a crashed run (maximumRetryAttempts) and sends what still fails to the on-failure
 * destination (serverless.yml). It is the only invoker there is. Locally the same call goes to the
 * Lambda endpoint of the config (LAMBDA_ENDPOINT): serverless-offline's, which runs the worker function;
 * or, in a process with no worker function (the integration and security suites, the local stack's
 * seed, the benchmarks), a Lambda endpoint of that process (scripts/local/in-process-worker.ts) that
 * answers 202 and runs the worker there — the same call, over HTTP, that AWS receives.
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

let client: { endpoint: string | undefined; lambda: LambdaClient } | undefined;

/** The Lambda client of the config's endpoint (a new one when the endpoint changed). */
export function lambdaClient(): LambdaClient {
  const c = getConfig();
  if (client && client.endpoint === c.LAMBDA_ENDPOINT) return client.lambda;
  const lambda = new LambdaClient({ region: c.AWS_REGION, endpoint: c.LAMBDA_ENDPOINT, maxAttempts: 3 });
  client = { endpoint: c.LAMBDA_ENDPOINT, lambda };
  return lambda;
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
 * Lambda's asynchronous invoke of WORKER_FUNCTION_NAME (the deployed worker; locally the endpoint of
 * LAMBDA_ENDPOINT). Without a function name there is no worker to hand events to: it throws.
 */
export const lambdaWorkerInvoker: WorkerInvoker = {
  async invoke(event) {
    const name = getConfig().WORKER_FUNCTION_NAME;
    if (!name) throw new Error('WORKER_FUNCTION_NAME is not set: there is no worker to hand the report to');
    const r = await lambdaClient().send(
      new InvokeCommand({
        FunctionName: name,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(event)),
      }),
    );
    if (r.StatusCode !== 202) throw new Error(`worker invoke answered ${String(r.StatusCode)}`);
  },
};
