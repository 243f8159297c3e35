/** The in-process report worker of the test process (set by in-process-worker.setup.ts). */
export { idleWorkers } from '../../scripts/local/in-process-worker';
