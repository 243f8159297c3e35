/** The in-process report worker of the test process (set by in-process-worker.setup.ts). */
export { idleWorkers, inProcessWorkerInvoker } from '../../scripts/local/in-process-worker';
