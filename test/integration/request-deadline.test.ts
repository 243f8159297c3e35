/**
 * The honest deadline (shared/reports/deadline.ts) against a DynamoDB that stalls: the table is DynamoDB
 * Local behind a loopback proxy that holds chosen requests for a while before passing them on (what a
 * throttled or slow DynamoDB does to a request; the emulator never does). REQUEST_DEADLINE_MS is short
 * here, so the upload must answer within it — 503 `try_again` when nothing was charged yet, 202 with
 * the report once it was — and the late work must still end consistently: the report built and its
 * rows charged exactly once.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as countRowsHandler } from '../../functions/reports/count-rows.handler';
import { handler as uploadHandler } from '../../functions/reports/upload.handler';
import { getReportAnyStatus, listReports } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import { makeReport, newUser } from '../support/reports';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';

const DEADLINE_MS = 1_500;
const STALL_MS = 4_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let proxy: Server;
/** Requests whose X-Amz-Target matches are held STALL_MS before being passed on. */
let stall: (target: string) => boolean = () => false;
const held: string[] = [];
/** Held requests passed on so far: an answer given while it is 0 came while the store still stalled. */
let released = 0;
let realEndpoint: string;
const saved = {
  DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
  REQUEST_DEADLINE_MS: process.env.REQUEST_DEADLINE_MS,
};

beforeAll(async () => {
  realEndpoint = process.env.DYNAMODB_ENDPOINT as string;
  const target = new URL(realEndpoint);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const amzTarget = String(req.headers['x-amz-target'] ?? '');
      const pass = () => {
        const out = request(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 500, answer.headers);
            answer.pipe(res);
          },
        );
        out.on('error', () => res.destroy());
        out.end(Buffer.concat(chunks));
      };
      if (stall(amzTarget)) {
        held.push(amzTarget);
        setTimeout(() => {
          released++;
          pass();
        }, STALL_MS);
      } else pass();
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  // Before the first DynamoDB call of this file: the client is made once per process, at first use.
  process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  process.env.REQUEST_DEADLINE_MS = String(DEADLINE_MS);
});
afterEach(async () => {
  stall = () => false;
  held.length = 0;
  // What a test left held is passed on before the next begins.
  await sleep(STALL_MS);
  released = 0;
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await new Promise<void>((r) => proxy.close(() => r()));
});

function upload(token: string, file: { filename: string; file: Buffer }, key: string) {
  const { body, contentType } = multipartBody({ filename: file.filename, content: file.file });
  return uploadHandler(
    apiEvent({
      method: 'POST',
      path: '/api/reports/upload',
      token,
      body,
      headers: { 'content-type': contentType, 'idempotency-key': key },
    }),
  );
}

async function untilReady(userId: string, reportId: string) {
  for (let i = 0; i < 200; i++) {
    const r = await getReportAnyStatus(userId, reportId);
    if (r && r.status !== 'processing') return r;
    await sleep(100);
  }
  throw new Error('report never finished');
}

describe('a request that starts work answers within REQUEST_DEADLINE_MS however DynamoDB stalls', () => {
  it('the charge stalls: 202 with the report whose charge is under way, never 503; charged once', async () => {
    const user = await newUser(10_000, 'deadline');
    const file = makeReport({ rows: 60, seed: 41 });
    stall = (t) => t.endsWith('TransactWriteItems');
    const r = await upload(user.token, file, 'stalled-charge');
    // Answered while the charge was still held: the charge may commit, so the answer is the report.
    expect(released).toBe(0);
    expect(held).toContain('DynamoDB_20120810.TransactWriteItems');
    expect(r.statusCode, r.body).toBe(202);
    const report = bodyOf<{ report: { id: string; status: string } }>(r).report;
    expect(report.status).toBe('processing');
    stall = () => false;
    const done = await untilReady(user.id, report.id);
    expect(done).toMatchObject({ status: 'ready', rows: 60 });
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 60);
    // The seller sends the same request again (the page repeats its key): the same report, no charge.
    const again = await upload(user.token, file, 'stalled-charge');
    expect(bodyOf<{ report: { id: string } }>(again).report.id).toBe(report.id);
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 60);
  });

  it('the caller’s read (the auth step) stalls: 503 try_again within the deadline; the route never runs', async () => {
    const user = await newUser(10_000, 'deadline');
    const file = makeReport({ rows: 50, seed: 44 });
    stall = (t) => t.endsWith('GetItem');
    const r = await upload(user.token, file, 'stalled-auth');
    expect(released).toBe(0);
    expect(r.statusCode, r.body).toBe(503);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('try_again');
    expect(held[0]).toBe('DynamoDB_20120810.GetItem');
    // Only the caller's read was made: the route did not start.
    expect(new Set(held)).toEqual(new Set(['DynamoDB_20120810.GetItem']));
    stall = () => false;
    await sleep(STALL_MS + 500);
    expect((await getUserById(user.id))?.limits).toBe(10_000);
    expect((await listReports(user.id)).items.length).toBe(0);
  });

  it('a read before the charge stalls: 503 try_again, and the late work never charges after that answer', async () => {
    const user = await newUser(10_000, 'deadline');
    const file = makeReport({ rows: 40, seed: 45 });
    // The use case's Queries (abandoned uploads, duplicates) stall; the caller's GetItem does not.
    stall = (t) => t.endsWith('Query');
    const r = await upload(user.token, file, 'stalled-before-charge');
    expect(released).toBe(0);
    expect(r.statusCode, r.body).toBe(503);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('try_again');
    stall = () => false;
    // The stalled reads answer; the work goes on to where it would charge, and stops there.
    await sleep(STALL_MS + 1_500);
    expect((await getUserById(user.id))?.limits).toBe(10_000);
    expect((await listReports(user.id)).items.length).toBe(0);
    // Sent again, it charges once.
    const again = await upload(user.token, file, 'stalled-before-charge');
    expect([201, 202]).toContain(again.statusCode);
    const id = bodyOf<{ report: { id: string } }>(again).report.id;
    expect(await untilReady(user.id, id)).toMatchObject({ status: 'ready', rows: 40 });
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 40);
  });

  it('count-rows whose store stalls answers 503 try_again at the deadline, not a gateway timeout', async () => {
    const user = await newUser(10_000, 'deadline');
    const file = makeReport({ rows: 30, seed: 43 });
    // The duplicate lookups (Query) stall; the caller's own record (GetItem) does not.
    stall = (t) => t.endsWith('Query');
    const { body, contentType } = multipartBody({ filename: file.filename, content: file.file });
    const t0 = Date.now();
    const r = await countRowsHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/count-rows',
        token: user.token,
        body,
        headers: { 'content-type': contentType },
      }),
    );
    const took = Date.now() - t0;
    expect(r.statusCode, r.body).toBe(503);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('try_again');
    expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(took).toBeLessThan(STALL_MS);
    expect(held).toContain('DynamoDB_20120810.Query');
  });

  it('stalls after the charge: 202 processing with the charged report at the deadline; built and charged once', async () => {
    const user = await newUser(10_000, 'deadline');
    const file = makeReport({ rows: 70, seed: 42 });
    let charged = false;
    // Everything after the charge stalls (the report reads of the wait, the worker's claim).
    stall = (t) => {
      if (charged) return true;
      if (t.endsWith('TransactWriteItems')) charged = true;
      return false;
    };
    const t0 = Date.now();
    const r = await upload(user.token, file, 'stalled-after-charge');
    const took = Date.now() - t0;
    expect(r.statusCode, r.body).toBe(202);
    expect(took).toBeLessThan(STALL_MS);
    const report = bodyOf<{ report: { id: string; status: string } }>(r).report;
    expect(report.status).toBe('processing');
    stall = () => false;
    const done = await untilReady(user.id, report.id);
    expect(done).toMatchObject({ status: 'ready', rows: 70 });
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 70);
    // A repeat answers the same report and charges nothing more.
    const again = await upload(user.token, file, 'stalled-after-charge');
    expect(bodyOf<{ report: { id: string } }>(again).report.id).toBe(report.id);
    expect((await getUserById(user.id))?.limits).toBe(10_000 - 70);
  });
});
