// The data rows of a report file counted in the browser, before any byte is sent (issue 21: limits
// before the bytes travel). The server's reader (shared/engine/read) is Node-only; this is a small
// reader of the same rules for .xlsx and a .zip holding one: the first sheet's rows, the first row with
// content being the header, every later row with content being a data row (sheet-scanner.ts endRow).
// It reads the file where it lies (File.slice), inflates with the browser's own DecompressionStream and
// keeps one sheet chunk in memory at a time. The server still counts and charges what it counts: this
// count only lets the page refuse early a file the seller's limits cannot take. An .xls, a ZIP64 or an
// unexpected layout is not counted here (null): the server's count-rows decides, after the upload.

/** What the browser counted, or null when it cannot count this file. */
export interface BrowserCount {
  rows: number;
  format: 'xlsx' | 'zip';
}

/** The part of a File the counter uses (a Blob with a name), so tests can pass any Blob. */
export type NamedBlob = Blob & { name: string };

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  headerOffset: number;
}

const bytesOf = async (blob: Blob, start: number, end: number) =>
  new DataView(await blob.slice(start, end).arrayBuffer());

/** The entries of a zip from its central directory; null when it is not a zip this reader knows. */
async function zipEntries(blob: Blob): Promise<ZipEntry[] | null> {
  const tailStart = Math.max(0, blob.size - (22 + 0xffff));
  const tail = await bytesOf(blob, tailStart, blob.size);
  let at = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (tail.getUint32(i, true) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const count = tail.getUint16(at + 10, true);
  const size = tail.getUint32(at + 12, true);
  const offset = tail.getUint32(at + 16, true);
  // ZIP64 (markers of 0xffff / 0xffffffff): not read here.
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) return null;
  if (offset + size > blob.size) return null;
  const dir = await bytesOf(blob, offset, offset + size);
  const names = new TextDecoder();
  const out: ZipEntry[] = [];
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > dir.byteLength || dir.getUint32(p, true) !== CENTRAL) return null;
    const nameLength = dir.getUint16(p + 28, true);
    const extraLength = dir.getUint16(p + 30, true);
    const commentLength = dir.getUint16(p + 32, true);
    const compressedSize = dir.getUint32(p + 20, true);
    const headerOffset = dir.getUint32(p + 42, true);
    if (compressedSize === 0xffffffff || headerOffset === 0xffffffff) return null;
    out.push({
      name: names.decode(new Uint8Array(dir.buffer, dir.byteOffset + p + 46, nameLength)),
      method: dir.getUint16(p + 10, true),
      compressedSize,
      headerOffset,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

/** An entry's bytes as a stream (stored or deflated); null for another compression method. */
async function entryStream(blob: Blob, e: ZipEntry): Promise<ReadableStream<Uint8Array> | null> {
  const local = await bytesOf(blob, e.headerOffset, e.headerOffset + 30);
  if (local.byteLength < 30 || local.getUint32(0, true) !== LOCAL) return null;
  const start = e.headerOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
  const raw = blob.slice(start, start + e.compressedSize).stream();
  if (e.method === 0) return raw;
  if (e.method === 8)
    return raw.pipeThrough(new DecompressionStream('deflate-raw') as TransformStream<Uint8Array, Uint8Array>);
  return null;
}

async function bytesOfStream(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

async function entryText(blob: Blob, e: ZipEntry): Promise<string | null> {
  const s = await entryStream(blob, e);
  return s ? new TextDecoder().decode(await bytesOfStream(s)) : null;
}

/** The path of the workbook's first sheet (workbook.xml's first <sheet> through its relationships). */
async function firstSheetPath(blob: Blob, entries: ZipEntry[]): Promise<string | null> {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const workbook = byName.get('xl/workbook.xml');
  const rels = byName.get('xl/_rels/workbook.xml.rels');
  if (workbook && rels) {
    const [wb, rl] = await Promise.all([entryText(blob, workbook), entryText(blob, rels)]);
    const rid = wb ? /<(?:\w+:)?sheet\b[^>]*\br:id="([^"]+)"/.exec(wb)?.[1] : undefined;
    if (rid && rl) {
      const rel = new RegExp(`<Relationship\\b[^>]*\\bId="${rid}"[^>]*>`).exec(rl)?.[0];
      const target = rel ? /\bTarget="([^"]+)"/.exec(rel)?.[1] : undefined;
      if (target) {
        const path = target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
        if (byName.has(path)) return path;
      }
    }
  }
  const sheets = entries.map((e) => e.name).filter((n) => /^xl\/worksheets\/[^/]+\.xml$/.test(n));
  return sheets.sort()[0] ?? null;
}

/** A row element with content: a value or an inline text that is not only white space. */
const CONTENT = /<(?:\w+:)?(?:v|t)(?:\s[^>]*)?>\s*[^<\s]/;
const ROW_START = /<(?:\w+:)?row\b/g;

/**
 * Counts the rows with content in a sheet's XML, arriving in chunks: complete `<row …>…</row>` (or
 * `<row …/>`) elements are judged as they come, the unfinished rest waits for the next chunk.
 */
export class SheetRowCounter {
  private buffer = '';
  private withContent = 0;

  push(text: string): void {
    this.buffer += text;
    let consumed = 0;
    ROW_START.lastIndex = 0;
    for (let m = ROW_START.exec(this.buffer); m; m = ROW_START.exec(this.buffer)) {
      const open = this.buffer.indexOf('>', m.index);
      if (open < 0) break;
      if (this.buffer[open - 1] === '/') {
        consumed = ROW_START.lastIndex = open + 1;
        continue;
      }
      const close = this.buffer.indexOf('row>', open);
      // `</row>` or `</x:row>`: the "row>" after the element's own content.
      if (close < 0) break;
      if (CONTENT.test(this.buffer.slice(open + 1, close))) this.withContent++;
      consumed = ROW_START.lastIndex = close + 4;
    }
    this.buffer = this.buffer.slice(consumed);
    // Nothing of a row in a long buffer (the sheet's preamble): keep only a possible partial tag.
    if (this.buffer.length > 1 << 20 && !/<(?:\w+:)?row\b/.test(this.buffer)) this.buffer = this.buffer.slice(-64);
  }

  /** Data rows: the rows with content less the header (the first of them). */
  get rows(): number {
    return Math.max(0, this.withContent - 1);
  }
}

async function countSheet(stream: ReadableStream<Uint8Array>): Promise<number> {
  const counter = new SheetRowCounter();
  const reader = stream.pipeThrough(new TextDecoderStream() as TransformStream<Uint8Array, string>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    counter.push(value);
  }
  return counter.rows;
}

/** The rows of an .xlsx (a Blob), or null when it is not one this reader knows. */
async function countXlsx(blob: Blob): Promise<number | null> {
  const entries = await zipEntries(blob);
  if (!entries) return null;
  const path = await firstSheetPath(blob, entries);
  const sheet = path ? entries.find((e) => e.name === path) : undefined;
  const stream = sheet ? await entryStream(blob, sheet) : null;
  return stream ? countSheet(stream) : null;
}

/**
 * The data rows of a report file the seller chose, counted in the browser; null when this reader
 * cannot count it (an .xls, a zip holding an .xls, an unusual archive) or the browser lacks
 * DecompressionStream — the server counts those.
 */
export async function countRowsInBrowser(file: NamedBlob): Promise<BrowserCount | null> {
  if (typeof DecompressionStream === 'undefined' || typeof TextDecoderStream === 'undefined') return null;
  const ext = file.name.split('.').pop()?.toLowerCase();
  try {
    if (ext === 'xlsx') {
      const rows = await countXlsx(file);
      return rows === null ? null : { rows, format: 'xlsx' };
    }
    if (ext === 'zip') {
      const entries = await zipEntries(file);
      const xlsx = entries?.filter((e) => /\.xlsx$/i.test(e.name) && !e.name.startsWith('__MACOSX/'));
      if (!xlsx || xlsx.length !== 1) return null;
      const stream = await entryStream(file, xlsx[0]!);
      if (!stream) return null;
      const inner = await bytesOfStream(stream);
      const rows = await countXlsx(new Blob([inner as Uint8Array<ArrayBuffer>]));
      return rows === null ? null : { rows, format: 'zip' };
    }
    return null;
  } catch {
    // A file this reader cannot take apart: the server reads it and says what is wrong.
    return null;
  }
}
