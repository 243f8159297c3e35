/**
 * A page of WB's detailed rows as we keep it: in the bucket while a report is read, and joined, page after
 * page, as an imported report's source (shared/reports/worker/read-source.ts). gzip'd JSON, one array per page,
 * each row's text exactly as WB sent it (checked as it was read: finance-client.ts), so a 100 000-row page
 * is never parsed into rows to be written out again. Pages joined one after another are read as one stream
 * of arrays. Imports stored before this form hold JSON lines (`{…}\n{…}\n`, rows already checked); they
 * are read too.
 */
import { Readable } from 'node:stream';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import { readJsonArray } from './json-rows';
import type { DetailedRowField } from './finance-fields';
import { checkDetailedRow, detailedRowChecker, type WbDetailedRow } from './schemas';

/**
 * A page read from WB: how many rows kept, the largest rrdId kept (the next page's cursor), and its stored
 * bytes; `sent` rows WB sent, of which `duplicates` were dropped (an rrdId at or below the cursor, or twice
 * on the page). Absent: none dropped.
 */
import type { RowMark } from './row-marks';

export interface DetailedPage {
  rows: number;
  lastRrdId: number | null;
  body: Buffer;
  sent?: number;
  duplicates?: number;
  /** What the page's rows say about the costs the report needs (row-marks.ts); absent: nothing. */
  marks?: RowMark[];
}

export interface PageWriter {
  /** Appends elements' text as read (`{…},{…}`); wait for it before the next, so memory stays bounded. */
  add(raw: Uint8Array): Promise<void> | void;
  /** The gzip'd page. */
  finish(): Promise<Buffer>;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']\n');
const PIECE = 1024 * 1024;

/**
 * Writes a page as its text arrives, handed to zlib in pieces of about 1 MB (a zlib call per network chunk
 * costs more than the copy). zlib works on libuv's threads while the next bytes are parsed; level 1: most
 * of level 6's ratio on this text at a fraction of the time.
 */
export function createPageWriter(): PageWriter {
  const gzip = createGzip({ level: 1 });
  const out: Buffer[] = [];
  gzip.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve);
    gzip.once('error', reject);
  });
  let parts: Uint8Array[] = [OPEN];
  let size = 0;
  let any = false;
  const flush = (): Promise<void> | void => {
    const piece = Buffer.concat(parts);
    parts = [];
    size = 0;
    if (gzip.write(piece)) return;
    return new Promise<void>((resolve) => gzip.once('drain', resolve));
  };
  return {
    add(raw) {
      if (any) parts.push(COMMA);
      any = true;
      parts.push(raw);
      size += raw.length;
      if (size >= PIECE) return flush();
    },
    async finish() {
      parts.push(CLOSE);
      gzip.end(Buffer.concat(parts));
      parts = [];
      await ended;
      return Buffer.concat(out);
    },
  };
}

/** The stored page of rows already in memory (tests, the bench, and what a page of WB would be stored as). */
export function pageBody(rows: readonly WbDetailedRow[]): Buffer {
  return gzipSync(Buffer.from(`${JSON.stringify(rows)}\n`, 'utf8'), { level: 1 });
}

/** A page as the Finance client gives it, from rows (tests). */
export function detailedPageOf(rows: readonly WbDetailedRow[]): DetailedPage {
  return { rows: rows.length, lastRrdId: rows[rows.length - 1]?.rrdId ?? null, body: pageBody(rows) };
}

/** Lines of the older stored form, JSON-parsed, in batches. */
async function readLines(
  first: Buffer,
  rest: AsyncIterator<Uint8Array>,
  onValues: (values: unknown[]) => void,
): Promise<void> {
  let carry = first;
  for (;;) {
    const values: unknown[] = [];
    let start = 0;
    for (let nl = carry.indexOf(10); nl >= 0; nl = carry.indexOf(10, start)) {
      const line = carry.toString('utf8', start, nl).trim();
      if (line !== '') values.push(JSON.parse(line));
      start = nl + 1;
    }
    onValues(values);
    const next = await rest.next();
    if (next.done) {
      const line = carry.toString('utf8', start).trim();
      if (line !== '') onValues([JSON.parse(line)]);
      return;
    }
    carry = Buffer.concat([carry.subarray(start), next.value]);
  }
}

/**
 * Feeds the rows of stored pages (gzip'd, joined in order) to `onRows` in batches, each row normalized the
 * way the Finance client's check gives it (money as decimal text, empty fields absent); with `fields`, only
 * those fields (the others dropped: a build reads fewer than half). Stored rows were
 * checked when read from WB: one that fails now means the stored bytes are damaged, and it throws.
 */
export async function readStoredRows(
  stored: Readable | Buffer,
  onRows: (rows: WbDetailedRow[]) => void,
  options: { fields?: readonly DetailedRowField[] } = {},
): Promise<number> {
  const input = Buffer.isBuffer(stored) ? Readable.from([stored]) : stored;
  const chunks = input.pipe(createGunzip())[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const check = options.fields ? detailedRowChecker(options.fields) : checkDetailedRow;
  let count = 0;
  const emit = (values: unknown[]) => {
    const rows = values.map((v) => {
      const row = check(v, count++);
      if ('success' in row) throw new Error(`stored WB row ${row.path}: ${row.message}`);
      return row;
    });
    if (rows.length > 0) onRows(rows);
  };
  // The first byte that is not a space says the form: `[` arrays, `{` the older lines.
  let head = Buffer.alloc(0);
  for (;;) {
    const next = await chunks.next();
    if (next.done) return 0;
    head = Buffer.concat([head, next.value]);
    const at = head.findIndex((c) => c !== 32 && c !== 10 && c !== 13 && c !== 9);
    if (at < 0) continue;
    if (head[at] === 123) {
      await readLines(head, chunks, emit);
      return count;
    }
    break;
  }
  const again = (async function* () {
    yield head;
    for (let n = await chunks.next(); !n.done; n = await chunks.next()) yield n.value;
  })();
  const read = await readJsonArray(again, (values) => emit(values), { sequence: true });
  if (read.kind === 'invalid') throw new Error(`stored WB rows: ${read.message}`);
  return count;
}

/** Every row of stored pages, normalized (tests and small reads; a report's build streams them). */
export async function storedRows(stored: Buffer): Promise<WbDetailedRow[]> {
  const out: WbDetailedRow[] = [];
  await readStoredRows(stored, (rows) => out.push(...rows));
  return out;
}
