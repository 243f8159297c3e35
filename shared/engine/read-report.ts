/**
 * Reading a report file for the rest of the system.
 * - readReport: the file's rows straight into the per-article accumulators → ParsedReport.
 * - countRows: only the data-row count (what an upload costs), no values decoded, no report built.
 * - fingerprintReport: the count and the content fingerprint (fingerprint.ts), no report built.
 */
import { createAggregator } from './aggregate';
import { createFingerprinter, type ContentFingerprint } from './fingerprint';
import { scanReport, type ReadLimits, type ReportSource } from './read';
import type { RowSink } from './row-sink';
import type { ParsedReport, RowCount } from './types';

export type { ReadLimits, ReportSource } from './read';

export interface ReadHooks {
  /** Told the count of data rows read so far after every row (keep it cheap). */
  onRows?: (rows: number) => void;
  /** Told each article code once, as soon as a row names it (e.g. to look it up while the rest is read). */
  onArticle?: (article: string) => void;
}

export async function readReport(
  source: ReportSource,
  limits?: Partial<ReadLimits>,
  hooks: ReadHooks = {},
): Promise<ParsedReport> {
  const { onRows, onArticle } = hooks;
  const aggregator = createAggregator(onArticle);
  const fingerprinter = createFingerprinter();
  let rows = 0;
  const sink: RowSink = {
    begin: (present) => aggregator.begin(present),
    row: onRows
      ? (cells) => {
          aggregator.row(cells);
          fingerprinter.row(cells);
          onRows(++rows);
        }
      : (cells) => {
          aggregator.row(cells);
          fingerprinter.row(cells);
        },
  };
  const scan = await scanReport(source, sink, limits);
  const result = aggregator.finish();
  return {
    format: scan.format,
    rows: scan.rows,
    report_number: scan.report_number,
    seller_number: scan.seller_number,
    period_from: result.period_from,
    period_to: result.period_to,
    articles: result.articles,
    warnings: result.warnings,
    content: fingerprinter.finish(),
  };
}

export async function countRows(source: ReportSource, limits?: Partial<ReadLimits>): Promise<RowCount> {
  const scan = await scanReport(source, null, limits);
  return { format: scan.format, rows: scan.rows, report_number: scan.report_number, seller_number: scan.seller_number };
}

/**
 * The row count and the content fingerprint (fingerprint.ts) without aggregating: what count-rows and
 * upload compute for a small file to find a duplicate before anything is charged.
 */
export async function fingerprintReport(
  source: ReportSource,
  limits?: Partial<ReadLimits>,
): Promise<RowCount & { content: ContentFingerprint }> {
  const fingerprinter = createFingerprinter();
  const scan = await scanReport(source, fingerprinter, limits);
  return {
    format: scan.format,
    rows: scan.rows,
    report_number: scan.report_number,
    seller_number: scan.seller_number,
    content: fingerprinter.finish(),
  };
}
