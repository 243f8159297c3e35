/**
 * The report worker run in this process, for processes that are no Lambda function and have no worker
 * function to invoke: the integration and security tests (test/support/in-process-worker.setup.ts), the
 * local stack's demo seed (stack.ts) and the benchmarks. The product's only invoker is Lambda's
 * asynchronous invoke (shared/jobs/worker-invoke.ts); this module is a Lambda endpoint on loopback that
 * answers that call as Lambda does (202, the event queued) and runs the worker here, in the background.
 * Starting it points the config at it (LAMBDA_ENDPOINT, WORKER_FUNCTION_NAME), the way serverless-offline's
 * endpoint is pointed at in the local stack: the product holds no hook for tests, and the functions'
 * bundles never reach this module.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkerEvent } from '../../shared/jobs/worker-invoke';
import { log } from '../../shared/log';
import { makeReportDeps, reportDeps } from '../../shared/reports/deps';
import type { ReportDeps } from '../../shared/reports/ports';
import { runWorkerEvent } from '../../shared/reports/worker/worker';

/** The worker function's name this endpoint answers for (as the local stack names it). */
const FUNCTION_NAME = 'report-profitability-local-reportsWorker';
const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** What each event is given to: the worker with this process's report composition, unless told otherwise. */
type Run = (event: WorkerEvent) => Promise<unknown>;
const realWorker: Run = (event) => runWorkerEvent(reportDeps, event);
let run: Run = realWorker;

/** Runs still going (tests wait for them before tearing the emulators down). */
const running = new Set<Promise<unknown>>();
let server: Promise<{ server: Server; url: string }> | undefined;

function answer(res: import('node:http').ServerResponse, status: number, type?: string, message?: string): void {
  if (type) res.setHeader('x-amzn-errortype', type);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(message ? JSON.stringify({ message }) : '');
}

/** Lambda's Invoke, as far as the worker's invoke uses it: an event for the worker function → 202. */
function listen(): Promise<{ server: Server; url: string }> {
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const name = INVOKE_PATH.exec(req.url ?? '')?.[1];
      if (req.method !== 'POST' || name === undefined) return answer(res, 404, 'UnknownOperationException');
      if (decodeURIComponent(name) !== FUNCTION_NAME)
        return answer(res, 404, 'ResourceNotFoundException', `Function not found: ${name}`);
      let event: WorkerEvent;
      try {
        event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WorkerEvent;
      } catch {
        return answer(res, 400, 'InvalidRequestContentException', 'Could not parse request body into json');
      }
      // Started before the answer leaves (a queue of a test has the event when the invoke returns).
      const r = Promise.resolve()
        .then(() => run(event))
        .catch((e: unknown) => log('error', 'in-process worker failed', { ...event, error: String(e) }));
      running.add(r);
      void r.finally(() => running.delete(r));
      answer(res, 202);
    });
  });
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      s.unref();
      resolve({ server: s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` });
    });
  });
}

/**
 * Starts this process's Lambda endpoint (once) and points the config's LAMBDA_ENDPOINT and
 * WORKER_FUNCTION_NAME at it; answers its URL.
 */
export async function startInProcessWorker(): Promise<string> {
  server ??= listen();
  const { url } = await server;
  Object.assign(process.env, { LAMBDA_ENDPOINT: url, WORKER_FUNCTION_NAME: FUNCTION_NAME });
  return url;
}

/**
 * The worker of this process runs with the real parts, or with `over` in place of some (a test's
 * failing item store: the composition is the test's, no hook in the product).
 */
export function useInProcessWorker(over: Partial<ReportDeps> = {}): void {
  const deps = Object.keys(over).length > 0 ? makeReportDeps(over) : null;
  run = deps ? (event) => runWorkerEvent(deps, event) : realWorker;
}

/** Each event invoked from now on goes to `handle` instead of the worker (a test's lost invoke, a queue). */
export function onWorkerEvent(handle: Run): void {
  run = handle;
}

/** Resolves when every in-process worker run started so far has ended. */
export async function idleWorkers(): Promise<void> {
  while (running.size > 0) await Promise.all([...running]);
}
