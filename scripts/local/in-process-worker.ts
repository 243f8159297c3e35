/**
 * The report worker run in this process, for processes that are no Lambda function and have no worker
 * function to invoke: the integration and security tests (test/support/in-process-worker.setup.ts), the
 * local stack's demo seed (stack.ts) and the benchmarks. Each is its own composition root and sets this
 * invoker for its process (useWorkerInvoker); the functions' bundles never reach this module, so none
 * of them holds the worker through its invoker.
 */
import { useWorkerInvoker, type WorkerEvent, type WorkerInvoker } from '../../shared/jobs/worker-invoke';
import { log } from '../../shared/log';
import { makeReportDeps, reportDeps } from '../../shared/reports/deps';
import type { ReportDeps } from '../../shared/reports/ports';
import { runWorkerEvent } from '../../shared/reports/worker/worker';

/** In-process runs still going (tests wait for them before tearing the emulators down). */
const running = new Set<Promise<unknown>>();

/**
 * Runs each event in the background, as Lambda's asynchronous invoke does, with `run` (default: the
 * worker with this process's report composition of the moment, shared/reports/deps.ts reportDeps).
 */
export function inProcessWorkerInvoker(
  run: (event: WorkerEvent) => Promise<unknown> = (event) => runWorkerEvent(reportDeps, event),
): WorkerInvoker {
  return {
    async invoke(event) {
      const r = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => run(event))
        .catch((e: unknown) => log('error', 'in-process worker failed', { ...event, error: String(e) }));
      running.add(r);
      void r.finally(() => running.delete(r));
    },
  };
}

/**
 * Sets the in-process worker as this process's invoker; with `over`, the worker runs with those parts
 * in place of the real ones (a test's failing item store: the composition is the test's, no hook in the
 * product). `useInProcessWorker()` again: the real parts.
 */
export function useInProcessWorker(over: Partial<ReportDeps> = {}): void {
  const deps = Object.keys(over).length > 0 ? makeReportDeps(over) : null;
  useWorkerInvoker(inProcessWorkerInvoker((event) => runWorkerEvent(deps ?? reportDeps, event)));
}

/** Resolves when every in-process worker run started so far has ended. */
export async function idleWorkers(): Promise<void> {
  while (running.size > 0) await Promise.all([...running]);
}
