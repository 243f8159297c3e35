/**
 * Child of `npm run bench:api`: the 1M-row step. The parent PUT the file through a presigned URL of the
 * stack; this process takes that upload as the upload route does (uploadReport: recount, charge, store
 * the report as `processing`) and runs the report worker's use case on it (runWorkerEvent: read,
 * price, write the item chunks, mark ready) — the same code as the two Lambda functions, in one process
 * of its own so its peak RSS is theirs together (an upper bound of the worker's). Prints
 * {ms, rssMb, items, rows, status} as its last line.
 * Usage: tsx scripts/bench-api-worker.ts <userId> <uploadId> (the stack's environment in process.env).
 */
import { performance } from 'node:perf_hooks';
import { uploadReport } from '../shared/reports/upload/upload';
import { reportDeps } from '../shared/reports/deps';
import { getReportAnyStatus } from '../shared/store/reports.repo';
import { getUserById } from '../shared/store/users.repo';
import { idleWorkers, startInProcessWorker } from './local/in-process-worker';

async function main() {
  const [userId, uploadId] = process.argv.slice(2);
  if (!userId || !uploadId) throw new Error('Usage: bench-api-worker.ts <userId> <uploadId>');
  // The worker runs in this process (scripts/local/in-process-worker.ts), not in serverless-offline.
  await startInProcessWorker();
  const user = await getUserById(userId);
  if (!user) throw new Error(`no user ${userId}`);
  const t = performance.now();
  const { record } = await uploadReport(reportDeps, user, { uploadId }, { waitMs: 0 });
  await idleWorkers();
  const ms = performance.now() - t;
  const done = await getReportAnyStatus(userId, record.id);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({ ms, rssMb, items: done?.item_count ?? 0, rows: done?.rows ?? 0, status: done?.status ?? 'gone' }),
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
