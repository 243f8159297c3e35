/**
 * Reading a report file for the rest of the system.
 * - readReport: the file's rows straight into the per-article accumulators → ParsedReport.
 * - countRows: only the data-row count (what an upload costs), no values decoded, no report built.
 */
import { createAggregator } from './aggregate';
import { scanReport, type ReadLimits, type ReportSource } from './read';
import type { ParsedReport, RowCount } from './types';

export type { ReadLimits, ReportSource } from './read';

export async function readReport(source: ReportSource, limits?: Partial<ReadLimits>): Promise<ParsedReport> {
  const aggregator = createAggregator();
  const scan = await scanReport(source, aggregator, limits);
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
  };
}

export async function countRows(source: ReportSource, limits?: Partial<ReadLimits>): Promise<RowCount> {
  const scan = await scanReport(source, null, limits);
  return { format: scan.format, rows: scan.rows, report_number: scan.report_number, seller_number: scan.seller_number };
}
