/**
 * A JSON array of objects read element by element from a byte stream (WB's detailed page: up to 100 000
 * rows, ~210 MB of JSON). The whole text is never held: bytes are scanned for the top-level elements
 * (strings and escapes tracked, nesting counted), and each element's bytes are decoded and parsed on
 * their own, so memory holds one element's text at a time besides what the caller keeps. UTF-8 bytes of
 * non-ASCII characters are all ≥ 0x80 and never look like JSON punctuation.
 */

type State = 'start' | 'first' | 'next' | 'element' | 'after' | 'done';

export type ArrayRead = { kind: 'ok'; count: number } | { kind: 'empty' } | { kind: 'invalid'; message: string };

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * Calls `onElement(parsed, index)` for every element of the array in `chunks`, in order. An element that
 * is not an object, a body that is not one array, or one cut short → `invalid`; no bytes at all → `empty`.
 * `onElement` may throw to stop (the error propagates).
 */
export async function readJsonArray(
  chunks: AsyncIterable<Uint8Array>,
  onElement: (value: unknown, index: number) => void,
): Promise<ArrayRead> {
  let state: State = 'start';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: Buffer[] = [];
  let count = 0;
  const invalid = (message: string): ArrayRead => ({ kind: 'invalid', message });
  // Elements wholly inside one chunk are parsed together, as one array of that stretch of text (the
  // commas between them are already there): one decode and one JSON.parse per chunk, not per row.
  let batchStart = -1;
  let batchEnd = -1;
  const flush = (chunk: Uint8Array): string | null => {
    if (batchStart < 0) return null;
    const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString('utf8', batchStart, batchEnd);
    batchStart = -1;
    let values: unknown[];
    try {
      values = JSON.parse(`[${text}]`) as unknown[];
    } catch {
      return `elements before ${count} are not JSON`;
    }
    for (const v of values) onElement(v, count++);
    return null;
  };
  for await (const chunk of chunks) {
    let start = state === 'element' ? 0 : -1;
    let carried = state === 'element';
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (state === 'element') {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) inString = false;
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (--depth === 0) {
            state = 'after';
            if (!carried) {
              if (batchStart < 0) batchStart = start;
              batchEnd = i + 1;
              continue;
            }
            // Begun in an earlier chunk: parsed on its own (it comes before this chunk's batch).
            carried = false;
            const bytes = Buffer.concat([...parts, chunk.subarray(start, i + 1)]);
            parts = [];
            let value: unknown;
            try {
              value = JSON.parse(bytes.toString('utf8'));
            } catch {
              return invalid(`element ${count} is not JSON`);
            }
            onElement(value, count++);
          }
        }
        continue;
      }
      if (isSpace(c)) continue;
      switch (state) {
        case 'start':
          if (c !== OPEN_BRACKET) return invalid('expected an array');
          state = 'first';
          break;
        case 'first':
        case 'next':
          if (c === CLOSE_BRACKET && state === 'first') state = 'done';
          else if (c === OPEN_BRACE) {
            state = 'element';
            depth = 1;
            inString = false;
            escaped = false;
            start = i;
          } else return invalid(`element ${count}: expected an object`);
          break;
        case 'after':
          if (c === COMMA) state = 'next';
          else if (c === CLOSE_BRACKET) state = 'done';
          else return invalid(`after element ${count - 1}: expected , or ]`);
          break;
        case 'done':
          return invalid('data after the array');
      }
    }
    const bad = flush(chunk);
    if (bad) return invalid(bad);
    if (state === 'element') parts.push(Buffer.from(chunk.subarray(start)));
  }
  const end = state as State;
  if (end === 'start') return { kind: 'empty' };
  if (end !== 'done') return invalid('the array is cut short');
  return count === 0 ? { kind: 'empty' } : { kind: 'ok', count };
}
