/**
 * The tag-by-tag reading of a worksheet's `<sheetData>`, shared by the report's sheet scanner and the
 * catalog import's cell scanner: rows, cells with their column and type, which character data is a
 * cell's value, `</sheetData>` ending the scan, and the jumps past a cell or the rest of a row. What a
 * cell's value becomes is the subclass's. Also the byte-level helpers of cells and rows both use.
 */
import type { SharedStrings } from './shared-strings';
import * as bytes from './xml-bytes';
import { XmlByteScanner } from './xml-scanner';
import { asCorrupt } from './zip';

// Module-local copies of the byte constants and hot helpers: read through an import, each use in the
// byte loops is a property access on the other module under per-file transforms (tsx, vitest) — a
// 300k-row sheet took 19 s instead of 3 s that way; a bundle (Lambda) inlines them either way.
const { APOS, BANG, COLON, CR, EQ, GT, LF, LT, QMARK, QUOTE, SLASH, SP, TAB, digitsIndex } = bytes;

/** Excel's last column is XFD. */
export const MAX_COLUMNS = 16384;

/** Cell types (the `t` attribute). */
export const T_NUMBER = 0;
export const T_SHARED = 1;
const T_STR = 2;
const T_INLINE = 3;
const T_BOOL = 4;
const T_ERROR = 5;
const T_DATE = 6;

const ROW_END = Buffer.from('row>', 'latin1');

/**
 * The tag-by-tag reading of rows and cells (see the file comment). A subclass says what a row's start
 * and end, a cell's start and its `</c>` mean; this class keeps the state they share.
 */
export abstract class SheetTagScanner extends XmlByteScanner {
  protected inRow = false;
  protected inCell = false;
  protected inIs = false;
  protected inRph = false;
  /** The current cell's column (0-based): the last cell's between cells, -1 before a row's first. */
  protected col = -1;
  /** The current cell's type (T_NUMBER, T_SHARED, …). */
  protected type = T_NUMBER;
  /** What `skip` jumps to: the end of the current cell or of the current row. */
  private skipToCellEnd = false;

  constructor(
    protected readonly sst: SharedStrings | null,
    maxCellLength: number,
    /** How far past a tag `skip` looks for the end tag it jumps to. */
    private readonly skipSpan: number,
  ) {
    super(maxCellLength);
  }

  protected tag(buf: Buffer, start: number, end: number): void {
    // The local name as `tagName` reads it, written out here: this is the hot path of tag-by-tag
    // reading, and the call cost ~4% CPU on an x:-prefixed Excel sheet of 100k rows.
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
        // <c>
        if (close) this.endCell();
        else this.openCell(buf, ns + 1, selfClosing ? end - 1 : end, selfClosing);
      } else if (c0 === 0x76) {
        // <v>: the value (number text, shared-string index, str text, bool, error)
        if (!close && this.inCell && !selfClosing) this.inText = true;
      } else if (c0 === 0x74) {
        // <t> inside <is>: inline string text, rich-text runs concatenated
        if (!close && this.inIs && !this.inRph && !selfClosing) this.inText = true;
      }
    } else if (len === 3) {
      if (c0 === 0x72 && buf[ns + 1] === 0x6f && buf[ns + 2] === 0x77) {
        // <row>
        if (close) this.endRow();
        else this.startRow(buf, ns + 3, selfClosing ? end - 1 : end, selfClosing);
      } else if (c0 === 0x72 && buf[ns + 1] === 0x50 && buf[ns + 2] === 0x68) {
        // <rPh>: phonetic run, not part of the value
        this.inRph = !close && !selfClosing;
      }
    } else if (len === 2) {
      if (c0 === 0x69 && buf[ns + 1] === 0x73) this.inIs = !close && this.inCell && !selfClosing;
    } else if (len === 9 && close && c0 === 0x73 && buf.toString('latin1', ns, ns + 9) === 'sheetData') {
      this.done = true;
    }
  }

  /** A `<row …>` tag, its attributes in buf[k, stop). */
  protected abstract startRow(buf: Buffer, k: number, stop: number, selfClosing: boolean): void;

  /** A `</row>` tag. */
  protected abstract endRow(): void;

  /**
   * A cell with content in a row, at `col`: whether its value is read. A cell not read is not opened
   * (its `</c>` still comes to `endCell`); the subclass may have `skipRest` jump past it.
   */
  protected abstract startCell(col: number): boolean;

  /** A `</c>` tag: `closeCell` says whether the cell has a value to take. */
  protected abstract endCell(): void;

  /** The `<c` tag's attributes in buf[k, stop): the cell's column and type, the cell opened if read. */
  private openCell(buf: Buffer, k: number, stop: number, selfClosing: boolean): void {
    refAndType(buf, k, stop);
    let col = refStart >= 0 ? parseColumn(buf, refStart, refEnd) : -1;
    // A cell without r= is the one after the previous cell.
    if (col < 0) col = this.col + 1;
    if (col >= MAX_COLUMNS) throw asCorrupt(new Error('a cell lies beyond column XFD'), 'The spreadsheet');
    this.col = col;
    if (selfClosing || !this.inRow) return;
    const type = typeStart >= 0 ? parseType(buf, typeStart, typeEnd) : T_NUMBER;
    if (!this.startCell(col)) return;
    this.inCell = true;
    this.inIs = false;
    this.inRph = false;
    this.type = type;
    this.resetText();
  }

  /** Closes the open cell; true when it has a value (its text is then at hand). */
  protected closeCell(): boolean {
    if (!this.inCell) return false;
    this.inCell = false;
    this.inIs = false;
    this.inText = false;
    return this.segBuf !== null;
  }

  /** The shared strings, `index` checked against them: a cell referring to a missing one is corrupt. */
  protected sharedStrings(index: number): SharedStrings {
    const sst = this.sst;
    if (sst === null || index < 0 || index >= sst.count) {
      throw asCorrupt(new Error('a cell refers to a missing shared string'), 'The spreadsheet');
    }
    return sst;
  }

  /** Has `skip` jump past the rest of the current cell, or of the current row. */
  protected skipRest(cellOnly: boolean): void {
    this.skipToCellEnd = cellOnly;
    this.wantSkip = true;
  }

  protected override skip(buf: Buffer, p: number): number {
    const limit = Math.min(buf.length, p + this.skipSpan);
    return this.skipToCellEnd ? cellEnd(buf, p, limit) : rowEnd(buf, p, limit);
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
export function rowEnd(buf: Buffer, p: number, limit: number): number {
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

/** Where refAndType found the `r` and `t` attributes' values: [start, end), start -1 when absent. */
let refStart = -1;
let refEnd = -1;
let typeStart = -1;
let typeEnd = -1;

/**
 * The `r` and `t` attributes of a `<c` or `<row` tag's bytes [k, stop), into the module's scratch
 * (so reading a tag allocates nothing).
 */
function refAndType(buf: Buffer, k: number, stop: number): void {
  refStart = -1;
  typeStart = -1;
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
      if (a === 0x72) {
        refStart = vs;
        refEnd = ve;
      } else if (a === 0x74) {
        typeStart = vs;
        typeEnd = ve;
      }
    }
  }
}

/** The `r` attribute of a `<row` tag's bytes [k, stop) as a positive integer, 0 when absent. */
export function rowNumber(buf: Buffer, k: number, stop: number): number {
  refAndType(buf, k, stop);
  return refStart >= 0 ? Math.max(0, digitsIndex(buf, refStart, refEnd)) : 0;
}

export function parseColumn(buf: Buffer, s: number, e: number): number {
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

export function parseType(buf: Buffer, s: number, e: number): number {
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
