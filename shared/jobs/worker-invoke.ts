/**
 * Handing work to the report worker (functions/reports/worker.handler.ts) without waiting for it:
 * Lambda's asynchronous invoke (`InvocationType: 'Event'`): Lambda queues the event, answers 202 at
 * once, retries a crashed run (maximumRetryAttempts) and sends what still fails to the on-failure
 * destination (serverless.yml). Locally the same call goes to serverless-offline's Lambda endpoint
 * (LAMBDA_ENDPOINT), which runs the worker in the background too. Without a function name
 * (integration tests, scripts) the worker runs in this process, in the background: the caller of
 * makeWorkerInvoker says what to run (this module knows nothing of the reports).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { getConfig } from '../config';
import { log } from '../log';

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

/** In-process runs still going (tests wait for them before tearing the emulators down). */
const running = new Set<Promise<unknown>>();

/**
 * The invoker of this process: Lambda's asynchronous invoke of WORKER_FUNCTION_NAME, or, without one,
 * `runInProcess` in the background (the composition module passes the worker's use case).
 */
export function makeWorkerInvoker(runInProcess: (event: WorkerEvent) => Promise<unknown>): WorkerInvoker {
  return {
    async invoke(event) {
      const name = getConfig().WORKER_FUNCTION_NAME;
      if (name) {
        const r = await lambda().send(
          new InvokeCommand({
            FunctionName: name,
            InvocationType: 'Event',
            Payload: Buffer.from(JSON.stringify(event)),
          }),
        );
        if (r.StatusCode !== 202) throw new Error(`worker invoke answered ${String(r.StatusCode)}`);
        return;
      }
      const run = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => runInProcess(event))
        .catch((e: unknown) => log('error', 'in-process worker failed', { ...event, error: String(e) }));
      running.add(run);
      void run.finally(() => running.delete(run));
    },
  };
}

/** Tests: resolves when every in-process worker run started so far has ended. */
export async function idleWorkers(): Promise<void> {
  while (running.size > 0) await Promise.all([...running]);
}
