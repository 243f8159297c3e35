/**
 * XmlByteScanner: the tag/text tokenizer under every part the .xlsx reader scans (shared strings,
 * sheets). It hands each complete tag to its subclass, collects the character data the subclass asks
 * for as byte ranges, and carries only an unfinished tag (or row, for a fast path) across chunks.
 */
import { ReportError } from '../errors';
import * as bytes from './xml-bytes';
import { asCorrupt } from './zip';

// Module-local copies of the byte constants and hot helpers: read through an import, each use in the
// byte loops is a property access on the other module under per-file transforms (tsx, vitest) — a
// 300k-row sheet took 19 s instead of 3 s that way; a bundle (Lambda) inlines them either way.
const { BANG, COLON, CR, GT, LF, LT, QMARK, SLASH, SP, TAB, decodeText, digitsIndex } = bytes;

/** A single tag longer than this is not a spreadsheet (the longest real ones are namespace lists). */
const MAX_TAG_BYTES = 1024 * 1024;
/** Raw bytes per character no encoding of a legal cell reaches (entities like "&#x1F600;" are the widest). */
export const RAW_BYTES_PER_CHAR = 12;

/** A row longer than this is read tag by tag rather than kept back whole for the next chunk. */
const FAST_ROW_MAX = 1024 * 1024;

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
  /** Set by `tagName`: the tag closes an element (`</…>`). */
  protected closing = false;
  /** Set by `tagName`: where the tag's local name starts (after any namespace prefix). */
  protected nameAt = 0;

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

  /**
   * The length of the local name of the tag buf[start..end] (`x:row` → `row`), with `closing` and
   * `nameAt` set; -1 for a declaration, comment or processing instruction (`<?`, `<!`), which no
   * scanner reads.
   */
  protected tagName(buf: Buffer, start: number, end: number): number {
    let i = start + 1;
    let b = buf[i];
    let close = false;
    if (b === SLASH) {
      close = true;
      i++;
    } else if (b === QMARK || b === BANG) {
      return -1;
    }
    let ns = i;
    while (i < end) {
      b = buf[i];
      if (b === SP || b === SLASH || b === TAB || b === LF || b === CR) break;
      if (b === COLON) ns = i + 1;
      i++;
    }
    this.closing = close;
    this.nameAt = ns;
    return i - ns;
  }

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
