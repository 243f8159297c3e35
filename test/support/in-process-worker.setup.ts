/**
 * Setup of the integration and security suites (vitest.config.ts setupFiles): the test process is the
 * composition root of the handlers it calls, and has no worker function to invoke, so the report
 * worker runs in this process (scripts/local/in-process-worker.ts).
 */
import { useInProcessWorker } from '../../scripts/local/in-process-worker';

useInProcessWorker();
