// The data rows of a report file counted in the browser, before any byte is sent (issue 21: limits
// before the bytes travel). The server's reader (shared/engine/read) is Node-only; this is a small
// reader of the same rules: the first sheet's rows, the first row with content being the header, every
// later row with content being a data row (sheet-scanner.ts endRow). An .xlsx (or a .zip holding one)
// is read where it lies (File.slice), inflated with the browser's own DecompressionStream, one sheet
// chunk in memory at a time; an .xls (at most 65,535 rows) is read whole, its compound file's Workbook
// stream walked record by record (the rows that have a cell with a value). The server still counts and
// charges what it counts: this count only lets the page refuse early a file the seller's limits cannot
// take. A ZIP64, a zip of several workbooks or an unexpected layout is not counted here (null): the
// server's count-rows decides, after the upload.

/** What the browser counted, or null when it cannot count this file. */
export interface BrowserCount {
  rows: number;
  format: 'xlsx' | 'zip' | 'xls';
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
 * cannot count it (a zip holding an .xls or several workbooks, an unusual archive) or the browser
 * lacks DecompressionStream — the server counts those.
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
    if (ext === 'xls') {
      const rows = await countXls(file);
      return rows === null ? null : { rows, format: 'xls' };
    }
    return null;
  } catch {
    // A file this reader cannot take apart: the server reads it and says what is wrong.
    return null;
  }
}

// --- .xls: BIFF8 records in a compound file (CFB) ---

const END_OF_CHAIN = 0xfffffffe;

/** The "Workbook" stream of a compound file (regular sectors only); null when it is not one. */
function cfbWorkbook(buf: Uint8Array): Uint8Array | null {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < 512 || v.getUint32(0, true) !== 0xe011cfd0 || v.getUint32(4, true) !== 0xe11ab1a1) return null;
  const sectorSize = 1 << v.getUint16(0x1e, true);
  const sector = (n: number) => 512 + n * sectorSize;
  // The FAT's own sectors: 109 in the header, then the DIFAT chain.
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) fatSectors.push(v.getUint32(0x4c + i * 4, true));
  let difat = v.getUint32(0x44, true);
  for (let guard = 0; difat < END_OF_CHAIN && guard < 10_000; guard++) {
    const at = sector(difat);
    if (at + sectorSize > buf.byteLength) return null;
    for (let i = 0; i < sectorSize / 4 - 1; i++) fatSectors.push(v.getUint32(at + i * 4, true));
    difat = v.getUint32(at + sectorSize - 4, true);
  }
  const fat: number[] = [];
  for (const s of fatSectors) {
    if (s >= END_OF_CHAIN - 1) continue;
    const at = sector(s);
    if (at + sectorSize > buf.byteLength) return null;
    for (let i = 0; i < sectorSize / 4; i++) fat.push(v.getUint32(at + i * 4, true));
  }
  const chain = (start: number, size: number): Uint8Array | null => {
    const out = new Uint8Array(size);
    let at = 0;
    for (
      let s = start, guard = 0;
      s < END_OF_CHAIN - 1 && at < size && guard <= fat.length;
      s = fat[s] ?? END_OF_CHAIN, guard++
    ) {
      const from = sector(s);
      const n = Math.min(sectorSize, size - at);
      if (from + n > buf.byteLength) return null;
      out.set(buf.subarray(from, from + n), at);
      at += n;
    }
    return at === size ? out : null;
  };
  // Directory entries (128 bytes each) along the directory's chain.
  const cutoff = v.getUint32(0x38, true);
  let dir = v.getUint32(0x30, true);
  for (let guard = 0; dir < END_OF_CHAIN - 1 && guard <= fat.length; dir = fat[dir] ?? END_OF_CHAIN, guard++) {
    const at = sector(dir);
    for (let e = 0; e < sectorSize / 128; e++) {
      const p = at + e * 128;
      if (p + 128 > buf.byteLength) return null;
      const nameLength = v.getUint16(p + 64, true);
      let name = '';
      for (let i = 0; i + 2 < nameLength; i += 2) name += String.fromCharCode(v.getUint16(p + i, true));
      if (v.getUint8(p + 66) !== 2 || (name !== 'Workbook' && name !== 'Book')) continue;
      const size = v.getUint32(p + 120, true);
      // A stream under the cutoff lives in the mini stream: not read here (a report is never so small).
      if (size < cutoff) return null;
      return chain(v.getUint32(p + 116, true), size);
    }
  }
  return null;
}

/** Cell records with a value (BIFF8): LABELSST, LABEL, NUMBER, RK, MULRK, FORMULA, BOOLERR. */
const VALUE_RECORDS = new Set([0x00fd, 0x0204, 0x0203, 0x027e, 0x00bd, 0x0006, 0x0205]);

/** The data rows of the first worksheet of a BIFF8 workbook stream; null when it is not one. */
function countBiffRows(wb: Uint8Array): number | null {
  const v = new DataView(wb.buffer, wb.byteOffset, wb.byteLength);
  // The globals: the first BOUNDSHEET of a worksheet (type 0) gives its substream's offset.
  let sheetAt = -1;
  for (let p = 0; p + 4 <= wb.byteLength;) {
    const type = v.getUint16(p, true);
    const length = v.getUint16(p + 2, true);
    if (type === 0x0085 && p + 4 + 6 <= wb.byteLength && v.getUint8(p + 4 + 5) === 0) {
      sheetAt = v.getUint32(p + 4, true);
      break;
    }
    if (type === 0x000a) break;
    p += 4 + length;
  }
  if (sheetAt < 0 || sheetAt >= wb.byteLength) return null;
  const rows = new Set<number>();
  for (let p = sheetAt; p + 4 <= wb.byteLength;) {
    const type = v.getUint16(p, true);
    const length = v.getUint16(p + 2, true);
    if (type === 0x000a) break;
    if (VALUE_RECORDS.has(type) && p + 6 <= wb.byteLength) rows.add(v.getUint16(p + 4, true));
    p += 4 + length;
  }
  // The first row with a value is the header.
  return Math.max(0, rows.size - 1);
}

/** The rows of an .xls (a Blob), or null when it is not one this reader knows. */
async function countXls(blob: Blob): Promise<number | null> {
  const wb = cfbWorkbook(new Uint8Array(await blob.arrayBuffer()));
  return wb ? countBiffRows(wb) : null;
}
