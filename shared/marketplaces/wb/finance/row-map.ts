/**
 * WB API detailed rows ↔ the engine's row input (shared/engine/row-sink.ts).
 *
 * The engine reads a portal file by handing each data row's cell text, keyed by METRIC_KEYS, to a RowSink
 * (the per-article aggregator). A report imported through the Finance API goes through the same sink:
 * each API row becomes the cell text the portal's file has in the same column (fields.ts says which
 * column each API field is), so one engine builds both and their totals agree to the kopeck.
 *
 * The other direction (a portal file's row → the API row WB would send) serves the local emulator and the
 * test that proves the two roads give one result.
 */
import { createAggregator, type AggregatorResult } from '../../../engine/aggregate';
import { toIsoDate } from '../../../engine/money';
import { FINGERPRINT_KEY_COUNT, KEY_INDEX, METRIC_KEYS, type MetricKey, type RowSink } from '../../../engine/row-sink';
import { DETAILED_ROW_FIELDS, DETAILED_ROW_FIELD_NAMES, type DetailedRowField } from './finance-fields';
import { kopecksToMoney, moneyToKopecks, numberText } from '../money';
import type { WbDetailedRow } from './schemas';

/** For each of the engine's columns, the API field that carries it. */
export const METRIC_SOURCE: Readonly<Record<MetricKey, DetailedRowField>> = (() => {
  const out: Partial<Record<MetricKey, DetailedRowField>> = {};
  for (const field of DETAILED_ROW_FIELD_NAMES) {
    const key = DETAILED_ROW_FIELDS[field][1];
    if (key !== null && key in KEY_INDEX) {
      if (out[key as MetricKey] !== undefined) throw new Error(`two API fields feed ${key}`);
      out[key as MetricKey] = field;
    }
  }
  const missing = METRIC_KEYS.filter((k) => out[k] === undefined);
  if (missing.length > 0) throw new Error(`no API field for ${missing.join(', ')}`);
  return out as Record<MetricKey, DetailedRowField>;
})();

const NM_ID = KEY_INDEX.nm_id;
const SOURCES: readonly DetailedRowField[] = METRIC_KEYS.map((k) => METRIC_SOURCE[k]);
/** Every field of an API row the engine reads (apiRowCells): a reader of stored rows may check only these. */
export const API_ROW_FIELDS: readonly DetailedRowField[] = [...new Set<DetailedRowField>([...SOURCES, 'nmId'])];

/** A value as the cell text a reader would give the sink (empty → undefined, numbers as decimal text). */
function cellText(v: string | number | boolean | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return numberText(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return v === '' ? undefined : v;
}

/** Fills `cells` (indexed by METRIC_KEYS) from one API row; returns it. */
export function apiRowCells(
  row: WbDetailedRow,
  cells: Array<string | undefined> = new Array<string | undefined>(METRIC_KEYS.length),
): Array<string | undefined> {
  for (let i = 0; i < SOURCES.length; i++) cells[i] = cellText(row[SOURCES[i]!]);
  // WB sends nmId 0 on rows of no product (storage, deductions…), where the file's cell is empty.
  if (row.nmId === 0) cells[NM_ID] = undefined;
  return cells;
}

/**
 * True when the row has at least one value the engine reads beyond its number and payment type (a portal
 * reader skips fully empty rows; a row of nothing but an rrdId is no row).
 */
function hasAnyCell(cells: ReadonlyArray<string | undefined>): boolean {
  for (let i = 0; i < FINGERPRINT_KEY_COUNT; i++) if (cells[i] !== undefined) return true;
  return false;
}

/**
 * A writer of API pages into a RowSink: `begin` is told every METRIC_KEY (the API always has them all),
 * then each page's rows are handed over as cells. Returns how many rows reached the sink.
 */
export function apiRowFeeder(sink: RowSink): { push(rows: Iterable<WbDetailedRow>): number; rows(): number } {
  let begun = false;
  let count = 0;
  const cells = new Array<string | undefined>(METRIC_KEYS.length);
  return {
    push(rows) {
      if (!begun) {
        sink.begin(new Set(METRIC_KEYS));
        begun = true;
      }
      let n = 0;
      for (const row of rows) {
        apiRowCells(row, cells);
        if (!hasAnyCell(cells)) continue;
        sink.row(cells);
        n++;
      }
      count += n;
      return n;
    },
    rows: () => count,
  };
}

/** All rows of a report through the engine's aggregator (what readReport does for a file). */
export function aggregateApiRows(pages: Iterable<Iterable<WbDetailedRow>>): AggregatorResult {
  const aggregator = createAggregator();
  const feeder = apiRowFeeder(aggregator);
  feeder.push([]);
  for (const page of pages) feeder.push(page);
  return aggregator.finish();
}

// -------------------------------------------------------------------------------------------------
// Portal row → API row (emulator, tests)

/** The report-level values an API row repeats on every row. */
export interface ApiRowMeta {
  reportId: number;
  /** YYYY-MM-DD */
  dateFrom: string;
  dateTo: string;
  createDate: string;
  currency?: string;
  reportType?: number;
}

const TRUE_TEXT = new Set(['1', 'true', 'да', 'yes']);
/**
 * Date fields as the spec's examples show them: orderDt/saleDt date-time ("2026-03-21T00:00:00Z"; the
 * engine reads their first 10 characters, the Moscow calendar date), fixTariffDate* plain dates.
 */
const DATE_TIME_FIELDS = new Set<DetailedRowField>(['orderDt', 'saleDt']);
const DATE_FIELDS = new Set<DetailedRowField>(['fixTariffDateFrom', 'fixTariffDateTo']);

function apiDate(cell: string | number | undefined, withTime: boolean): string {
  const text = cell === undefined ? '' : String(cell).trim();
  if (text === '') return '';
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    if (!withTime) return text.slice(0, 10);
    return /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`;
  }
  const day = toIsoDate(text);
  if (day === null) return text;
  return withTime ? `${day}T00:00:00Z` : day;
}

function apiValue(type: (typeof DETAILED_ROW_FIELDS)[DetailedRowField][0], cell: string | number | undefined) {
  const blank = cell === undefined || (typeof cell === 'string' && cell.trim() === '');
  switch (type) {
    case 'money':
      return kopecksToMoney(blank ? 0 : moneyToKopecks(cell!));
    case 'int': {
      const n = blank ? 0 : Number(cell);
      return Number.isFinite(n) ? Math.trunc(n) : 0;
    }
    case 'number': {
      const n = blank ? 0 : Number(String(cell).replace(',', '.').replace('%', ''));
      return Number.isFinite(n) ? n : 0;
    }
    case 'bool':
      return !blank && TRUE_TEXT.has(String(cell).trim().toLowerCase());
    case 'string':
      return blank ? '' : String(cell);
  }
}

/**
 * One data row of a portal file, as cells by portal column key (headers.ts keys), → the API row WB sends
 * for it: every field present, money as two-decimal text, fields the file lacks at their zero value.
 */
export function portalRowToApiRow(
  cells: ReadonlyMap<string, string | number>,
  meta: ApiRowMeta,
  rrdId: number,
): WbDetailedRow {
  const row: Record<string, unknown> = {};
  for (const field of DETAILED_ROW_FIELD_NAMES) {
    const [type, key] = DETAILED_ROW_FIELDS[field];
    const cell = key === null ? undefined : cells.get(key);
    row[field] =
      DATE_TIME_FIELDS.has(field) || DATE_FIELDS.has(field)
        ? apiDate(cell, DATE_TIME_FIELDS.has(field))
        : apiValue(type, cell);
  }
  row.reportId = meta.reportId;
  row.dateFrom = meta.dateFrom;
  row.dateTo = meta.dateTo;
  row.createDate = meta.createDate;
  row.currency = meta.currency ?? 'RUB';
  row.reportType = meta.reportType ?? 1;
  // The file's «№» is WB's row id: kept when the file has it, `rrdId` otherwise.
  if (!(typeof row.rrdId === 'number' && row.rrdId > 0)) row.rrdId = rrdId;
  row.rrDate = typeof row.saleDt === 'string' && row.saleDt !== '' ? row.saleDt.slice(0, 10) : meta.dateTo;
  row.warehouseLogisticsCoeff = 0;
  return row as WbDetailedRow;
}
