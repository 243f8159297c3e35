/**
 * Reads an uploaded report file (zip of reports, .xlsx or .xls) row by row into a RowSink.
 * Input: the file (in memory or on disk) and its upload name. Output: format, data-row count and the
 * file-name metadata. Steps: size cap → magic bytes → (zip) central directory → pick the report →
 * header row (missing columns rejected before any data row) → rows to the sink.
 */
import { open, stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ReportError } from '../errors';
import type { RowSink } from '../row-sink';
import type { FileFormat, FileMeta } from '../types';
import { parseFileMeta } from './filename';
import { HEAD_BYTES, describeHead, detectFormat, isOle2Magic, isZipMagic, unsupportedFormat } from './format';
import { inflateCap, resolveLimits, type ReadLimits } from './limits';
import { scanXls } from './xls';
import { scanXlsx, type SheetScanResult } from './xlsx-stream';
import { ZipArchive, isJunkEntry, type InflateBudget, type ZipStreamOptions } from './zip';
import { readRangeToBuffer, type RangeSource } from './range-source';

/** The file: in memory, on disk, or read by byte ranges where it lies (range-source.ts). */
export type ReportSource =
  | { buffer: Buffer; filename?: string }
  | { path: string; filename?: string }
  | { ranges: RangeSource; filename?: string };

export interface ScanResult extends FileMeta {
  format: FileFormat;
  rows: number;
}

export type { ReadLimits } from './limits';
export { parseFileMeta } from './filename';
export { detectFormat } from './format';

/** Test hook: re-slice inflated data into tiny pieces to exercise chunk boundaries. */
export interface ScanOptions {
  chunkSize?: number;
}

interface Input {
  head: Buffer;
  size: number;
  source: { buffer: Buffer } | { path: string } | { ranges: RangeSource };
  name: string | undefined;
}

async function openInput(source: ReportSource, limits: ReadLimits): Promise<Input> {
  if ('buffer' in source) {
    const size = source.buffer.length;
    checkSize(size, limits);
    return {
      head: source.buffer.subarray(0, HEAD_BYTES),
      size,
      source: { buffer: source.buffer },
      name: source.filename,
    };
  }
  if ('ranges' in source) {
    const size = source.ranges.size;
    checkSize(size, limits);
    const head = await readRangeToBuffer(source.ranges, 0, Math.min(HEAD_BYTES, size));
    return { head, size, source: { ranges: source.ranges }, name: source.filename };
  }
  const { size } = await stat(source.path);
  checkSize(size, limits);
  const handle = await open(source.path, 'r');
  try {
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    return { head, size, source: { path: source.path }, name: source.filename ?? path.basename(source.path) };
  } finally {
    await handle.close();
  }
}

function checkSize(size: number, limits: ReadLimits): void {
  if (size > limits.maxCompressedBytes) {
    throw new ReportError(
      'file_too_large',
      `The file is ${Math.ceil(size / 1024 / 1024)} MB; at most ${Math.floor(limits.maxCompressedBytes / 1024 / 1024)} MB are accepted.`,
      { size, max_bytes: limits.maxCompressedBytes },
    );
  }
}

function emptyReport(result: SheetScanResult): ReportError {
  return result.header
    ? new ReportError('empty_report', 'The report has a header row but no data rows.')
    : new ReportError('empty_report', 'The sheet is empty: no header row and no data.');
}

/** Picks the report inside a zip of reports (docs/WB-REPORT.md: first .xlsx in central-directory order). */
function pickReport(zip: ZipArchive) {
  const candidates = zip.entries.filter((e) => !isJunkEntry(e.fileName));
  const entry =
    candidates.find((e) => /\.xlsx$/i.test(e.fileName)) ??
    // Not in the product rule, but an old report zipped by hand is as readable.
    candidates.find((e) => /\.xls$/i.test(e.fileName));
  if (!entry) {
    const names = candidates.map((e) => e.fileName).slice(0, 20);
    throw new ReportError(
      'no_report_in_zip',
      names.length === 0
        ? 'The archive is empty: it holds no .xlsx report.'
        : `The archive holds no .xlsx report (found: ${names.join(', ')}).`,
      { entries: names },
    );
  }
  return entry;
}

/**
 * Reads a report file into `sink` (null: count rows only, no decoding of values).
 * Throws ReportError for every way a file can be refused (see errors.ts).
 */
export async function scanReport(
  source: ReportSource,
  sink: RowSink | null,
  limits?: Partial<ReadLimits>,
  options: ScanOptions = {},
): Promise<ScanResult> {
  const lim = resolveLimits(limits);
  const input = await openInput(source, lim);
  const fromUpload = parseFileMeta(input.name ?? '');
  const budget: InflateBudget = { used: 0, max: inflateCap(input.size, lim) };
  const zipOptions: ZipStreamOptions = { chunkSize: options.chunkSize };

  let format: FileFormat;
  let result: SheetScanResult;
  let fromEntry: FileMeta = { report_number: null, seller_number: null };

  if (isOle2Magic(input.head)) {
    format = 'xls';
    const buffer =
      'buffer' in input.source
        ? input.source.buffer
        : 'ranges' in input.source
          ? await readRangeToBuffer(input.source.ranges, 0, input.size)
          : await readFile(input.source.path);
    result = scanXls(buffer, sink, lim);
  } else if (isZipMagic(input.head)) {
    const zip = await ZipArchive.open(input.source, lim, budget);
    try {
      format = detectFormat(input.head, zip.names);
      if (format === 'xlsx') {
        result = await scanXlsx(zip, sink, lim, zipOptions);
      } else {
        const entry = pickReport(zip);
        fromEntry = parseFileMeta(entry.fileName);
        const inner = await zip.read(
          entry,
          lim.maxCompressedBytes,
          () =>
            new ReportError(
              'file_too_large',
              `The report inside the archive is larger than ${Math.floor(lim.maxCompressedBytes / 1024 / 1024)} MB.`,
              {
                entry: entry.fileName,
                max_bytes: lim.maxCompressedBytes,
              },
            ),
        );
        result = await scanInner(inner, entry.fileName, sink, lim, budget, zipOptions);
      }
    } finally {
      zip.close();
    }
  } else {
    // Names what it is (PDF, HTML, CSV/text, empty file, …).
    throw unsupportedFormat(input.head);
  }

  if (result.rows === 0) throw emptyReport(result);
  return {
    format,
    rows: result.rows,
    report_number: fromUpload.report_number ?? fromEntry.report_number,
    seller_number: fromUpload.seller_number ?? fromEntry.seller_number,
  };
}

/** The report file found inside a zip: an .xlsx (itself a zip) or an .xls, by its bytes, not its name. */
async function scanInner(
  inner: Buffer,
  name: string,
  sink: RowSink | null,
  limits: ReadLimits,
  budget: InflateBudget,
  options: ZipStreamOptions,
): Promise<SheetScanResult> {
  const head = inner.subarray(0, HEAD_BYTES);
  if (isOle2Magic(head)) return scanXls(inner, sink, limits);
  if (isZipMagic(head)) {
    const zip = await ZipArchive.open({ buffer: inner }, limits, budget);
    try {
      if (detectFormat(head, zip.names) === 'xlsx') return await scanXlsx(zip, sink, limits, options);
    } finally {
      zip.close();
    }
    throw new ReportError('no_report_in_zip', `${name} inside the archive is another archive, not a spreadsheet.`, {
      entry: name,
    });
  }
  throw new ReportError(
    'not_a_spreadsheet',
    `${name} inside the archive is not a spreadsheet: it looks like ${describeHead(head)}.`,
    {
      entry: name,
      found: describeHead(head),
    },
  );
}
