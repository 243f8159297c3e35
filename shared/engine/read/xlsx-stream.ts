/**
 * Our own streaming .xlsx reader (docs/ARCHITECTURE.md, Performance): scans the inflated sheet XML as bytes for
 * `<row`, `<c`, `<v>`, `<is><t>`, without an XML library, and decodes UTF-8 only for the cells of the
 * columns the metrics read. Memory stays flat whatever the sheet size: only an unfinished tag or the
 * text of the current cell survives from one inflated chunk to the next.
 *
 * This file is the entry (scanXlsx); the pieces: xml-bytes (byte codes, text decoding), xml-scanner
 * (the tokenizer), shared-strings, sheet-tags (rows and cells tag by tag), sheet-scanner (the report's
 * sheet, with its fast row path), xlsx-parts (the package's parts); cell-rows reads any columns for
 * the catalog import.
 */
import type { RowSink } from '../row-sink';
import type { ColumnMap } from './headers';
import type { ReadLimits } from './limits';
import { readSharedStrings } from './shared-strings';
import { SheetScanner } from './sheet-scanner';
import { locateParts, scanSheet } from './xlsx-parts';
import type { ZipArchive, ZipStreamOptions } from './zip';

/** Shared strings kept as text when only counting: enough for the header row of files written in order. */
const COUNT_MODE_KEPT_STRINGS = 4096;

/** What the sheet scan found besides the rows handed to the sink. */
export interface SheetScanResult {
  rows: number;
  /** The header row was found (false: the sheet has no non-empty row at all). */
  header: boolean;
  columns: ColumnMap | null;
}

/**
 * Reads the first sheet of an .xlsx package into the sink (null: only count rows).
 * Shared strings come first (random access), then the sheet streams through the byte scanner.
 */
export async function scanXlsx(
  zip: ZipArchive,
  sink: RowSink | null,
  limits: ReadLimits,
  options: ZipStreamOptions = {},
): Promise<SheetScanResult> {
  const parts = await locateParts(zip);
  const keepAll = () => true;
  const keep = sink !== null ? keepAll : (i: number) => i < COUNT_MODE_KEPT_STRINGS;
  const sst = parts.sharedStrings ? await readSharedStrings(zip, parts.sharedStrings, limits, keep, options) : null;

  const scanner = new SheetScanner(sst, sink, limits);
  await scanSheet(zip, parts.sheet, scanner, options);

  if (scanner.headerDone && scanner.columns === null && parts.sharedStrings) {
    // Count-only mode and the header's strings were not kept: fetch just those.
    const wanted = new Set(scanner.pendingHeader.values());
    const again = await readSharedStrings(zip, parts.sharedStrings, limits, (i) => wanted.has(i), options);
    for (const [col, index] of scanner.pendingHeader) {
      const text = again.get(index);
      if (text) scanner.headers.set(col, text);
    }
    scanner.applyHeader();
  }
  return { rows: scanner.rows, header: scanner.headerDone, columns: scanner.columns };
}
