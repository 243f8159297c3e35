/**
 * A report's content fingerprint (docs/METRICS.md, One week is one report): what its rows say, whatever
 * the file — the same week as .xlsx, .xls, inside a zip, renamed or re-saved by Excel has one fingerprint.
 *
 * Each data row is reduced to a canonical tuple of the columns the engine reads (METRIC_KEYS, in their
 * order): numbers as integers in millionths (so "1234.5", "1234.50", "1,2345E+3" and an empty money cell
 * vs "0" agree), dates as their ISO day (text, serial or "03.10.2022" alike), text trimmed. The tuple is
 * hashed into 64 bits (two 32-bit lanes), and the report's fingerprint is the row count with the SUM of
 * the row hashes modulo 2^32 per lane: a multiset hash, so the order of rows (and of sheets in a zip) does
 * not matter while a row repeated twice counts twice.
 *
 * The same sums per sale day (`days`: ISO day of sale_dt, "-" for rows without one) tell which days two
 * reports share: a daily report inside a weekly one has the same rows on its day, so its day entry equals
 * the weekly's — an overlap (report-identity.ts findOverlap), and analytics counts those rows once. Rows
 * without a sale day ("-": storage, fines) are kept but never decide an overlap: the same weekly fee
 * can recur unchanged in reports of different weeks.
 *
 * Cheap by construction: one pass over the cells the reader already decoded, integer arithmetic only, no
 * string built per row. A RowSink, fed beside the aggregator (read-report.ts) or alone (fingerprintReport).
 */
import { scanScaled, toIsoDate } from './money';
import { FINGERPRINT_KEY_COUNT, KEY_INDEX, METRIC_KEYS, type MetricKey, type RowSink } from './row-sink';

export interface ContentFingerprint {
  /** `r1:<rows>:<16 hex>`; equal for the same multiset of rows. */
  value: string;
  /** Sale day (YYYY-MM-DD, "-" without one) → `<rows>:<16 hex>` of that day's rows. */
  days: Record<string, string>;
  /**
   * WB's ids of the report's rows (the file's «№», the API's rrdId; unique per row across WB): the
   * ROW_ID_SAMPLE smallest, as decimal text. Another report holding any of them has rows of this one,
   * whatever its file, format or extra rows (report-identity.ts rowIdentity). Empty when rows carry no id.
   */
  row_ids?: string[];
}

/** How many of a report's row ids it is known by (the smallest ones). */
export const ROW_ID_SAMPLE = 3;

export type Fingerprinter = RowSink & { finish(): ContentFingerprint };

/** Columns read as text (trimmed); dates as ISO days; everything else as a number. */
const TEXT_KEYS: ReadonlySet<MetricKey> = new Set([
  'sa_name',
  'subject_name',
  'brand_name',
  'doc_type_name',
  'supplier_oper_name',
  'bonus_type_name',
]);
const DATE_KEYS: ReadonlySet<MetricKey> = new Set(['order_dt', 'sale_dt']);
const KIND = METRIC_KEYS.slice(0, FINGERPRINT_KEY_COUNT).map((k) => (TEXT_KEYS.has(k) ? 0 : DATE_KEYS.has(k) ? 1 : 2));
const SALE_DT = KEY_INDEX.sale_dt;
const ROW_NO = KEY_INDEX.rrd_no;
/** More distinct sale days than this (a file of years) go into one "*" entry. */
const MAX_DAYS = 400;

/** Murmur3's 32-bit finalizer: spreads the lane's bits before the sums. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

class Sum {
  rows = 0;
  a = 0;
  b = 0;
  add(a: number, b: number): void {
    this.rows++;
    this.a = (this.a + a) >>> 0;
    this.b = (this.b + b) >>> 0;
  }
  text(): string {
    return `${this.rows}:${hex8(this.a)}${hex8(this.b)}`;
  }
}

export function createFingerprinter(): Fingerprinter {
  const total = new Sum();
  const days = new Map<string, Sum>();
  // Distinct date texts repeat across rows: their ISO day remembered.
  const dateCache = new Map<string, string>();
  let a = 0;
  let b = 0;
  /** The smallest row ids seen, ascending (ROW_ID_SAMPLE at most). */
  const rowIds: number[] = [];
  const noteRowId = (text: string | undefined): void => {
    if (text === undefined) return;
    const v = scanScaled(text, 0);
    if (!Number.isSafeInteger(v) || v <= 0) return;
    if (rowIds.length === ROW_ID_SAMPLE && v >= rowIds[ROW_ID_SAMPLE - 1]!) return;
    if (rowIds.includes(v)) return;
    rowIds.push(v);
    rowIds.sort((x, y) => x - y);
    if (rowIds.length > ROW_ID_SAMPLE) rowIds.pop();
  };
  const mixInt = (v: number): void => {
    // Two 32-bit halves of an integer up to 2^53.
    const lo = v | 0;
    const hi = Math.floor(v / 4294967296) | 0;
    a = Math.imul(a ^ lo, 0x01000193);
    a = Math.imul(a ^ hi, 0x01000193);
    b = Math.imul(b ^ lo, 0x5bd1e995) + 0x9e3779b9;
    b = Math.imul(b ^ hi, 0x5bd1e995) + 0x9e3779b9;
  };
  const mixText = (s: string): void => {
    let i = 0;
    let n = s.length;
    while (i < n && s.charCodeAt(i) <= 32) i++;
    while (n > i && s.charCodeAt(n - 1) <= 32) n--;
    const length = n - i;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) + 0x9e3779b9;
    }
    // The length ends the field, so ("ab", "c") and ("a", "bc") differ.
    mixInt(length + 0x10000);
  };
  const isoDay = (text: string): string => {
    let d = dateCache.get(text);
    if (d === undefined) {
      d = toIsoDate(text) ?? text.trim();
      if (dateCache.size < 4096) dateCache.set(text, d);
    }
    return d;
  };
  return {
    begin() {},
    row(cells) {
      noteRowId(cells[ROW_NO]);
      a = 0x811c9dc5;
      b = 0x12345678;
      let day = '-';
      for (let k = 0; k < KIND.length; k++) {
        const t = cells[k];
        const kind = KIND[k];
        if (kind === 2) {
          const v = scanScaled(t, 6);
          if (Number.isNaN(v)) mixText(t ?? '');
          else mixInt(v);
        } else if (t === undefined || t === '') {
          mixInt(0x20000);
        } else if (kind === 1) {
          const d = isoDay(t);
          if (k === SALE_DT) day = d;
          mixText(d);
        } else {
          mixText(t);
        }
      }
      const ha = fmix(a);
      const hb = fmix(b ^ ha);
      total.add(ha, hb);
      let s = days.get(day);
      if (!s) {
        if (days.size >= MAX_DAYS) {
          day = '*';
          s = days.get(day);
        }
        if (!s) days.set(day, (s = new Sum()));
      }
      s.add(ha, hb);
    },
    finish() {
      const out: Record<string, string> = {};
      for (const d of [...days.keys()].sort()) out[d] = days.get(d)!.text();
      return { value: `r1:${total.text()}`, days: out, row_ids: rowIds.map(String) };
    },
  };
}

/** Two reports' fingerprints: the sale days whose rows are the same in both. */
export function sharedDays(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] {
  return Object.keys(a).filter((d) => d !== '*' && d !== '-' && b[d] !== undefined && a[d] === b[d]);
}

/** Whether every sale day of `inner` has the same rows in `outer` (inner's rows are all in outer). */
export function containsDays(
  outer: Readonly<Record<string, string>>,
  inner: Readonly<Record<string, string>>,
): boolean {
  const ds = Object.keys(inner).filter((d) => d !== '-');
  return ds.length > 0 && !ds.includes('*') && ds.every((d) => outer[d] !== undefined && outer[d] === inner[d]);
}
