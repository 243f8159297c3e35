/**
 * Our own streaming .xlsx reader (docs/ARCHITECTURE.md, Performance): scans the inflated sheet XML as bytes for
 * `<row`, `<c`, `<v>`, `<is><t>`, without an XML library, and decodes UTF-8 only for the cells of the
 * columns the metrics read. Memory stays flat whatever the sheet size: only an unfinished tag or the
 * text of the current cell survives from one inflated chunk to the next.
 */
import type { Entry } from 'yauzl';
import { ReportError } from '../errors';
import { METRIC_KEYS, type RowSink } from '../row-sink';
import { mapHeaderRow, type ColumnMap } from './headers';
import type { ReadLimits } from './limits';
import { decodeEntities, decodeOoxmlEscapes } from './xml-text';
import { asCorrupt, type ZipArchive, type ZipStreamOptions } from './zip';

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUOTE = 0x22;
const APOS = 0x27;
const EQ = 0x3d;
const COLON = 0x3a;
const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QMARK = 0x3f;
const BANG = 0x21;

/** A single tag longer than this is not a spreadsheet (the longest real ones are namespace lists). */
const MAX_TAG_BYTES = 1024 * 1024;
/** Excel's last column is XFD. */
const MAX_COLUMNS = 16384;
/** Raw bytes per character no encoding of a legal cell reaches (entities like "&#x1F600;" are the widest). */
const RAW_BYTES_PER_CHAR = 12;
/** Shared strings kept as text when only counting: enough for the header row of files written in order. */
const COUNT_MODE_KEPT_STRINGS = 4096;

/** Cell types (the `t` attribute). */
const T_NUMBER = 0;
const T_SHARED = 1;
const T_STR = 2;
const T_INLINE = 3;
const T_BOOL = 4;
const T_ERROR = 5;
const T_DATE = 6;

const AMP = 0x26;
const UNDERSCORE = 0x5f;

const ROW_END = Buffer.from('row>', 'latin1');
const ROW_CLOSE = Buffer.from('</row>', 'latin1');

/** A row longer than this is read tag by tag rather than kept back whole for the next chunk. */
const FAST_ROW_MAX = 1024 * 1024;

/** Node's Buffer methods behind toString(encoding), without its argument handling (not in @types/node). */
interface SliceBuffer {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

const fromCharCode = String.fromCharCode;

/** Bytes [s, e) are ASCII without `&` or `_`: their text is their bytes, nothing to decode. */
function plainText(buf: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) {
    const b = buf[k]!;
    if (b >= 0x80 || b === AMP || b === UNDERSCORE) return false;
  }
  return true;
}

/** The text of plain bytes (see plainText). */
function asciiText(buf: Buffer, s: number, e: number): string {
  if (e - s > 12) return (buf as unknown as SliceBuffer).latin1Slice(s, e);
  let t = '';
  for (let k = s; k < e; k++) t += fromCharCode(buf[k]!);
  return t;
}

/**
 * A cell's UTF-8 bytes → its text, entities and OOXML escapes decoded. Text of ASCII bytes without `&`
 * or `_` (numbers, dates, most articles) is built straight from the bytes: for a few characters that
 * is cheaper than a call into Node's decoder, and it is the same string.
 */
function decodeText(buf: Buffer, s: number, e: number): string {
  if (plainText(buf, s, e)) return asciiText(buf, s, e);
  let t = (buf as unknown as SliceBuffer).utf8Slice(s, e);
  if (t.indexOf('&') >= 0) t = decodeEntities(t);
  if (t.indexOf('_x') >= 0) t = decodeOoxmlEscapes(t);
  return t;
}

const TEXT_CACHE_SLOTS = 1024;
const TEXT_CACHE_BYTES = 64;

/**
 * The decoded text of recently seen non-ASCII cells, by their bytes: operation and document types,
 * subjects, brands and articles repeat on most rows. A hit costs a hash and a comparison of the bytes
 * instead of Node's UTF-8 decoder, and hands out the same string object, whose hash the aggregator's
 * maps then need not compute again. Direct-mapped, a fixed 64 KB: a miss replaces the slot.
 */
export class TextCache {
  private readonly bytes: Uint8Array;
  private readonly lengths: Int32Array;
  private readonly texts: string[];
  private readonly mask: number;

  /** `slots`: a power of two. */
  constructor(slots = TEXT_CACHE_SLOTS) {
    this.mask = slots - 1;
    this.bytes = new Uint8Array(slots * TEXT_CACHE_BYTES);
    this.lengths = new Int32Array(slots).fill(-1);
    this.texts = new Array<string>(slots).fill('');
  }

  /** decodeText(buf, s, e), meant for text that is not plain ASCII. */
  decode(buf: Buffer, s: number, e: number): string {
    const length = e - s;
    if (length > TEXT_CACHE_BYTES) return decodeText(buf, s, e);
    let h = length;
    for (let k = s; k < e; k++) h = Math.imul(h ^ buf[k]!, 0x01000193);
    const slot = (h ^ (h >>> 15)) & this.mask;
    const at = slot * TEXT_CACHE_BYTES;
    const bytes = this.bytes;
    if (this.lengths[slot] === length) {
      let k = 0;
      while (k < length && bytes[at + k] === buf[s + k]) k++;
      if (k === length) return this.texts[slot]!;
    }
    const text = decodeText(buf, s, e);
    for (let k = 0; k < length; k++) bytes[at + k] = buf[s + k]!;
    this.lengths[slot] = length;
    this.texts[slot] = text;
    return text;
  }
}

/** Target of a cell's text while the header row is being read. */
const HEADER_TARGET = -2;

function cellTooLong(max: number): ReportError {
  return new ReportError('cell_too_long', `A cell holds more than ${max} characters; such a file is refused.`, {
    max_cell_length: max,
  });
}

/**
 * Tag/text tokenizer over byte chunks. Subclasses get each complete tag (`<` … `>`); the character
 * data after a tag is collected only when the subclass sets `inText` (as byte ranges, decoded at the
 * end of the element, so a multi-byte character split across chunks is whole again).
 */
export abstract class XmlByteScanner {
  /** Set to stop scanning (the rest of the part is of no interest). */
  done = false;
  protected inText = false;
  /** Set by a tag handler to have `skip` move past what follows the tag. */
  protected wantSkip = false;
  /** Set by a subclass to have `fast` tried at every tag. */
  protected fastOn = false;
  /** Set by `fast`: what lies at the position it returned continues beyond the buffer. */
  protected fastMore = false;
  private tail: Buffer | null = null;
  /** The tail is an unfinished element the fast path left, not an unfinished tag. */
  private tailIsRow = false;

  // The current text: one byte range (the usual case) or, across chunks and rich-text runs, parts.
  protected segBuf: Buffer | null = null;
  protected segStart = 0;
  protected segEnd = 0;
  protected parts: Buffer[] | null = null;
  protected rawLen = 0;
  /** The text has a byte other than XML white space. */
  protected nonWs = false;
  protected readonly rawCap: number;

  constructor(protected readonly maxCellLength: number) {
    this.rawCap = maxCellLength * RAW_BYTES_PER_CHAR + 64;
  }

  feed(chunk: Buffer): void {
    const tail = this.tail;
    if (tail === null) {
      this.scan(chunk);
      return;
    }
    this.tail = null;
    // Join the unfinished tail with only the head of the chunk (up to a point the subclass names), not
    // the whole chunk: copying every chunk would cost as much as a second pass over the sheet.
    const split = this.joinPoint(chunk);
    if (split <= 0 || split >= chunk.length) {
      this.scan(Buffer.concat([tail, chunk]));
      return;
    }
    this.scan(Buffer.concat([tail, chunk.subarray(0, split)]));
    if (this.done) return;
    const rest = chunk.subarray(split);
    const again = this.tail as Buffer | null;
    if (again === null) {
      this.scan(rest);
    } else {
      this.tail = null;
      this.scan(Buffer.concat([again, rest]));
    }
  }

  /** Input ended: whatever the fast path kept back is scanned tag by tag (`pendingTag` then tells). */
  end(): void {
    const tail = this.tail;
    if (tail === null || !this.tailIsRow || this.done) return;
    this.tail = null;
    this.tailIsRow = false;
    this.fastOn = false;
    this.scan(tail);
  }

  private scan(buf: Buffer): void {
    const n = buf.length;
    let p = 0;
    this.tailIsRow = false;
    while (p < n && !this.done) {
      if (this.inText) {
        let q = p;
        while (q < n && buf[q] !== LT) q++;
        if (q > p) this.addText(buf, p, q);
        if (q === n) return;
        this.inText = false;
        p = q;
      } else if (buf[p] !== LT) {
        // Character data nobody reads (white space, formulas): jump to the next tag.
        p = buf.indexOf(LT, p);
        if (p < 0) return;
      }
      if (this.fastOn) {
        const to = this.fast(buf, p);
        if (this.fastMore) {
          if (n - to < FAST_ROW_MAX) {
            this.tail = buf.subarray(to);
            this.tailIsRow = true;
            return;
          }
          p = to; // a row too long to keep back whole: tag by tag
        } else if (to !== p) {
          p = to;
          continue;
        }
      }
      let q = p + 1;
      while (q < n && buf[q] !== GT) q++;
      if (q === n) {
        if (n - p > MAX_TAG_BYTES) throw asCorrupt(new Error('an XML tag is too long'), 'The spreadsheet');
        this.tail = buf.subarray(p);
        return;
      }
      this.tag(buf, p, q);
      p = q + 1;
      if (this.wantSkip) {
        this.wantSkip = false;
        const to = this.skip(buf, p);
        if (to >= 0) p = to;
      }
    }
  }

  /** Where a chunk may be cut so the tail is joined with its head only; 0: join the whole chunk. */
  protected joinPoint(_chunk: Buffer): number {
    return 0;
  }

  /**
   * A faster path for what starts at buf[p] (`<`), tried while `fastOn`: returns the position after
   * what it consumed (p: nothing, the tag is tokenized as usual), and sets `fastMore` when what lies
   * there continues beyond the buffer.
   */
  protected fast(_buf: Buffer, p: number): number {
    this.fastMore = false;
    return p;
  }

  /** Where scanning may resume after `p` without looking at the bytes between; -1: nowhere, go on. */
  protected skip(_buf: Buffer, _p: number): number {
    return -1;
  }

  /** Whether the input ended in the middle of a tag. */
  get pendingTag(): boolean {
    return this.tail !== null;
  }

  /** A complete tag: buf[start] is `<`, buf[end] is `>`. */
  protected abstract tag(buf: Buffer, start: number, end: number): void;

  protected resetText(): void {
    this.segBuf = null;
    this.parts = null;
    this.rawLen = 0;
    this.nonWs = false;
  }

  private addText(buf: Buffer, s: number, e: number): void {
    this.rawLen += e - s;
    if (this.rawLen > this.rawCap) throw cellTooLong(this.maxCellLength);
    if (!this.nonWs) {
      for (let i = s; i < e; i++) {
        const b = buf[i];
        if (b !== SP && b !== LF && b !== CR && b !== TAB) {
          this.nonWs = true;
          break;
        }
      }
    }
    if (this.segBuf === null) {
      this.segBuf = buf;
      this.segStart = s;
      this.segEnd = e;
    } else {
      if (this.parts === null) this.parts = [this.segBuf.subarray(this.segStart, this.segEnd)];
      this.parts.push(buf.subarray(s, e));
    }
  }

  /** The current text decoded (UTF-8, entities, OOXML escapes), length-checked. */
  protected text(): string {
    if (this.segBuf === null) return '';
    let s: string;
    if (this.parts === null) {
      s = decodeText(this.segBuf, this.segStart, this.segEnd);
    } else {
      const whole = Buffer.concat(this.parts);
      s = decodeText(whole, 0, whole.length);
    }
    if (s.length > this.maxCellLength) throw cellTooLong(this.maxCellLength);
    return s;
  }

  /** The current text read as a non-negative integer (a shared-string index), -1 if it is not one. */
  protected textIndex(): number {
    if (this.segBuf === null) return -1;
    if (this.parts === null) return digitsIndex(this.segBuf, this.segStart, this.segEnd);
    const whole = Buffer.concat(this.parts);
    return digitsIndex(whole, 0, whole.length);
  }
}

/** Shared strings (xl/sharedStrings.xml): every string's blankness, and the text of the kept ones. */
export interface SharedStrings {
  readonly count: number;
  /** 1 where the string is empty or white space only. */
  readonly blank: Uint8Array;
  /** The string, or undefined when it was not kept (count-only mode). */
  get(index: number): string | undefined;
}

class SharedStringsScanner extends XmlByteScanner implements SharedStrings {
  count = 0;
  blank = new Uint8Array(1024);
  private readonly strings: Array<string | undefined> = [];
  private inSi = false;
  private inRph = false;

  constructor(
    maxCellLength: number,
    private readonly keep: (index: number) => boolean,
  ) {
    super(maxCellLength);
  }

  get(index: number): string | undefined {
    return this.strings[index];
  }

  protected tag(buf: Buffer, start: number, end: number): void {
    let i = start + 1;
    let close = false;
    if (buf[i] === SLASH) {
      close = true;
      i++;
    } else if (buf[i] === QMARK || buf[i] === BANG) {
      return;
    }
    let ns = i;
    while (i < end) {
      const b = buf[i];
      if (b === SP || b === SLASH || b === TAB || b === LF || b === CR) break;
      if (b === COLON) ns = i + 1;
      i++;
    }
    const len = i - ns;
    const selfClosing = !close && buf[end - 1] === SLASH;
    const c0 = buf[ns];
    if (len === 2 && c0 === 0x73 && buf[ns + 1] === 0x69) {
      // <si>
      if (close) {
        if (this.inSi) this.endString();
      } else {
        this.resetText();
        this.inRph = false;
        this.inSi = true;
        if (selfClosing) this.endString();
      }
    } else if (len === 1 && c0 === 0x74) {
      // <t>: plain text or one rich-text run; runs concatenate.
      if (!close && !selfClosing && this.inSi && !this.inRph) this.inText = true;
    } else if (len === 3 && c0 === 0x72 && buf[ns + 1] === 0x50 && buf[ns + 2] === 0x68) {
      // <rPh>: phonetic reading, not part of the value.
      this.inRph = !close && !selfClosing;
    }
  }

  private endString(): void {
    this.inSi = false;
    const index = this.count++;
    if (index >= this.blank.length) {
      const grown = new Uint8Array(this.blank.length * 2);
      grown.set(this.blank);
      this.blank = grown;
    }
    this.blank[index] = this.nonWs ? 0 : 1;
    if (this.keep(index)) {
      this.strings.push(this.text());
    } else {
      if (this.rawLen > this.maxCellLength) this.text();
      this.strings.push(undefined);
    }
  }
}

/** What the sheet scan found besides the rows handed to the sink. */
export interface SheetScanResult {
  rows: number;
  /** The header row was found (false: the sheet has no non-empty row at all). */
  header: boolean;
  columns: ColumnMap | null;
}

export class SheetScanner extends XmlByteScanner {
  rows = 0;
  columns: ColumnMap | null = null;
  /** Header cells whose shared strings were not kept (count-only mode): column → string index. */
  readonly pendingHeader = new Map<number, number>();
  readonly headers = new Map<number, string>();
  headerDone = false;

  private toMetric: Int16Array | null = null;
  /** What `skip` jumps to: the end of the current cell or of the current row. */
  private skipToCellEnd = false;
  /** The last column the sink reads (-1 when only counting). */
  private lastWanted = -1;
  private readonly texts = new TextCache();
  /** Where fastRow last gave up (read tag by tag instead). */
  private bailedBuf: Buffer | null = null;
  private bailedAt = -1;
  private readonly cells: Array<string | undefined> = new Array<string | undefined>(METRIC_KEYS.length).fill(undefined);
  private cellsDirty = false;
  private inRow = false;
  private rowNonEmpty = false;
  private inCell = false;
  private inIs = false;
  private inRph = false;
  private col = -1;
  private type = T_NUMBER;
  private target = -1;

  constructor(
    private readonly sst: SharedStrings | null,
    private readonly sink: RowSink | null,
    private readonly limits: ReadLimits,
  ) {
    super(limits.maxCellLength);
  }

  protected tag(buf: Buffer, start: number, end: number): void {
    let i = start + 1;
    let b = buf[i];
    let close = false;
    if (b === SLASH) {
      close = true;
      i++;
    } else if (b === QMARK || b === BANG) {
      return;
    }
    let ns = i;
    while (i < end) {
      b = buf[i];
      if (b === SP || b === SLASH || b === TAB || b === LF || b === CR) break;
      if (b === COLON) ns = i + 1;
      i++;
    }
    const len = i - ns;
    const c0 = buf[ns];
    if (len === 1) {
      if (c0 === 0x63) {
        // <c>
        if (close) {
          this.endCell();
          // The row counts and nothing further right is read: jump to its end.
          if (this.rowNonEmpty && this.headerDone && this.col >= this.lastWanted) {
            this.skipToCellEnd = false;
            this.wantSkip = true;
          }
        } else {
          this.startCell(buf, i, end);
        }
      } else if (c0 === 0x76) {
        // <v>: the value (number text, shared-string index, str text, bool, error)
        if (!close && this.inCell && buf[end - 1] !== SLASH) this.inText = true;
      } else if (c0 === 0x74) {
        // <t> inside <is>: inline string text, rich-text runs concatenated
        if (!close && this.inIs && !this.inRph && buf[end - 1] !== SLASH) this.inText = true;
      }
    } else if (len === 3) {
      if (c0 === 0x72 && buf[ns + 1] === 0x6f && buf[ns + 2] === 0x77) {
        // <row>
        if (close) this.endRow();
        else if (buf[end - 1] !== SLASH) this.startRow();
      } else if (c0 === 0x72 && buf[ns + 1] === 0x50 && buf[ns + 2] === 0x68) {
        // <rPh>: phonetic run, not part of the value
        this.inRph = !close && buf[end - 1] !== SLASH;
      }
    } else if (len === 2) {
      if (c0 === 0x69 && buf[ns + 1] === 0x73) this.inIs = !close && this.inCell && buf[end - 1] !== SLASH;
    } else if (len === 9 && close && c0 === 0x73 && buf.toString('latin1', ns, i) === 'sheetData') {
      this.done = true;
    }
  }

  /**
   * The position of this row's end tag when it lies within the buffer and close enough that no cell in
   * between can break the cell-length cap; -1 otherwise (the cells are then scanned one by one).
   * Text cannot hold `<`, so the first `</row>` (or `</x:row>`) is the row's.
   */
  protected override skip(buf: Buffer, p: number): number {
    const limit = Math.min(buf.length, p + this.maxCellLength);
    if (this.skipToCellEnd) return cellEnd(buf, p, limit);
    return rowEnd(buf, p, limit);
  }

  protected override joinPoint(chunk: Buffer): number {
    const i = chunk.indexOf(ROW_CLOSE);
    return i < 0 ? 0 : i + ROW_CLOSE.length;
  }

  /**
   * Whole data rows from buf[p] on, as long as they are complete in the buffer and written the way
   * spreadsheet writers write rows (see fastRow). Stops at anything else (the tag is then tokenized
   * as usual) and at a row that continues beyond the buffer (`fastMore`: it is kept for the next chunk).
   */
  protected override fast(buf: Buffer, p: number): number {
    let at = p;
    let more = false;
    if (!this.inRow && !(buf === this.bailedBuf && p === this.bailedAt)) {
      const n = buf.length;
      // Rows starting before the last `</row>` lie wholly in the buffer, so reading one never has to
      // stop for want of bytes (a rare path of that kind in the hot loop would cost a deoptimization).
      let last = -2;
      for (;;) {
        if (at >= n) break;
        if (at + 5 > n) {
          more = true;
          break;
        }
        if (buf[at] !== LT || buf[at + 1] !== 0x72 || buf[at + 2] !== 0x6f || buf[at + 3] !== 0x77) break;
        const b = buf[at + 4];
        if (b !== GT && b !== SP && b !== TAB && b !== LF && b !== CR) break;
        if (last === -2) last = buf.lastIndexOf(ROW_CLOSE);
        if (last <= at) {
          more = true;
          break;
        }
        const next = this.fastRow(buf, at, last + ROW_CLOSE.length);
        if (next < 0) {
          // Read tag by tag from here; remembered so the next call does not try the row again.
          this.bailedBuf = buf;
          this.bailedAt = at;
          break;
        }
        at = next;
        while (at < n && buf[at] !== LT) at++;
      }
    }
    this.fastMore = more;
    return at;
  }

  /**
   * The data row starting at buf[p], which ends before n: `<row …>` then cells `<c …>` holding
   * nothing, `<v>text</v>` or `<is><t>text</t></is>` (an `<f>` formula before them is passed over),
   * then `</row>`. Anything else (prefixed or rich-text tags, `<v/>`, comments, a cell that would be
   * refused) gives -1 before any state changes, and the row is read tag by tag from its start: the
   * rules here are those of `tag`, `startCell`, `endCell`, `skip` and `endRow` for such rows, applied
   * without the per-tag work. Returns the position after the row.
   */
  private fastRow(buf: Buffer, p: number, n: number): number {
    let i = p + 4;
    while (i < n && buf[i] !== GT) i++;
    if (i >= n || buf[i - 1] === SLASH) return -1;
    i++;
    let b = 0;

    const tm = this.toMetric;
    const tmLength = tm === null ? 0 : tm.length;
    const sst = this.sst;
    const cells = this.cells;
    const lastWanted = this.lastWanted;
    const maxLength = this.maxCellLength;
    const rawCap = this.rawCap;
    let col = -1;
    let nonEmpty = false;
    let dirty = false;
    let result = -1;
    rows: for (;;) {
      while (i < n && buf[i] !== LT) i++;
      if (i + 6 > n) break;
      if (buf[i + 1] === SLASH) {
        if (buf[i + 2] === 0x72 && buf[i + 3] === 0x6f && buf[i + 4] === 0x77 && buf[i + 5] === GT) {
          result = i + 6;
        }
        break;
      }
      // <c …>
      if (buf[i + 1] !== 0x63) break;
      b = buf[i + 2]!;
      if (b !== SP && b !== GT && b !== SLASH && b !== TAB && b !== LF && b !== CR) break;
      // Its attributes in one pass, in the form writers use (name="value" or name='value', white space
      // between); anything else is read tag by tag. The tag ends at the first `>`, as in `scan`.
      let k = i + 2;
      let r = -1;
      let type = T_NUMBER;
      let gt = -1;
      while (k < n) {
        b = buf[k]!;
        if (b === GT) {
          gt = k;
          break;
        }
        if (b === SP || b === TAB || b === LF || b === CR) {
          k++;
          continue;
        }
        if (b === SLASH) {
          if (k + 1 < n && buf[k + 1] !== GT) break rows;
          k++;
          continue;
        }
        const an = k;
        while (k < n && (b = buf[k]!) !== EQ && b > SP && b !== GT && b !== SLASH) k++;
        if (k + 1 >= n) break rows;
        if (b !== EQ) break rows;
        const q = buf[++k];
        if (q !== QUOTE && q !== APOS) break rows;
        const vs = ++k;
        while (k < n && (b = buf[k]!) !== q && b !== GT) k++;
        if (k >= n) break rows;
        if (b === GT) break rows;
        if (an + 1 === vs - 2) {
          const a = buf[an];
          if (a === 0x72) r = parseColumn(buf, vs, k);
          else if (a === 0x74) type = parseType(buf, vs, k);
        }
        k++;
      }
      if (gt < 0) break;
      const selfClosing = buf[gt - 1] === SLASH;
      col = r >= 0 ? r : col + 1;
      if (col >= MAX_COLUMNS) break;
      i = gt + 1;
      if (selfClosing) continue;
      const target = col < tmLength ? (tm as Int16Array)[col] : -1;

      // The cell's content: [ts, te) is its text (none when equal).
      let ts = 0;
      let te = 0;
      for (;;) {
        while (i < n && buf[i] !== LT) i++;
        if (i + 5 > n) break rows;
        b = buf[i + 1]!;
        if (b === SLASH) {
          if (buf[i + 2] === 0x63 && buf[i + 3] === GT) break;
          break rows;
        }
        if (te !== ts) break rows; // a second text (generic reading concatenates): rare, read tag by tag
        if (b === 0x76) {
          // <v>text</v>
          if (buf[i + 2] !== GT) break rows;
          ts = i + 3;
          te = ts;
          te = textEnd(buf, te, n);
          if (te + 4 > n) break rows;
          if (buf[te + 1] !== SLASH || buf[te + 2] !== 0x76 || buf[te + 3] !== GT) break rows;
          i = te + 4;
        } else if (b === 0x69) {
          // <is><t …>text</t></is>
          if (buf[i + 2] !== 0x73 || buf[i + 3] !== GT) break rows;
          i += 4;
          while (i < n && buf[i] !== LT) i++;
          if (i + 3 > n) break rows;
          if (buf[i + 1] !== 0x74) break rows;
          b = buf[i + 2]!;
          if (b === GT) {
            ts = i + 3;
          } else if (b === SP || b === TAB || b === LF || b === CR) {
            let g = i + 3;
            while (g < n && buf[g] !== GT) g++;
            if (g >= n) break rows;
            if (buf[g - 1] === SLASH) break rows;
            ts = g + 1;
          } else {
            break rows;
          }
          te = ts;
          te = textEnd(buf, te, n);
          if (te + 9 > n) break rows;
          if (buf[te + 1] !== SLASH || buf[te + 2] !== 0x74 || buf[te + 3] !== GT) break rows;
          i = te + 4;
          while (i < n && buf[i] !== LT) i++;
          if (i + 5 > n) break rows;
          if (buf[i + 1] !== SLASH || buf[i + 2] !== 0x69 || buf[i + 3] !== 0x73 || buf[i + 4] !== GT) break rows;
          i += 5;
        } else if (b === 0x66) {
          // <f …>formula</f> or <f …/>: not read
          b = buf[i + 2]!;
          if (b !== GT && b !== SP && b !== SLASH && b !== TAB && b !== LF && b !== CR) break rows;
          let g = i + 2;
          while (g < n && buf[g] !== GT) g++;
          if (g >= n) break rows;
          i = g + 1;
          if (buf[g - 1] !== SLASH) {
            while (i < n && buf[i] !== LT) i++;
            if (i + 4 > n) break rows;
            if (buf[i + 1] !== SLASH || buf[i + 2] !== 0x66 || buf[i + 3] !== GT) break rows;
            i += 4;
          }
        } else {
          break rows;
        }
      }
      // buf[i] is the `<` of `</c>`.
      const cellClose = i;
      i += 4;
      if (te > ts && !(target === -1 && nonEmpty && cellClose + 3 < gt + 1 + maxLength)) {
        // What endCell does with the text (a cell skipped by `skip` has none).
        if (type === T_SHARED) {
          const index = digitsIndex(buf, ts, te);
          if (sst === null || index < 0 || index >= sst.count) break;
          if (sst.blank[index] === 0) nonEmpty = true;
          if (target !== -1) {
            const value = sst.get(index);
            if (value !== undefined && value !== '') {
              cells[target!] = value;
              dirty = true;
            }
          }
        } else {
          const rawLength = te - ts;
          if (rawLength > rawCap) break;
          if (!nonEmpty) {
            for (let k = ts; k < te; k++) {
              b = buf[k]!;
              if (b !== SP && b !== LF && b !== CR && b !== TAB) {
                nonEmpty = true;
                break;
              }
            }
          }
          if (target === -1) {
            if (rawLength > maxLength) break;
          } else {
            const value = plainText(buf, ts, te) ? asciiText(buf, ts, te) : this.texts.decode(buf, ts, te);
            if (value.length > maxLength) break;
            if (value !== '') {
              cells[target!] = value;
              dirty = true;
            }
          }
        }
      }
      if (nonEmpty && col >= lastWanted) {
        // The row counts and nothing further right is read: its end, as `skip` finds it.
        const limit = i + maxLength;
        const end = rowEnd(buf, i, Math.min(n, limit));
        if (end >= 0) {
          if (buf[end + 2] === 0x72) result = end + 6; // `</row>`, not `</x:row>`
          break;
        }
      }
    }
    if (result < 0) {
      if (dirty) cells.fill(undefined);
      return -1;
    }
    this.inRow = true;
    this.rowNonEmpty = nonEmpty;
    this.col = col;
    if (dirty) this.cellsDirty = true;
    this.endRow();
    return result;
  }

  private startRow(): void {
    this.inRow = true;
    this.rowNonEmpty = false;
    this.col = -1;
  }

  private startCell(buf: Buffer, i: number, end: number): void {
    const selfClosing = buf[end - 1] === SLASH;
    parseCellAttributes(buf, i, selfClosing ? end - 1 : end);
    let col = cellCol;
    const type = cellType;
    // A cell without r= is the one after the previous cell.
    col = col >= 0 ? col : this.col + 1;
    if (col >= MAX_COLUMNS) throw asCorrupt(new Error(`a cell lies beyond column XFD`), 'The spreadsheet');
    this.col = col;
    if (selfClosing || !this.inRow) return;
    this.inCell = true;
    this.inIs = false;
    this.inRph = false;
    this.type = type;
    if (!this.headerDone) this.target = HEADER_TARGET;
    else {
      const tm = this.toMetric;
      this.target = tm !== null && col < tm.length ? tm[col]! : -1;
      // A cell nobody reads in a row already known to count: jump to its end tag.
      if (this.target === -1 && this.rowNonEmpty) {
        this.skipToCellEnd = true;
        this.wantSkip = true;
      }
    }
    this.resetText();
  }

  private endCell(): void {
    if (!this.inCell) return;
    this.inCell = false;
    this.inIs = false;
    this.inText = false;
    if (this.segBuf === null) return;
    const target = this.target;
    let value: string | undefined;
    if (this.type === T_SHARED) {
      const sst = this.sst;
      const index = this.textIndex();
      if (sst === null || index < 0 || index >= sst.count) {
        throw asCorrupt(new Error(`a cell refers to a missing shared string`), 'The spreadsheet');
      }
      if (sst.blank[index] === 0) this.rowNonEmpty = true;
      if (target === -1) return;
      value = sst.get(index);
      if (value === undefined && target === HEADER_TARGET) {
        this.pendingHeader.set(this.col, index);
        return;
      }
    } else {
      if (this.nonWs) this.rowNonEmpty = true;
      if (target === -1) {
        // Not decoded, but the length cap applies to every cell.
        if (this.rawLen > this.maxCellLength) this.text();
        return;
      }
      value = this.text();
    }
    if (value === undefined || value === '') return;
    if (target === HEADER_TARGET) {
      this.headers.set(this.col, value);
    } else {
      this.cells[target] = value;
      this.cellsDirty = true;
    }
  }

  private endRow(): void {
    if (!this.inRow) return;
    this.inRow = false;
    this.inCell = false;
    if (!this.headerDone) {
      if (this.rowNonEmpty) this.finishHeader();
      else {
        this.headers.clear();
        this.pendingHeader.clear();
      }
      return;
    }
    if (this.rowNonEmpty) {
      if (++this.rows > this.limits.maxRows) {
        throw new ReportError('too_many_rows', `The report has more than ${this.limits.maxRows} rows.`, {
          max_rows: this.limits.maxRows,
        });
      }
      if (this.sink !== null) this.sink.row(this.cells);
    }
    if (this.cellsDirty) {
      this.cells.fill(undefined);
      this.cellsDirty = false;
    }
  }

  private finishHeader(): void {
    this.headerDone = true;
    this.fastOn = true;
    // Count-only mode with header text not at hand: validated by the caller after the scan.
    if (this.pendingHeader.size > 0) return;
    this.applyHeader();
  }

  /** Maps the header row (throws missing_headers) and starts the sink. */
  applyHeader(): void {
    this.columns = mapHeaderRow(this.headers);
    if (this.sink !== null) {
      this.toMetric = this.columns.toMetric;
      this.toMetric.forEach((index, col) => {
        if (index >= 0) this.lastWanted = col;
      });
      this.sink.begin(this.columns.present);
    }
  }
}

/**
 * The position of the `</c>` (or `</x:c>`) closing the current cell when it lies before `limit`, else -1.
 * Text cannot hold `<`, so the first closing tag named c is the cell's.
 */
function cellEnd(buf: Buffer, p: number, limit: number): number {
  for (let i = p; i + 3 < limit; i++) {
    if (buf[i] !== LT || buf[i + 1] !== SLASH) continue;
    let j = i + 2;
    if (buf[j] === 0x63 && buf[j + 1] === GT) return i;
    while (j < limit && buf[j] !== COLON && buf[j] !== GT && buf[j]! > SP) j++;
    if (buf[j] === COLON && buf[j + 1] === 0x63 && buf[j + 2] === GT) return i;
  }
  return -1;
}

/**
 * The position of the `</row>` (or `</x:row>`) ending the current row when its `row>` ends before
 * `limit`, else -1. Text cannot hold `<`, so the first closing tag named row is the row's.
 */
function rowEnd(buf: Buffer, p: number, limit: number): number {
  let i = p;
  for (;;) {
    i = buf.indexOf(ROW_END, i);
    if (i < 0 || i + ROW_END.length > limit) return -1;
    let j = i - 1;
    if (buf[j] === COLON) {
      j--;
      while (j > p && buf[j] !== SLASH && buf[j] !== LT && buf[j]! > SP) j--;
    }
    if (buf[j] === SLASH && buf[j - 1] === LT) return j - 1;
    i += ROW_END.length;
  }
}

/** What parseCellAttributes found (module scratch, so reading a cell allocates nothing). */
let cellCol = -1;
let cellType = T_NUMBER;

/** The `r` (column, -1 when absent) and `t` (type) attributes of a `<c` tag's bytes [k, stop). */
function parseCellAttributes(buf: Buffer, k: number, stop: number): void {
  let col = -1;
  let type = T_NUMBER;
  while (k < stop) {
    if (buf[k]! <= SP) {
      k++;
      continue;
    }
    const an = k;
    while (k < stop && buf[k] !== EQ && buf[k]! > SP) k++;
    const anLen = k - an;
    while (k < stop && buf[k] !== QUOTE && buf[k] !== APOS) k++;
    if (k >= stop) break;
    const q = buf[k++];
    const vs = k;
    while (k < stop && buf[k] !== q) k++;
    const ve = k++;
    if (anLen === 1) {
      const a = buf[an];
      if (a === 0x72) col = parseColumn(buf, vs, ve);
      else if (a === 0x74) type = parseType(buf, vs, ve);
    }
  }
  cellCol = col;
  cellType = type;
}

/**
 * Where the text starting at buf[s] ends (its `<`), n if not in the buffer: a short text (a number)
 * by looking, a longer one by Buffer.indexOf, whose call costs as much as a dozen bytes looked at.
 */
function textEnd(buf: Buffer, s: number, n: number): number {
  const stop = s + 16 < n ? s + 16 : n;
  for (let i = s; i < stop; i++) if (buf[i] === LT) return i;
  if (stop === n) return n;
  const i = buf.indexOf(LT, stop);
  return i < 0 ? n : i;
}

/** Bytes [s, e) read as a non-negative integer (white space allowed), -1 if they are not one. */
function digitsIndex(buf: Buffer, s: number, e: number): number {
  let v = 0;
  let digits = 0;
  for (let i = s; i < e; i++) {
    const b = buf[i]!;
    if (b >= 0x30 && b <= 0x39) {
      v = v * 10 + (b - 0x30);
      digits++;
    } else if (b !== SP && b !== LF && b !== CR && b !== TAB) {
      return -1;
    }
  }
  return digits > 0 && digits < 16 ? v : -1;
}

function parseColumn(buf: Buffer, s: number, e: number): number {
  let c = 0;
  for (let k = s; k < e; k++) {
    const b = buf[k]!;
    if (b >= 0x41 && b <= 0x5a) c = c * 26 + (b - 0x40);
    else if (b >= 0x61 && b <= 0x7a) c = c * 26 + (b - 0x60);
    else break;
    if (c > MAX_COLUMNS) return MAX_COLUMNS;
  }
  return c - 1;
}

function parseType(buf: Buffer, s: number, e: number): number {
  const len = e - s;
  const c0 = buf[s];
  if (len === 1) {
    if (c0 === 0x73) return T_SHARED;
    if (c0 === 0x62) return T_BOOL;
    if (c0 === 0x65) return T_ERROR;
    if (c0 === 0x64) return T_DATE;
    return T_NUMBER;
  }
  if (len === 3 && c0 === 0x73) return T_STR;
  if (len === 9 && c0 === 0x69) return T_INLINE;
  return T_NUMBER;
}

// ---- package parts -------------------------------------------------------------------------------

const SMALL_PART_BYTES = 32 * 1024 * 1024;

interface SheetParts {
  sheet: Entry;
  sharedStrings: Entry | null;
}

function attr(attrs: string, name: string): string | null {
  const m = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attrs);
  return m ? decodeEntities((m[1] ?? m[2])!) : null;
}

/** Resolves a relationship target relative to xl/ (or absolute from the package root). */
function resolveTarget(target: string): string {
  const segments = target.startsWith('/') ? [] : ['xl'];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') segments.pop();
    else segments.push(part);
  }
  return segments.join('/');
}

async function readSmallPart(zip: ZipArchive, entry: Entry): Promise<string> {
  const buf = await zip.read(entry, SMALL_PART_BYTES, () =>
    asCorrupt(new Error(`${entry.fileName} is implausibly large`), 'The spreadsheet'),
  );
  return buf.toString('utf8');
}

/** The first sheet (workbook order, via its relationship) and the shared strings part, if any. */
async function locateParts(zip: ZipArchive): Promise<SheetParts> {
  let sheet: Entry | undefined;
  let sharedStrings: Entry | undefined;
  const workbook = zip.find('xl/workbook.xml');
  const rels = zip.find('xl/_rels/workbook.xml.rels');
  if (workbook && rels) {
    const wb = await readSmallPart(zip, workbook);
    const relText = await readSmallPart(zip, rels);
    const first = /<(?:[\w.-]+:)?sheet\b([^>]*)>/.exec(wb);
    const relId = first ? attr(first[1]!, 'id') : null;
    for (const m of relText.matchAll(/<(?:[\w.-]+:)?Relationship\b([^>]*)>/g)) {
      const id = attr(m[1]!, 'Id');
      const type = attr(m[1]!, 'Type') ?? '';
      const target = attr(m[1]!, 'Target');
      if (target === null) continue;
      if (relId !== null && id === relId) sheet = zip.find(resolveTarget(target));
      else if (type.endsWith('/sharedStrings')) sharedStrings = zip.find(resolveTarget(target));
    }
  }
  sheet ??=
    zip.find('xl/worksheets/sheet1.xml') ??
    zip.entries.find((e) => /^\/?xl\/worksheets\/[^/]+\.xml$/i.test(e.fileName));
  sharedStrings ??= zip.find('xl/sharedStrings.xml');
  if (!sheet) throw asCorrupt(new Error('the workbook has no worksheet'), 'The spreadsheet');
  return { sheet, sharedStrings: sharedStrings ?? null };
}

async function readSharedStrings(
  zip: ZipArchive,
  entry: Entry,
  limits: ReadLimits,
  keep: (index: number) => boolean,
  options: ZipStreamOptions,
): Promise<SharedStringsScanner> {
  const scanner = new SharedStringsScanner(limits.maxCellLength, keep);
  for await (const chunk of zip.stream(entry, options)) scanner.feed(chunk);
  return scanner;
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
  for await (const chunk of zip.stream(parts.sheet, options)) {
    scanner.feed(chunk);
    if (scanner.done) break;
  }
  scanner.end();
  if (!scanner.done && scanner.pendingTag) {
    throw asCorrupt(new Error('the sheet ends in the middle'), 'The spreadsheet');
  }

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

// ---- any columns, row by row (small tables: the catalog import) -----------------------------------

/** What `scanXlsxCells` lets the row callback do. */
export interface CellScanControl {
  /** Read only these columns (0-based) from the next row on; cells further right are skipped unread. */
  select(columns: readonly number[]): void;
  /** Stop reading the sheet. */
  stop(): void;
}

/** A row's number (1-based, the `r` of `<row>`) and its non-empty cells by column (0-based). */
export type CellRowCallback = (rowNumber: number, cells: ReadonlyMap<number, string>, control: CellScanControl) => void;

/**
 * The sheet's cells as text, row by row, for tables whose header is found by the caller (not the report
 * header mapping). Until `select` is called every column below `maxColumns` is read; after it only the
 * selected ones are decoded and the rest of each row is jumped over, so a sheet of 120 columns costs
 * little more than one of 2. Numbers come as JavaScript writes them ("1E-3" → "0.001"), shared strings
 * as their text. Memory: one row's cells.
 */
class CellRowScanner extends XmlByteScanner implements CellScanControl {
  private wanted: Uint8Array | null = null;
  private lastWanted: number;
  private cells = new Map<number, string>();
  private rowNumber = 0;
  private inRow = false;
  private inCell = false;
  private inIs = false;
  private inRph = false;
  private col = -1;
  private type = T_NUMBER;
  private skipToCellEnd = false;

  constructor(
    private readonly sst: SharedStrings | null,
    maxCellLength: number,
    private readonly maxColumns: number,
    private readonly onRow: CellRowCallback,
  ) {
    super(maxCellLength);
    this.lastWanted = maxColumns - 1;
  }

  select(columns: readonly number[]): void {
    const max = Math.max(-1, ...columns);
    this.wanted = new Uint8Array(max + 1);
    for (const c of columns) if (c >= 0) this.wanted[c] = 1;
    this.lastWanted = max;
  }

  stop(): void {
    this.done = true;
  }

  protected tag(buf: Buffer, start: number, end: number): void {
    let i = start + 1;
    let b = buf[i];
    let close = false;
    if (b === SLASH) {
      close = true;
      i++;
    } else if (b === QMARK || b === BANG) {
      return;
    }
    let ns = i;
    while (i < end) {
      b = buf[i];
      if (b === SP || b === SLASH || b === TAB || b === LF || b === CR) break;
      if (b === COLON) ns = i + 1;
      i++;
    }
    const len = i - ns;
    const c0 = buf[ns];
    const selfClosing = buf[end - 1] === SLASH;
    if (len === 1) {
      if (c0 === 0x63) {
        if (close) {
          this.endCell();
          if (this.col >= this.lastWanted) this.skipRest(false);
        } else this.startCell(buf, i, selfClosing ? end - 1 : end, selfClosing);
      } else if (c0 === 0x76) {
        if (!close && this.inCell && !selfClosing) this.inText = true;
      } else if (c0 === 0x74) {
        if (!close && this.inIs && !this.inRph && !selfClosing) this.inText = true;
      }
    } else if (len === 3) {
      if (c0 === 0x72 && buf[ns + 1] === 0x6f && buf[ns + 2] === 0x77) {
        if (close) this.endRow();
        else {
          const r = rowAttribute(buf, i, selfClosing ? end - 1 : end);
          this.rowNumber = r > 0 ? r : this.rowNumber + 1;
          this.inRow = !selfClosing;
          this.col = -1;
        }
      } else if (c0 === 0x72 && buf[ns + 1] === 0x50 && buf[ns + 2] === 0x68) {
        this.inRph = !close && !selfClosing;
      }
    } else if (len === 2) {
      if (c0 === 0x69 && buf[ns + 1] === 0x73) this.inIs = !close && this.inCell && !selfClosing;
    } else if (len === 9 && close && c0 === 0x73 && buf.toString('latin1', ns, i) === 'sheetData') {
      this.done = true;
    }
  }

  protected override skip(buf: Buffer, p: number): number {
    const limit = Math.min(buf.length, p + this.maxCellLength * RAW_BYTES_PER_CHAR);
    return this.skipToCellEnd ? cellEnd(buf, p, limit) : rowEnd(buf, p, limit);
  }

  private skipRest(cellOnly: boolean): void {
    this.skipToCellEnd = cellOnly;
    this.wantSkip = true;
  }

  private startCell(buf: Buffer, i: number, stop: number, selfClosing: boolean): void {
    parseCellAttributes(buf, i, stop);
    const col = cellCol >= 0 ? cellCol : this.col + 1;
    if (col >= MAX_COLUMNS) throw asCorrupt(new Error('a cell lies beyond column XFD'), 'The spreadsheet');
    this.col = col;
    if (selfClosing || !this.inRow) return;
    const wanted = this.wanted === null ? col < this.maxColumns : col < this.wanted.length && this.wanted[col] === 1;
    if (!wanted) {
      this.skipRest(col < this.lastWanted);
      return;
    }
    this.inCell = true;
    this.inIs = false;
    this.inRph = false;
    this.type = cellType;
    this.resetText();
  }

  private endCell(): void {
    if (!this.inCell) return;
    this.inCell = false;
    this.inIs = false;
    this.inText = false;
    if (this.segBuf === null) return;
    let value: string | undefined;
    if (this.type === T_SHARED) {
      const index = this.textIndex();
      if (this.sst === null || index < 0 || index >= this.sst.count) {
        throw asCorrupt(new Error('a cell refers to a missing shared string'), 'The spreadsheet');
      }
      value = this.sst.get(index);
    } else {
      value = this.text();
      if (this.type === T_NUMBER) {
        const n = Number(value);
        if (value.trim() !== '' && Number.isFinite(n)) value = String(n);
      }
    }
    if (value !== undefined && value !== '') this.cells.set(this.col, value);
  }

  private endRow(): void {
    if (!this.inRow) return;
    this.inRow = false;
    this.inCell = false;
    if (this.cells.size === 0) return;
    const cells = this.cells;
    this.cells = new Map();
    this.onRow(this.rowNumber, cells, this);
  }
}

/** The `r` attribute of a `<row` tag's bytes [k, stop) as a positive integer, 0 when absent. */
function rowAttribute(buf: Buffer, k: number, stop: number): number {
  while (k < stop) {
    if (buf[k]! <= SP) {
      k++;
      continue;
    }
    const an = k;
    while (k < stop && buf[k] !== EQ && buf[k]! > SP) k++;
    const anLen = k - an;
    while (k < stop && buf[k] !== QUOTE && buf[k] !== APOS) k++;
    if (k >= stop) break;
    const q = buf[k++];
    const vs = k;
    while (k < stop && buf[k] !== q) k++;
    const ve = k++;
    if (anLen === 1 && buf[an] === 0x72) return Math.max(0, digitsIndex(buf, vs, ve));
  }
  return 0;
}

/**
 * Reads the first sheet of an .xlsx package cell by cell into `onRow` (see CellRowScanner), under the
 * same caps as reports: the archive's inflate budget, the cell length, and the shared strings read
 * through the same byte scanner.
 */
export async function scanXlsxCells(
  zip: ZipArchive,
  limits: ReadLimits,
  maxColumns: number,
  onRow: CellRowCallback,
): Promise<void> {
  const parts = await locateParts(zip);
  const sst = parts.sharedStrings ? await readSharedStrings(zip, parts.sharedStrings, limits, () => true, {}) : null;
  const scanner = new CellRowScanner(sst, limits.maxCellLength, maxColumns, onRow);
  for await (const chunk of zip.stream(parts.sheet)) {
    scanner.feed(chunk);
    if (scanner.done) break;
  }
  scanner.end();
  if (!scanner.done && scanner.pendingTag) {
    throw asCorrupt(new Error('the sheet ends in the middle'), 'The spreadsheet');
  }
}
