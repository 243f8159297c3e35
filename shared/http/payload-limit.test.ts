import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  checkRequestSize,
  fitResponse,
  LAMBDA_PAYLOAD_BYTES,
  MAX_BODY_BYTES,
  MAX_INLINE_FILE_BYTES,
} from './payload-limit';

const bigJson = (bytes: number) => JSON.stringify({ items: 'x'.repeat(bytes) });

describe('Lambda payload limit', () => {
  it('a file at the inline cap still fits once base64-encoded in a multipart body', () => {
    const multipartOverhead = 1024;
    expect(Math.ceil((MAX_INLINE_FILE_BYTES + multipartOverhead) / 3) * 4).toBeLessThan(MAX_BODY_BYTES);
    expect(MAX_BODY_BYTES).toBeLessThan(LAMBDA_PAYLOAD_BYTES);
  });

  it('a request body over the limit is 413 request_too_large; at the limit it passes', () => {
    expect(() => checkRequestSize('a'.repeat(MAX_BODY_BYTES))).not.toThrow();
    expect(() => checkRequestSize('a'.repeat(MAX_BODY_BYTES + 1))).toThrow(
      expect.objectContaining({ status: 413, code: 'request_too_large' }),
    );
  });

  it('an answer under the limit is sent as it is', () => {
    const r = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: bigJson(1000) };
    expect(fitResponse(r, undefined)).toBe(r);
  });

  it('an answer over the limit goes gzip-compressed when the client accepts gzip, and says so', () => {
    const body = bigJson(7 * 1024 * 1024);
    const r = fitResponse({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body }, 'gzip, br');
    expect(r.isBase64Encoded).toBe(true);
    expect(r.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    expect(Buffer.byteLength(r.body!)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(gunzipSync(Buffer.from(r.body!, 'base64')).toString()).toBe(body);
  });

  it('an answer over the limit is 406 response_too_large when the client takes no gzip', () => {
    const r = { statusCode: 200, headers: {}, body: bigJson(7 * 1024 * 1024) };
    expect(() => fitResponse(r, undefined)).toThrow(
      expect.objectContaining({ status: 406, code: 'response_too_large' }),
    );
    expect(() => fitResponse(r, 'br')).toThrow(expect.objectContaining({ code: 'response_too_large' }));
  });

  it('an answer that does not shrink enough, or is binary already, is 406 whatever the client takes', () => {
    const noise = randomBytes(5 * 1024 * 1024).toString('base64'); // 6.7 MB of text that gzip cannot halve
    expect(() => fitResponse({ statusCode: 200, body: noise }, 'gzip')).toThrow(
      expect.objectContaining({ code: 'response_too_large' }),
    );
    expect(() => fitResponse({ statusCode: 200, body: noise, isBase64Encoded: true }, 'gzip')).toThrow(
      expect.objectContaining({ code: 'response_too_large' }),
    );
  });
});
