import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GZIP_FROM_BYTES, reportJson } from './large-json';

const big = {
  items: Array.from({ length: 4_000 }, (_, i) => ({ article: `A-${i}`, sales: i * 1.5, pad: 'x'.repeat(60) })),
};

describe('reportJson', () => {
  it('a big body goes gzip-encoded (base64) to a client that accepts gzip, and decodes to the same JSON', () => {
    const r = reportJson(200, big, 'gzip, deflate, br');
    expect(JSON.stringify(big).length).toBeGreaterThan(GZIP_FROM_BYTES);
    expect(r.headers?.['Content-Encoding']).toBe('gzip');
    expect(r.isBase64Encoded).toBe(true);
    expect(JSON.parse(gunzipSync(Buffer.from(r.body!, 'base64')).toString('utf8'))).toEqual(big);
  });

  it('plain JSON to a client that does not accept gzip, or for a small body', () => {
    expect(reportJson(200, big, undefined).headers?.['Content-Encoding']).toBeUndefined();
    const small = reportJson(200, { ok: true }, 'gzip');
    expect(small.headers?.['Content-Encoding']).toBeUndefined();
    expect(small.body).toBe('{"ok":true}');
  });
});
