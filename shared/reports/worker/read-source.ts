/**
 * Reading a report's stored source, whatever road it came by: a portal file (the engine's reader), or the
 * rows of WB's Finance API kept by a WB connection (shared/marketplaces/wb/finance/page-body.ts: gzip'd pages of rows as WB sent
 * them, in rrdId order). Both go through the engine's one aggregator (shared/marketplaces/wb/finance/row-map.ts feeds API rows into the same
 * RowSink a file's reader does), so an imported report is built, rebuilt and corrected like an uploaded
 * one. The worker and a rebuild read through here.
 */
import { Readable } from 'node:stream';
import { readReport, type ReadHooks, type ReadLimits, type ReportSource } from '../../engine';
import { createAggregator } from '../../engine/aggregate';
import { createFingerprinter, type ContentFingerprint } from '../../engine/fingerprint';
import type { RowSink } from '../../engine/row-sink';
import type { ParsedReport } from '../../engine/types';
import { API_ROW_FIELDS, apiRowFeeder } from '../../marketplaces/wb/finance/row-map';
import { readStoredRows } from '../../marketplaces/wb/finance/page-body';
import { createReadStream } from 'node:fs';

/**
 * The stored name of an imported report's rows: `wb-<WB report id>-<WB seller id>.wbapi.json.gz` (imports
 * stored as JSON lines are named `.wbapi.jsonl.gz`; page-body.ts reads both forms).
 */
export const wbSourceName = (wbReportId: number | string, wbSellerId: string) =>
  `wb-${wbReportId}-${wbSellerId}.wbapi.json.gz`;
/** The data-quality note of a WB report whose rows WB sent twice (wb-import.ts); a build keeps it (worker.ts). */
export const WB_DUPLICATE_ROWS = 'wb_duplicate_rows';
const WB_SOURCE_NAME = /^wb-(\d+)-(\d+)\.wbapi\.jsonl?\.gz$/;

function streamOf(source: ReportSource): Readable {
  if ('buffer' in source) return Readable.from([source.buffer]);
  if ('ranges' in source) return source.ranges.readRange(0, source.ranges.size);
  return createReadStream(source.path);
}

/** Feeds the stored WB rows (page-body.ts: gzip'd pages joined in rrdId order) into `sink`. */
async function feedWbRows(source: ReportSource, sink: RowSink): Promise<number> {
  const feeder = apiRowFeeder(sink);
  feeder.push([]);
  await readStoredRows(streamOf(source), (rows) => feeder.push(rows), { fields: API_ROW_FIELDS });
  return feeder.rows();
}

/**
 * The content fingerprint of stored WB rows (engine/fingerprint.ts): the same as the portal file of the
 * same week has, so a week imported from WB and the same week uploaded as a file are one report
 * (docs/METRICS.md, One week is one report).
 */
export async function fingerprintWbSource(source: ReportSource): Promise<ContentFingerprint> {
  const fingerprinter = createFingerprinter();
  await feedWbRows(source, fingerprinter);
  return fingerprinter.finish();
}

/** WB rows as stored, into the engine's aggregates and the content fingerprint in one pass. */
async function readWbRows(source: ReportSource, match: RegExpExecArray, hooks: ReadHooks): Promise<ParsedReport> {
  const aggregator = createAggregator(hooks.onArticle);
  const fingerprinter = createFingerprinter();
  let rows = 0;
  const sink: RowSink = {
    begin: (present) => {
      aggregator.begin(present);
      fingerprinter.begin(present);
    },
    row: (cells) => {
      aggregator.row(cells);
      fingerprinter.row(cells);
      hooks.onRows?.(++rows);
    },
  };
  const read = await feedWbRows(source, sink);
  const result = aggregator.finish();
  return {
    format: 'wb_api',
    rows: read,
    report_number: match[1]!,
    seller_number: match[2]!,
    period_from: result.period_from,
    period_to: result.period_to,
    articles: result.articles,
    warnings: result.warnings,
    content: fingerprinter.finish(),
  };
}

/** A report's source read into the engine's aggregates (see the module comment). */
export async function readReportSource(
  source: ReportSource,
  limits?: Partial<ReadLimits>,
  hooks: ReadHooks = {},
): Promise<ParsedReport> {
  const match = source.filename ? WB_SOURCE_NAME.exec(source.filename) : null;
  return match ? readWbRows(source, match, hooks) : readReport(source, limits, hooks);
}
