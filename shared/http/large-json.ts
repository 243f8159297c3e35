/**
 * JSON answers that carry a whole report. A Lambda answer is capped at 6 MB; a report's items take
 * ~1.5 KB each in JSON, so a report with a few thousand articles would not fit. JSON of numbers
 * shrinks ~10× with gzip, and every browser asks for it: big bodies go gzip-encoded (base64 for API
 * Gateway, which passes the bytes and the Content-Encoding through). At gzip level 1: on a 5,000-article
 * report (~7 MB of JSON) it compresses in a fifth of level 6's time for ~15% more bytes, and the first
 * open of a report is bounded by this CPU time, not by the bytes (docs/PERFORMANCE.md).
 */
import { gzipSync } from 'node:zlib';
import type { HttpResult } from './responses';

/** Bodies above this size are compressed when the client accepts gzip. */
export const GZIP_FROM_BYTES = 256 * 1024;
/** zlib's fastest level (see the file comment). */
export const GZIP_LEVEL = 1;

export function reportJson(status: number, body: unknown, acceptEncoding: string | undefined): HttpResult {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    Vary: 'Accept-Encoding',
  };
  if (Buffer.byteLength(text, 'utf8') < GZIP_FROM_BYTES || !/\bgzip\b/i.test(acceptEncoding ?? '')) {
    return { statusCode: status, headers, body: text };
  }
  return {
    statusCode: status,
    headers: { ...headers, 'Content-Encoding': 'gzip' },
    body: gzipSync(text, { level: GZIP_LEVEL }).toString('base64'),
    isBase64Encoded: true,
  };
}
