/**
 * SheetScanner: the report's worksheet read as bytes. The header row is mapped to the metric columns,
 * then every data row goes to the sink with the cells of those columns decoded and the rest jumped
 * over; rows written the way spreadsheet writers write them take a fast path (fastRow), anything else
 * the tag-by-tag reading of SheetTagScanner, with the same result.
 */
import { ReportError } from '../errors';
import { METRIC_KEYS, type RowSink } from '../row-sink';
import { mapHeaderRow, type ColumnMap } from './headers';
import type { ReadLimits } from './limits';
import type { SharedStrings } from './shared-strings';
import { SheetTagScanner } from './sheet-tags';
import * as tags from './sheet-tags';
import { ValueCheck } from './values';
import { TextCache } from './xml-bytes';
import * as bytes from './xml-bytes';

// Module-local copies of the byte constants and hot helpers: read through an import, each use in the
// byte loops is a property access on the other module under per-file transforms (tsx, vitest) — a
// 300k-row sheet took 19 s instead of 3 s that way; a bundle (Lambda) inlines them either way.
const { MAX_COLUMNS, T_NUMBER, T_SHARED, parseColumn, parseType, rowEnd, rowNumber } = tags;
const { APOS, CR, EQ, GT, LF, LT, QUOTE, SLASH, SP, TAB, asciiText, digitsIndex, plainText } = bytes;

/** Target of a cell's text while the header row is being read. */
const HEADER_TARGET = -2;

const ROW_CLOSE = Buffer.from('</row>', 'latin1');

export class SheetScanner extends SheetTagScanner {
  rows = 0;
  columns: ColumnMap | null = null;
  /** Header cells whose shared strings were not kept (count-only mode): column → string index. */
  readonly pendingHeader = new Map<number, number>();
  readonly headers = new Map<number, string>();
  headerDone = false;

  private toMetric: Int16Array | null = null;
  /** The last column the sink reads (-1 when only counting). */
  private lastWanted = -1;
  private readonly texts = new TextCache();
  /** Where fastRow last gave up (read tag by tag instead). */
  private bailedBuf: Buffer | null = null;
  private bailedAt = -1;
  private readonly cells: Array<string | undefined> = new Array<string | undefined>(METRIC_KEYS.length).fill(undefined);
  private cellsDirty = false;
  private rowNonEmpty = false;
  private target = -1;
  /** Number cells checked before a row reaches the sink (values.ts); null when only counting. */
  private valueCheck: ValueCheck | null = null;
  /**
   * Where the current row's number comes from, for messages naming a cell: `<row>` elements seen, the
   * `r` of a row read tag by tag, or the row tag's place in the buffer (fastRow: parsed only when asked).
   */
  private rowElements = 0;
  private rowR = 0;
  private rowBuf: Buffer | null = null;
  private rowAt = -1;
  private readonly sheetRow = (): number => {
    let r = this.rowR;
    const buf = this.rowBuf;
    if (buf !== null) {
      const gt = buf.indexOf(GT, this.rowAt);
      r = gt < 0 ? 0 : rowNumber(buf, this.rowAt + 4, gt);
    }
    return r > 0 ? r : this.rowElements;
  };

  constructor(
    sst: SharedStrings | null,
    private readonly sink: RowSink | null,
    private readonly limits: ReadLimits,
  ) {
    // `skip` looks no further than the cell length cap, so no cell it jumps over can break the cap
    // (else the cells are scanned one by one).
    super(sst, limits.maxCellLength, limits.maxCellLength);
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
    this.rowElements++;
    this.rowBuf = buf;
    this.rowAt = p;
    this.endRow();
    return result;
  }

  protected startRow(buf: Buffer, k: number, stop: number, selfClosing: boolean): void {
    this.rowElements++;
    this.rowBuf = null;
    if (selfClosing) return;
    if (this.valueCheck !== null) this.rowR = rowNumber(buf, k, stop);
    this.inRow = true;
    this.rowNonEmpty = false;
    this.col = -1;
  }

  protected startCell(col: number): boolean {
    if (!this.headerDone) this.target = HEADER_TARGET;
    else {
      const tm = this.toMetric;
      this.target = tm !== null && col < tm.length ? tm[col]! : -1;
      // A cell nobody reads in a row already known to count: jump to its end tag.
      if (this.target === -1 && this.rowNonEmpty) this.skipRest(true);
    }
    return true;
  }

  protected endCell(): void {
    if (this.closeCell()) this.takeCell();
    // The row counts and nothing further right is read: jump to its end.
    if (this.rowNonEmpty && this.headerDone && this.col >= this.lastWanted) this.skipRest(false);
  }

  /** The closed cell's value: into the header, the row's cells, or (unread) only its blankness. */
  private takeCell(): void {
    const target = this.target;
    let value: string | undefined;
    if (this.type === T_SHARED) {
      const index = this.textIndex();
      const sst = this.sharedStrings(index);
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

  protected endRow(): void {
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
      if (this.sink !== null) {
        if (this.valueCheck !== null) this.valueCheck.check(this.cells, this.sheetRow);
        this.sink.row(this.cells);
      }
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
      this.valueCheck = new ValueCheck(this.columns, (col) => this.headers.get(col) ?? '');
      this.sink.begin(this.columns.present);
    }
  }
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
