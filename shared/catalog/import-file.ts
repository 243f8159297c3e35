/**
 * Reading a cost-price file for the catalog import (docs/API.md: POST /api/products/import).
 * In: the file's bytes (csv, xlsx; an old xls is read too), told apart by content, not by name.
 * Out: the good rows (article, cost price in kopecks) and the per-row errors with the file's own row
 * numbers (as Excel shows them), so good rows can be applied even when others fail.
 * Steps: sniff the format by content; csv: decode (UTF-8, else Windows-1251 as Russian Excel saves it),
 * guess the delimiter (";" "," or tab) from the header line, split with quotes; xlsx/xls: refuse zip
 * bombs before SheetJS inflates anything, read the first sheet with a row cap; find the header row
 * among the first rows by loose header text; parse each row.
 * A file without the needed columns → 422 `missing_columns` naming them.
 */
import * as XLSX from '@e965/xlsx';
import { payloadTooLarge, unprocessable, unsupportedMediaType } from '../errors';
import { ReportError } from '../engine/errors';
import { isWholeKopecks, scanScaled } from '../engine/money';
import { resolveLimits, type ReadLimits } from '../engine/read/limits';
import { scanXlsxCells } from '../engine/read/cell-rows';
import { ZipArchive } from '../engine/read/zip';
import { MAX_ARTICLE_LENGTH } from '../contract/shapes';
import type { ImportRow } from '../store/products.repo';
import { parseValidFrom, validFromScore } from '../costs/valid-from';

// Fits Lambda's 6 MB request payload after base64 (shared/http/payload-limit.ts).
export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 100_000;
/**
 * What an .xlsx may unpack to (sheet, shared strings and package parts together). A price list of
 * MAX_IMPORT_ROWS rows with a dozen columns is ~20 MB of sheet XML; more is refused as import_too_large.
 */
export const MAX_IMPORT_INFLATED_BYTES = 48 * 1024 * 1024;
/** Characters in one cell (an article is far shorter; a product description may be long). */
export const MAX_IMPORT_CELL_LENGTH = 8192;
/** Columns read while looking for the header; cells further right are skipped unread. */
const HEADER_MAX_COLUMNS = 256;
/** Longest text kept from the rows searched for the header (longer is not a column name). */
const MAX_HEADER_CELL_LENGTH = 200;
/** Excel's last row: a row number beyond it is not a spreadsheet. */
const MAX_SHEET_ROW_NUMBER = 1_048_576;
const EMPTY_ROW: string[] = [];
/** The header must be within the first rows (a title block above it is fine). */
const HEADER_SEARCH_ROWS = 30;
/** Roubles; a price above this is certainly a typo (or a barcode in the wrong column). */
const MAX_COST_PRICE_ROUBLES = 100_000_000;

export interface ImportRowError {
  /** 1-based row number in the file. */
  row: number;
  message: string;
}

export interface CatalogFile {
  rows: ImportRow[];
  errors: ImportRowError[];
}

/** Header text for matching: lower case, ё→е, no punctuation or spaces ("Себестоимость, руб." → "себестоимостьруб"). */
export function normalizeImportHeader(text: string): string {
  return text
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Article headers, best first: "Артикул WB" is the nm_id, not the seller's article, so bare matches exclude it. */
function articleScore(h: string): number {
  if (['артикулпоставщика', 'артикулпродавца', 'saname', 'vendorcode'].includes(h)) return 3;
  if (h === 'артикул' || h === 'article') return 2;
  if (h.startsWith('артикул') && !/wb|вб|nm|ozon/.test(h.slice(7))) return 1;
  return 0;
}

function costScore(h: string): number {
  if (h === 'себестоимость' || h === 'costprice') return 3;
  if (h.startsWith('себестоимость') || h.startsWith('costprice')) return 2;
  return 0;
}

export const REQUIRED_COLUMNS = ['Артикул (или «Артикул поставщика»)', 'Себестоимость (или «cost_price»)'] as const;

interface HeaderMatch {
  index: number;
  article: number;
  cost: number;
  /** The optional date column (valid-from.ts); -1 without one. */
  date: number;
}

function findHeader(rows: readonly string[][]): HeaderMatch | { missing: string[] } {
  let bestMissing: string[] = [...REQUIRED_COLUMNS];
  for (let r = 0; r < Math.min(rows.length, HEADER_SEARCH_ROWS); r++) {
    let article = -1;
    let cost = -1;
    let date = -1;
    let aBest = 0;
    let cBest = 0;
    let dBest = 0;
    rows[r]!.forEach((cell, c) => {
      const h = normalizeImportHeader(cell);
      const a = articleScore(h);
      const p = costScore(h);
      const d = validFromScore(h);
      if (a > aBest) [aBest, article] = [a, c];
      if (p > cBest) [cBest, cost] = [p, c];
      if (d > dBest) [dBest, date] = [d, c];
    });
    if (article >= 0 && cost >= 0) return { index: r, article, cost, date };
    const missing = [...(article < 0 ? [REQUIRED_COLUMNS[0]] : []), ...(cost < 0 ? [REQUIRED_COLUMNS[1]] : [])];
    if (missing.length < bestMissing.length) bestMissing = missing;
  }
  return { missing: bestMissing };
}

/**
 * The columns rowsToImport will read when the header is among `rows` (every column index findHeader
 * matched), else null: what an .xlsx import decodes after its header.
 */
export function headerColumns(rows: readonly string[][]): number[] | null {
  const header = findHeader(rows);
  if ('missing' in header) return null;
  return Object.entries(header)
    .filter(([key, value]) => key !== 'index' && typeof value === 'number' && value >= 0)
    .map(([, value]) => value as number);
}

/**
 * Cost price text (roubles, decimal comma or dot, spaces between digit groups, "₽"/"руб") → kopecks, or an
 * error text. More than 2 decimals (fractions of a kopeck) are refused, as PUT /api/products and a manual
 * value refuse them (the same rule, isWholeKopecks: Excel's 0.30000000000000004 is 0.30).
 */
export function parseCostPrice(text: string): number | string {
  const t = text.replace(/₽|руб\.?|р\.$/gi, '').trim();
  if (t === '') return 'Себестоимость не указана';
  const v = scanScaled(t, 2);
  if (v !== v) return `Себестоимость «${text.slice(0, 40)}» не число`;
  if (!isWholeKopecks(scanScaled(t, 8) / 1e8))
    return `Себестоимость «${text.slice(0, 40)}»: больше 2 знаков после запятой`;
  if (v < 0) return 'Себестоимость не может быть отрицательной';
  if (v > MAX_COST_PRICE_ROUBLES * 100) return 'Себестоимость слишком велика';
  return v;
}

/** Rows of strings → good rows and per-row errors (row numbers 1-based, as in the file). */
export function rowsToImport(rows: readonly string[][]): CatalogFile {
  const header = findHeader(rows);
  if ('missing' in header) {
    throw unprocessable('missing_columns', `В файле нет столбцов: ${header.missing.join(', ')}`, {
      missing: header.missing,
    });
  }
  const out: CatalogFile = { rows: [], errors: [] };
  for (let r = header.index + 1; r < rows.length; r++) {
    const cells = rows[r]!;
    if (cells.every((c) => c.trim() === '')) continue;
    const row = r + 1;
    const article = (cells[header.article] ?? '').trim();
    if (article === '') {
      out.errors.push({ row, message: 'Артикул не указан' });
      continue;
    }
    if (article.length > MAX_ARTICLE_LENGTH) {
      out.errors.push({ row, message: `Артикул длиннее ${MAX_ARTICLE_LENGTH} символов` });
      continue;
    }
    const price = parseCostPrice(cells[header.cost] ?? '');
    const validFrom = header.date >= 0 ? parseValidFrom(cells[header.date] ?? '') : undefined;
    if (typeof price === 'string') out.errors.push({ row, message: price });
    else if (typeof validFrom === 'object') out.errors.push({ row, message: validFrom.error });
    else out.rows.push({ article, costPriceKopecks: price, ...(validFrom ? { validFrom } : {}) });
  }
  if (out.rows.length + out.errors.length > MAX_IMPORT_ROWS) {
    throw unprocessable('too_many_rows', `В файле больше ${MAX_IMPORT_ROWS} строк`, { max: MAX_IMPORT_ROWS });
  }
  return out;
}

/** UTF-8 when the bytes are valid UTF-8 (a BOM is dropped), else Windows-1251 (Excel's "CSV" in a Russian locale). */
export function decodeText(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    return new TextDecoder('windows-1251').decode(buf);
  }
}

/** The delimiter that splits the header line into the most fields, among ";", "," and tab. */
function guessDelimiter(firstLine: string): string {
  let best = ';';
  let bestCount = -1;
  for (const d of [';', '\t', ',']) {
    const n = splitCsv(firstLine, d)[0]?.length ?? 0;
    if (n > bestCount) [best, bestCount] = [d, n];
  }
  return best;
}

/** RFC 4180-style split: quoted fields may hold delimiters, newlines and doubled quotes. */
export function splitCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === delimiter) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (rows.length > MAX_IMPORT_ROWS + HEADER_SEARCH_ROWS)
        throw unprocessable('too_many_rows', `В файле больше ${MAX_IMPORT_ROWS} строк`, { max: MAX_IMPORT_ROWS });
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function csvRows(buf: Buffer): string[][] {
  const text = decodeText(buf);
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  return splitCsv(text, guessDelimiter(firstLine));
}

/** Caps of an .xlsx import (the report reader's caps, sized for a price list). */
export const IMPORT_READ_LIMITS: Readonly<ReadLimits> = Object.freeze(
  resolveLimits({
    maxCompressedBytes: MAX_IMPORT_BYTES,
    maxInflatedBytes: MAX_IMPORT_INFLATED_BYTES,
    maxEntries: 500,
    maxRows: MAX_IMPORT_ROWS,
    maxCellLength: MAX_IMPORT_CELL_LENGTH,
  }),
);

const tooManyRows = () =>
  unprocessable('too_many_rows', `В файле больше ${MAX_IMPORT_ROWS} строк`, { max: MAX_IMPORT_ROWS });

/** A report-reader error met while reading an import file → the import's own codes and words. */
function importError(e: unknown): unknown {
  if (!(e instanceof ReportError)) return e;
  switch (e.code) {
    case 'zip_bomb':
      return unprocessable(
        'import_too_large',
        `Таблица распаковывается больше чем в ${Math.round(MAX_IMPORT_INFLATED_BYTES / 1024 / 1024)} МБ: для себестоимости нужны только столбцы артикула и цены`,
        { max_inflated_bytes: MAX_IMPORT_INFLATED_BYTES },
      );
    case 'cell_too_long':
      return unprocessable('cell_too_long', `В файле есть ячейка длиннее ${MAX_IMPORT_CELL_LENGTH} символов`, {
        max_cell_length: MAX_IMPORT_CELL_LENGTH,
      });
    case 'too_many_entries':
      return unprocessable('too_many_entries', 'В файле слишком много частей: это не таблица Excel');
    case 'too_many_rows':
      return tooManyRows();
    default:
      return unprocessable('corrupt_file', 'Файл повреждён и не читается');
  }
}

/**
 * An .xlsx read as the report reader reads one (shared/engine/read: the zip by its central directory,
 * the sheet inflated as a stream under the inflate budget, scanned as bytes): every column of the first
 * rows until the header is known, then only the columns the import reads. Declared sizes beyond the
 * budget are refused before anything is inflated, so an archive bomb costs milliseconds; the scan
 * awaits every inflated piece, so other requests are served meanwhile.
 * Out: the rows as rowsToImport takes them (index = row number − 1; cells not read are '').
 */
async function xlsxRows(buf: Buffer, columnsOf: HeaderColumns = headerColumns): Promise<string[][]> {
  const limits = IMPORT_READ_LIMITS;
  const rows: string[][] = [];
  let header = false;
  let dataRows = 0;
  try {
    const archive = await ZipArchive.open({ buffer: buf }, limits, { used: 0, max: limits.maxInflatedBytes });
    try {
      await scanXlsxCells(archive, limits, HEADER_MAX_COLUMNS, (rowNumber, cells, control) => {
        if (rowNumber > MAX_SHEET_ROW_NUMBER) throw tooManyRows();
        while (rows.length < rowNumber - 1) rows.push(EMPTY_ROW);
        if (rows.length >= rowNumber) return; // rows out of order: the first one wins, as in Excel
        let width = 0;
        for (const c of cells.keys()) width = Math.max(width, c + 1);
        const row = new Array<string>(width).fill('');
        // A header cell is short: long text above the header is never a column name.
        for (const [c, v] of cells) row[c] = header || v.length <= MAX_HEADER_CELL_LENGTH ? v : '';
        rows.push(row);
        if (header) {
          if (++dataRows > MAX_IMPORT_ROWS) throw tooManyRows();
        } else {
          const columns = columnsOf(rows);
          if (columns !== null) {
            header = true;
            control.select(columns);
          } else if (rows.length >= HEADER_SEARCH_ROWS) control.stop();
        }
      });
    } finally {
      archive.close();
    }
  } catch (e) {
    throw importError(e);
  }
  return rows;
}

function cellString(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return String(v);
}

function spreadsheetRows(buf: Buffer): string[][] {
  let wb: XLSX.WorkBook;
  try {
    wb = XLSX.read(buf, {
      type: 'buffer',
      dense: true,
      sheetRows: MAX_IMPORT_ROWS + HEADER_SEARCH_ROWS + 1,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
    });
  } catch {
    throw unprocessable('corrupt_file', 'Файл повреждён и не читается');
  }
  const name = wb.SheetNames[0];
  const ws = name ? wb.Sheets[name] : undefined;
  if (!ws) throw unprocessable('empty_file', 'В файле нет листов');
  const aoa = XLSX.utils.sheet_to_json<unknown[]>(ws, { header: 1, raw: true, defval: '', blankrows: true });
  return aoa.map((r) => r.map(cellString));
}

const isZip = (b: Buffer) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const isOle2 = (b: Buffer) =>
  b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]));

/** The columns a table's reader decodes once its header is among `rows` (null: not yet). */
export type HeaderColumns = (rows: readonly string[][]) => number[] | null;

/**
 * The rows of an import table (csv, xlsx, xls; told apart by content) under the import's caps, as
 * strings; an .xlsx decodes every column until `columnsOf` finds the header, then only its columns.
 * The catalog import and the own-costs import (own-costs-file.ts) read their files with it.
 */
export async function readImportTable(buf: Buffer, columnsOf: HeaderColumns): Promise<string[][]> {
  if (buf.length > MAX_IMPORT_BYTES) throw payloadTooLarge('Файл больше 4 МБ', { max_bytes: MAX_IMPORT_BYTES });
  if (buf.length === 0) throw unprocessable('empty_file', 'Файл пуст');
  if (isZip(buf)) return xlsxRows(buf, columnsOf);
  if (isOle2(buf)) return spreadsheetRows(buf);
  // Text without NUL bytes is read as csv whatever its extension (".csv", ".txt", none).
  if (!buf.subarray(0, 4096).includes(0)) return csvRows(buf);
  throw unsupportedMediaType('Нужен файл .xlsx или .csv');
}

/** Reads a catalog file: see the module comment. */
export async function readCatalogFile(buf: Buffer): Promise<CatalogFile> {
  return rowsToImport(await readImportTable(buf, headerColumns));
}
