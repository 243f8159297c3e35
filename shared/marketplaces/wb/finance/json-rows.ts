/**
 * A JSON array of objects read from a byte stream in batches (WB's detailed page: up to 100 000 rows,
 * ~210 MB of JSON). The whole text is never held, and the bytes are not walked one by one in JavaScript:
 * each chunk is cut after its last `}`, and the stretch from the first unread element to that brace is
 * given to JSON.parse as one array. When the parse succeeds, the stretch was whole elements (a brace
 * inside a string or a nested object leaves an unterminated string or an unbalanced bracket, and the parse
 * fails); when it fails, the brace before is tried, and then the bytes are walked to find the last whole
 * element (or the stretch waits for more bytes when even the first is not whole). The cut is
 * always at an ASCII `}`, so a UTF-8 character is never split: the bytes of non-ASCII characters are all
 * ≥ 0x80.
 *
 * Each batch comes with its bytes exactly as they arrived (`raw`), so the caller can keep the text as sent
 * without writing it again (shared/marketplaces/wb/finance/page-body.ts stores WB's pages that way).
 */

export type ArrayRead = { kind: 'ok'; count: number } | { kind: 'empty' } | { kind: 'invalid'; message: string };

export interface ReadArrayOptions {
  /** Several arrays one after another (whitespace between): the stored pages of a report, joined. */
  sequence?: boolean;
  /**
   * `latin1`: each byte becomes one character, so a non-ASCII letter comes out as its UTF-8 bytes. The
   * structure, numbers, booleans and ASCII text are what UTF-8 would give, at a fraction of the cost (no
   * decoding, and V8 parses one-byte text faster): for checking values, never for reading text. Default
   * `utf8`.
   */
  text?: 'utf8' | 'latin1';
}

/** Parsed elements of one batch, in order, with the bytes they were parsed from (`{…},{…}`). */
export type OnElements = (values: object[], raw: Uint8Array, firstIndex: number) => void | Promise<void>;

const CLOSE_BRACE = 125;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const QUOTE = 34;
const BACKSLASH = 92;
/** Last braces tried per chunk before the bytes are walked (lastWholeElement). */
const TRIES = 2;
/** An unparsed stretch longer than this is not an element being cut short: it is not JSON. */
const MAX_PENDING = 4 * 1024 * 1024;

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i]!;
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

function tryParse(buf: Buffer, from: number, to: number, text: 'utf8' | 'latin1'): unknown[] | null {
  try {
    return JSON.parse(`[${buf.toString(text, from, to)}]`) as unknown[];
  } catch {
    return null;
  }
}

/**
 * The careful way, when the last braces of a chunk do not end a stretch of whole elements (a brace inside a
 * string, a nested object, the end of one array and the start of the next): walks the bytes from `pos`
 * (an element's `{`) and gives the end (exclusive) of the last whole element before the buffer ends or the
 * array closes, or -1 when the first is not whole yet.
 */
function lastWholeElement(buf: Buffer, pos: number): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let last = -1;
  for (let i = pos; i < buf.length; i++) {
    const c = buf[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) return last; // the array's own `]`
      if (--depth === 0) last = i + 1;
    }
  }
  return last;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Calls `onElements` for every stretch of elements of the array in `chunks`, in order (awaiting it when it
 * returns a promise). An element that is not an object, a body that is not one array (or, with
 * `sequence`, arrays), or one cut short → `invalid`; no bytes or no elements → `empty`. `onElements` may
 * throw to stop (the error propagates).
 */
export async function readJsonArray(
  chunks: AsyncIterable<Uint8Array>,
  onElements: OnElements,
  options: ReadArrayOptions = {},
): Promise<ArrayRead> {
  /** start: before `[`; open: after `[` or `,` (an element next, or `]` right after `[`); after: after an element. */
  let state: 'start' | 'open' | 'after' | 'done' = 'start';
  let first = true;
  let count = 0;
  let pending: Buffer | null = null;
  const invalid = (message: string): ArrayRead => ({ kind: 'invalid', message });

  for await (const chunk of chunks) {
    const incoming = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const buf: Buffer = pending ? Buffer.concat([pending, incoming]) : incoming;
    pending = null;
    let pos = 0;
    for (;;) {
      pos = skipSpace(buf, pos);
      if (pos >= buf.length) break;
      const c = buf[pos]!;
      if (state === 'start' || state === 'done') {
        if (c !== OPEN_BRACKET) return invalid(state === 'start' ? 'expected an array' : 'data after the array');
        if (state === 'done' && !options.sequence) return invalid('data after the array');
        state = 'open';
        first = true;
        pos++;
        continue;
      }
      if (state === 'after') {
        if (c === COMMA) state = 'open';
        else if (c === CLOSE_BRACKET) state = 'done';
        else return invalid(`after element ${count - 1}: expected , or ]`);
        first = false;
        pos++;
        continue;
      }
      // open
      if (c === CLOSE_BRACKET && first) {
        state = 'done';
        pos++;
        continue;
      }
      if (c !== OPEN_BRACE) return invalid(`element ${count}: expected an object`);
      let end = buf.lastIndexOf(CLOSE_BRACE);
      let values: unknown[] | null = null;
      for (let t = 0; t < TRIES && end > pos; t++) {
        values = tryParse(buf, pos, end + 1, options.text ?? 'utf8');
        if (values) break;
        end = buf.lastIndexOf(CLOSE_BRACE, end - 1);
      }
      if (!values) {
        const whole = lastWholeElement(buf, pos);
        if (whole > pos) {
          end = whole - 1;
          values = tryParse(buf, pos, whole, options.text ?? 'utf8');
          if (!values) return invalid(`element ${count} or one after it is not JSON`);
        }
      }
      if (!values) {
        if (buf.length - pos > MAX_PENDING) return invalid(`element ${count} is not JSON`);
        pending = Buffer.from(buf.subarray(pos));
        break;
      }
      for (let k = 0; k < values.length; k++) {
        if (!isObject(values[k])) return invalid(`element ${count + k}: expected an object`);
      }
      const done = onElements(values as object[], buf.subarray(pos, end + 1), count);
      if (done) await done;
      count += values.length;
      state = 'after';
      pos = end + 1;
    }
  }
  if (pending) return invalid(`element ${count} is not JSON, or the array is cut short`);
  const end = state as string;
  if (end === 'start') return { kind: 'empty' };
  if (end !== 'done') return invalid('the array is cut short');
  return count === 0 ? { kind: 'empty' } : { kind: 'ok', count };
}
