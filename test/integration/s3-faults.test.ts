/**
 * An S3 that answers 5xx or stops answering (what s3rver never does): the request answers 503
 * `try_again` with Retry-After through the one error model (shared/errors.ts storeUnavailable), never a
 * 500, within the client's bounded timeouts and retries (shared/files/client.ts), and nothing is charged
 * or stored; the same request passes once S3 answers again. s3rver sits behind a loopback proxy that
 * injects the faults (test/support/s3-faults.ts); the real client and use cases run against it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as countRowsHandler } from '../../functions/reports/count-rows.handler';
import { ERRORS } from '../../shared/contract/errors';
import { getUserById } from '../../shared/store/users.repo';
import { listReports } from '../../shared/store/reports.repo';
import { startS3FaultProxy, type S3FaultProxy } from '../support/s3-faults';
import { makeReport, newUser, presignedUpload, uploadById, uploadMultipart } from '../support/reports';
import { apiEvent, bodyOf } from '../support/test-event';

const TIMEOUT_MS = 400;
/** More than the client's attempts (maxAttempts 4), so the fault outlasts its retries. */
const EVERY_ATTEMPT = 6;

let proxy: S3FaultProxy;
const saved = {
  S3_ENDPOINT: process.env.S3_ENDPOINT,
  S3_PUBLIC_ENDPOINT: process.env.S3_PUBLIC_ENDPOINT,
  S3_REQUEST_TIMEOUT_MS: process.env.S3_REQUEST_TIMEOUT_MS,
};

beforeAll(async () => {
  proxy = await startS3FaultProxy(process.env.S3_ENDPOINT as string);
  // Before the first S3 call of this file: the client is made once per process, at first use.
  process.env.S3_ENDPOINT = proxy.url;
  process.env.S3_PUBLIC_ENDPOINT = proxy.url;
  process.env.S3_REQUEST_TIMEOUT_MS = String(TIMEOUT_MS);
});
afterEach(() => proxy.clear());
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await proxy.stop();
});

type ErrorAnswer = { error: { code: string; message: string; details: Record<string, unknown> } };

function expectTryAgain(r: { statusCode?: number; body?: string; headers?: Record<string, unknown> }) {
  expect(r.statusCode, r.body).toBe(503);
  const e = bodyOf<ErrorAnswer>(r).error;
  expect(e.code).toBe('try_again');
  expect(e.details).toEqual({ retry_after_seconds: 5 });
  expect(r.headers?.['Retry-After']).toBe('5');
  // The page shows the catalogue's Russian sentence for the code.
  expect(ERRORS[e.code as 'try_again'].message).toMatch(/^Сервер не успел ответить/);
}

const countRows = (token: string, uploadId: string) =>
  countRowsHandler(apiEvent({ method: 'POST', path: '/api/reports/count-rows', token, body: { upload_id: uploadId } }));

const objectRead = { method: 'GET', path: /^\/[^/]+\/uploads\// } as const;

describe('an S3 read that fails: count-rows of a presigned upload', () => {
  it('S3 answers 503 SlowDown on every attempt → 503 try_again; passes when S3 answers again', async () => {
    const user = await newUser(10_000, 's3-fault');
    const id = await presignedUpload(user.token, makeReport({ rows: 40, seed: 51 }));
    proxy.inject(objectRead, 'slow_down', EVERY_ATTEMPT);
    const r = await countRows(user.token, id);
    expectTryAgain(r);
    const faulted = proxy.seen.filter((s) => s.fault === 'slow_down');
    // The client retried the read (its bounded attempts) before giving up.
    expect(faulted.length).toBeGreaterThanOrEqual(2);
    proxy.clear();
    const again = await countRows(user.token, id);
    expect(again.statusCode, again.body).toBe(200);
    expect(bodyOf<{ rows: number }>(again).rows).toBe(40);
  });

  it('S3 accepts the read and never answers → 503 try_again within the bounded timeouts, not a hang', async () => {
    const user = await newUser(10_000, 's3-fault');
    const id = await presignedUpload(user.token, makeReport({ rows: 30, seed: 52 }));
    proxy.inject(objectRead, 'stall', EVERY_ATTEMPT);
    const t0 = Date.now();
    const r = await countRows(user.token, id);
    const took = Date.now() - t0;
    expectTryAgain(r);
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(took).toBeLessThan(15_000);
  }, 30_000);
});

describe('an S3 write that fails: the upload stores its source before the charge', () => {
  const sourceWrite = (copy: boolean) => ({ method: 'PUT', path: /^\/[^/]+\/sources\//, copy }) as const;

  it('the source PUT answers 500 on every attempt → 503 try_again, nothing charged, no report; then it uploads once', async () => {
    const user = await newUser(10_000, 's3-fault');
    const file = makeReport({ rows: 50, seed: 53 });
    proxy.inject(sourceWrite(false), 'internal_error', EVERY_ATTEMPT);
    const r = await uploadMultipart(user.token, file);
    expectTryAgain(r);
    expect(proxy.seen.some((s) => s.method === 'PUT' && s.fault === 'internal_error')).toBe(true);
    expect((await getUserById(user.id))?.limits).toBe(10_000);
    expect((await listReports(user.id)).items).toEqual([]);
    proxy.clear();
    const ok = await uploadMultipart(user.token, file);
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 50);
  });

  it('the server-side copy of an upload never answers → 503 try_again, nothing charged; the same upload id then passes, charged once', async () => {
    const user = await newUser(10_000, 's3-fault');
    const id = await presignedUpload(user.token, makeReport({ rows: 45, seed: 54 }));
    proxy.inject(sourceWrite(true), 'stall', EVERY_ATTEMPT);
    const r = await uploadById(user.token, id);
    expectTryAgain(r);
    expect((await getUserById(user.id))?.limits).toBe(10_000);
    expect((await listReports(user.id)).items).toEqual([]);
    proxy.clear();
    const ok = await uploadById(user.token, id);
    expect(ok.statusCode, ok.body).toBe(201);
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 45);
  }, 30_000);
});
