/**
 * Lambda's payload limit (6 MB for a synchronous invocation, request and response alike) holds on AWS
 * whatever the local stack allows (serverless-offline takes 10 MB). The HTTP stack checks both sides on
 * every route, so a route behaves the same locally and on AWS:
 *
 * - a request whose body, as API Gateway hands it (base64 for binary), is over the limit → 413
 *   `request_too_large` (on AWS it would never reach the function; files that big go by presigned PUT);
 * - an answer over the limit is gzip-compressed when the client accepts gzip, else (or when it is still
 *   too big) replaced by 406 `response_too_large`. No answer over the limit is ever sent.
 *
 * The sizes count the body as sent (base64 text for binary answers) plus the headers, with headroom for
 * API Gateway's envelope.
 */
import { gzipSync } from 'node:zlib';
import { AppError } from '../errors';
import type { HttpResult } from './responses';

export const LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** What the event or answer envelope (request context, headers, JSON quoting) may take besides the body. */
const ENVELOPE_BYTES = 64 * 1024;
export const MAX_BODY_BYTES = LAMBDA_PAYLOAD_BYTES - ENVELOPE_BYTES;
/** The largest file a multipart request can carry within the limit: base64 grows it by 4/3. */
export const MAX_INLINE_FILE_BYTES = Math.floor((MAX_BODY_BYTES * 3) / 4) - 16 * 1024;

export function checkRequestSize(body: unknown): void {
  if (typeof body !== 'string') return;
  const size = Buffer.byteLength(body, 'utf8');
  if (size > MAX_BODY_BYTES)
    throw new AppError(413, 'request_too_large', 'The request is larger than a Lambda payload', {
      max_bytes: MAX_BODY_BYTES,
      bytes: size,
    });
}

function sizeOf(r: HttpResult): number {
  const headers = Object.entries(r.headers ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  return Buffer.byteLength(r.body ?? '', 'utf8') + headers;
}

/** The answer as it may be sent: itself, gzip-compressed, or the 406 error. */
export function fitResponse(r: HttpResult, acceptEncoding: string | undefined): HttpResult {
  if (sizeOf(r) <= MAX_BODY_BYTES) return r;
  const headers = r.headers ?? {};
  const encoded = Object.keys(headers).some((k) => k.toLowerCase() === 'content-encoding');
  if (!encoded && !r.isBase64Encoded && /\bgzip\b/i.test(acceptEncoding ?? '')) {
    const zipped: HttpResult = {
      ...r,
      headers: { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' },
      body: gzipSync(r.body ?? '', { level: 6 }).toString('base64'),
      isBase64Encoded: true,
    };
    if (sizeOf(zipped) <= MAX_BODY_BYTES) return zipped;
  }
  throw new AppError(406, 'response_too_large', 'The answer is larger than a Lambda payload', {
    max_bytes: MAX_BODY_BYTES,
    bytes: sizeOf(r),
  });
}
