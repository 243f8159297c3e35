/**
 * What the emulators cannot show about the S3 calls (docs/OPERATIONS.md, What the emulators cannot
 * show): s3rver ignores conditional headers and checksum parameters, and always answers. The real
 * client here talks to a loopback server that records each request and answers as told — or never
 * answers — so the wire itself is checked: the presigned PUT signs content-length and carries no
 * checksum parameters; range reads send If-Match; copies send x-amz-copy-source-if-match; a stalled
 * read fails (a SourceReadError the worker retries) instead of hanging.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SourceReadError } from '../engine/read/range-source';
import { toAppError } from '../errors';
import { copyObject, objectRanges, presignPut } from './objects';

const STALL_TIMEOUT_MS = 300;
let server: Server;
let endpoint: string;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
/** 'answer': a small body; 'stall': accept the request and never answer. */
let mode: 'answer' | 'stall' = 'answer';
const stalled: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      if (mode === 'stall') {
        stalled.push(req);
        return;
      }
      if (req.method === 'PUT') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          '<CopyObjectResult><ETag>"e2"</ETag><LastModified>2026-01-01T00:00:00.000Z</LastModified></CopyObjectResult>',
        );
        return;
      }
      res.writeHead(206, { 'content-type': 'application/octet-stream', 'content-length': '4', etag: '"e1"' });
      res.end('abcd');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    JWT_SECRET: 'unit-test-secret-unit-test-secret',
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    S3_ENDPOINT: endpoint,
    S3_REQUEST_TIMEOUT_MS: String(STALL_TIMEOUT_MS),
  });
  delete process.env.S3_PUBLIC_ENDPOINT;
});
beforeEach(() => {
  seen.length = 0;
  mode = 'answer';
});
afterAll(async () => {
  for (const req of stalled) req.socket.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

describe('S3 calls as they go over the wire', () => {
  it('the presigned PUT signs content-length and carries no checksum parameters', async () => {
    const url = new URL(await presignPut('uploads/u1/up1/report.xlsx', 12345, 900));
    const signed = (url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';');
    expect(signed).toContain('content-length');
    expect(signed).toContain('host');
    const names = [...url.searchParams.keys()].map((k) => k.toLowerCase());
    expect(names.filter((k) => k.startsWith('x-amz-checksum-'))).toEqual([]);
    expect(names).not.toContain('x-amz-sdk-checksum-algorithm');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('a range read sends If-Match with the ETag seen first, and the range asked for', async () => {
    const ranges = await objectRanges('sources/u1/r1/report.xlsx', { size: 100, etag: '"e1"' });
    expect(await readAll(ranges!.readRange(10, 14))).toEqual(Buffer.from('abcd'));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.headers['if-match']).toBe('"e1"');
    expect(seen[0]!.headers.range).toBe('bytes=10-13');
  });

  it('a copy sends x-amz-copy-source-if-match with the counted ETag', async () => {
    await copyObject('uploads/u1/up1/report.xlsx', 'sources/u1/r1/report.xlsx', '"e1"');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('PUT');
    expect(seen[0]!.headers['x-amz-copy-source-if-match']).toBe('"e1"');
    expect(seen[0]!.headers['x-amz-copy-source']).toBe('bucket/uploads/u1/up1/report.xlsx');
  });

  it('a read the store accepts and never answers fails the attempt (SourceReadError, retried) instead of hanging', async () => {
    mode = 'stall';
    const ranges = await objectRanges('sources/u1/r1/report.xlsx', { size: 100, etag: '"e1"' });
    const t0 = Date.now();
    const failure = await readAll(ranges!.readRange(0, 4)).then(
      () => null,
      (e: unknown) => e,
    );
    const took = Date.now() - t0;
    expect(failure).toBeInstanceOf(SourceReadError);
    // The SDK tried again on each timeout (maxAttempts 4) before giving up; then the worker's attempt fails
    // with a server error, which it retries (worker.ts: status ≥ 500 is not permanent).
    expect(seen.length).toBe(4);
    expect(took).toBeGreaterThanOrEqual(4 * STALL_TIMEOUT_MS);
    expect(took).toBeLessThan(15_000);
    expect(toAppError(failure).status).toBeGreaterThanOrEqual(500);
  }, 30_000);
});
