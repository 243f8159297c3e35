/**
 * Child of `npm run bench:api`: processes one big report file as the upload's processing does (the
 * engine reads it, items are built and stored as chunks under a fresh report id of the given user)
 * and prints {ms, rssMb, items, rows} as its last line: peak RSS of this process alone.
 * Usage: tsx scripts/bench-api-worker.ts <file> <userId> (the stack's environment in process.env).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildItems, readReport } from '../shared/report';
import { DEFAULT_TAX_PROFILE } from '../shared/report/types';
import { deleteItems, writeItems } from '../shared/store/items.repo';
import { newReportId } from '../shared/store/reports.repo';

async function main() {
  const [file, userId] = process.argv.slice(2);
  if (!file || !userId) throw new Error('Usage: bench-api-worker.ts <file> <userId>');
  const t = performance.now();
  // A 1M-row WB-style zip is ~370 MB with ~3 GB of sheet XML: over the service's caps (200 MB,
  // 1.5 GB inflated), which refuse it with file_too_large. The caps are raised here only to measure
  // the memory of reading it; the upload route would refuse this file.
  const parsed = await readReport(
    { path: file, filename: path.basename(file) },
    { maxCompressedBytes: 2 * 1024 ** 3, maxInflatedBytes: 16 * 1024 ** 3 },
  );
  const { items } = buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
  const reportId = newReportId();
  await writeItems(userId, reportId, 1, items);
  const ms = performance.now() - t;
  await deleteItems(userId, reportId);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ ms, rssMb, items: items.length, rows: parsed.rows }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
