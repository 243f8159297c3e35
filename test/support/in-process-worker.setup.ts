/**
 * Setup of the integration and security suites (vitest.config.ts setupFiles): the test process is the
 * composition root of the handlers it calls, and has no worker function to invoke, so the worker's
 * invoke goes to a Lambda endpoint of this process that runs the report worker here
 * (scripts/local/in-process-worker.ts).
 */
import { beforeAll } from 'vitest';
import { startInProcessWorker, useInProcessWorker } from '../../scripts/local/in-process-worker';

beforeAll(async () => {
  await startInProcessWorker();
  useInProcessWorker();
});
