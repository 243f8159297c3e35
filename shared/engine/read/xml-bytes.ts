/**
 * The bytes of spreadsheet XML: the ASCII codes the scanners look for, and the decoding of a cell's
 * bytes into its text (UTF-8, entities, OOXML escapes), with TextCache for texts that repeat.
 */
import { decodeEntities, decodeOoxmlEscapes } from './xml-text';

export const LT = 0x3c;
export const GT = 0x3e;
export const SLASH = 0x2f;
export const QUOTE = 0x22;
export const APOS = 0x27;
export const EQ = 0x3d;
export const COLON = 0x3a;
export const SP = 0x20;
export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const QMARK = 0x3f;
export const BANG = 0x21;
const AMP = 0x26;
const UNDERSCORE = 0x5f;

/** Node's Buffer methods behind toString(encoding), without its argument handling (not in @types/node). */
interface SliceBuffer {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

const fromCharCode = String.fromCharCode;

/** Bytes [s, e) are ASCII without `&` or `_`: their text is their bytes, nothing to decode. */
export function plainText(buf: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) {
    const b = buf[k]!;
    if (b >= 0x80 || b === AMP || b === UNDERSCORE) return false;
  }
  return true;
}

/** The text of plain bytes (see plainText). */
export function asciiText(buf: Buffer, s: number, e: number): string {
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
export function decodeText(buf: Buffer, s: number, e: number): string {
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

/** Bytes [s, e) read as a non-negative integer (white space allowed), -1 if they are not one. */
export function digitsIndex(buf: Buffer, s: number, e: number): number {
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
