/**
 * The asynchronous upload pipeline over real HTTP: serverless-offline serving the bundled handlers and
 * invoking the report worker through its own Lambda endpoint (InvocationType Event), against DynamoDB
 * Local and s3rver. A 40k-row upload answers 202 at once and goes processing → ready with its progress
 * seen on the way and totals equal to the generator's answer key; three concurrent uploads of one
 * upload_id charge once; a worker whose item writes fail (test/support/item-write-faults.ts, a proxy in
 * front of DynamoDB Local that the stack's functions talk to) is retried to `ready` with every
 * item once, or ends `failed` refunded exactly once; and a stack stopped while a report is processing
 * leaves nothing stuck: the restarted one hands it to a new worker.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport, type GeneratedReport } from '../../scripts/fixtures/generate';
import { signToken } from '../../shared/auth/tokens';
import type { ApiReport } from '../../shared/reports/present-report';
import { getItems } from '../../shared/store/items.repo';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { ensureSeed } from '../../shared/store/seed';
import { getReportAnyStatus } from '../../shared/store/reports.repo';
import { createUser, getUserById } from '../../shared/store/users.repo';
import { putUpload } from '../support/e2e-stack';
import { startEmulators, type Emulators } from '../support/emulators';
import { startItemWriteFaults, type ItemWriteFaultProxy } from '../support/item-write-faults';
import { startOffline, type Offline } from '../support/offline';
import { httpApi, type HttpCall } from '../support/sign-up';

let emulators: Emulators;
let offline: Offline | null = null;
let call: HttpCall;

let faults: ItemWriteFaultProxy;

const WORKER_ENV = { UPLOAD_WAIT_MS: '0', WORKER_LEASE_MS: '3000' };

async function start() {
  // The stack's functions reach DynamoDB Local through the fault proxy; this process talks to it directly.
  offline = await startOffline({ ...emulators.env, ...WORKER_ENV, DYNAMODB_ENDPOINT: faults.url });
  call = httpApi(offline.apiUrl);
}

// Generated before the stack starts: a connection kept alive while a big file is generated would be
// closed by the server under the next request.
let big: GeneratedReport;
let bigger: GeneratedReport;

beforeAll(async () => {
  big = generateReport({ rows: 40_000, articles: 800, layout: '2026', format: 'zip', seed: 801 });
  bigger = generateReport({ rows: 60_000, articles: 1_000, layout: '2026', format: 'zip', seed: 805 });
  emulators = await startEmulators();
  Object.assign(process.env, emulators.env);
  await ensureSeed();
  // The item writes of a report named `once-…` fail once, those of `always-…` every time.
  faults = await startItemWriteFaults(emulators.env.DYNAMODB_ENDPOINT!, [
    { match: 'once-', times: 1 },
    { match: 'always-' },
  ]);
  await start();
}, 300_000);

afterAll(async () => {
  await offline?.stop();
  await faults?.stop();
  await emulators?.stop();
});

async function newUser(limits: number) {
  const u = await createUser({ email: `worker-${randomUUID()}@example.com`, confirmed: true, limits });
  return { id: u.id, token: signToken({ user_id: u.id }, 'access') };
}

/** upload-url → presigned PUT → the upload id. */
const put = (token: string, g: { filename: string; file: Buffer }) => putUpload(call, token, g);

/** Polls GET /reports/{id} until it is no longer processing; every answer seen on the way. */
async function follow(token: string, id: string, timeoutMs = 120_000): Promise<ApiReport[]> {
  const seen: ApiReport[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call<{ report: ApiReport }>('GET', `/reports/${id}`, { token });
    expect(r.status).toBe(200);
    seen.push(r.body.report);
    if (r.body.report.status !== 'processing') return seen;
    if (Date.now() > deadline)
      throw new Error(`report ${id} still processing: ${JSON.stringify(r.body.report.progress)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The ids of a report's stored items (generation 1, chunks unpacked), read from the store. */
async function itemIds(userId: string, reportId: string): Promise<string[]> {
  return (await getItems(userId, reportId, 1)).map((i) => i.item_id);
}

const history = async (userId: string) =>
  (await listLimitHistory(userId)).items.map((h) => [h.operation, h.rows, h.report_id]);

function answerKeyTotals(g: GeneratedReport) {
  const sum = (f: 'realization' | 'sales_qty' | 'for_pay') =>
    g.expected.articles.reduce((t, a) => t + a.aggregates[f], 0);
  return { realization: sum('realization'), sales_qty: sum('sales_qty'), for_pay: sum('for_pay') };
}

describe('the report worker over HTTP (serverless-offline, async invoke)', () => {
  it('a 40k-row upload answers 202 at once, shows its progress, and ends ready with the answer key’s totals', async () => {
    const u = await newUser(1_000_000);
    const g = big;
    const uploadId = await put(u.token, g);
    const t0 = Date.now();
    const r = await call<{ report: ApiReport }>('POST', '/reports/upload', {
      token: u.token,
      body: { upload_id: uploadId },
    });
    const answeredMs = Date.now() - t0;
    expect(r.status).toBe(202);
    expect(r.body.report).toMatchObject({ status: 'processing', task: 'upload', rows: 40_000, items: [] });
    expect(answeredMs).toBeLessThan(10_000);
    // Charged at once.
    expect((await getUserById(u.id))?.limits).toBe(1_000_000 - 40_000);
    const listed = await call<{ items: ApiReport[] }>('GET', '/reports', { token: u.token });
    expect(listed.body.items.find((x) => x.id === r.body.report.id)?.status).toBe('processing');

    const seen = await follow(u.token, r.body.report.id);
    const processing = seen.filter((s) => s.status === 'processing');
    expect(processing.length).toBeGreaterThan(0);
    expect(processing.every((s) => s.progress && s.progress.rows_total >= 0)).toBe(true);
    // The progress moves: some answer shows rows read or items being written.
    expect(processing.some((s) => (s.progress?.rows_read ?? 0) > 0 || s.progress?.step === 'writing')).toBe(true);

    const ready = seen[seen.length - 1]!;
    expect(ready.status).toBe('ready');
    expect(ready.progress).toBeUndefined();
    expect(ready.items.length).toBe(g.expected.articles.length);
    const key = answerKeyTotals(g);
    expect(Math.round(ready.totals.realization! * 100)).toBe(key.realization);
    expect(Math.round(ready.totals.for_pay! * 100)).toBe(key.for_pay);
    expect(ready.totals.sales_qty).toBe(key.sales_qty);
    expect(ready.period_from).toBe(g.expected.period_from);
    expect(ready.report_number).toBe(g.expected.report_number);
    expect(await history(u.id)).toEqual([['expense', 40_000, ready.id]]);
  }, 240_000);

  it('three concurrent uploads of one upload_id charge once and answer one report', async () => {
    const u = await newUser(10_000);
    const g = generateReport({ rows: 500, layout: '2026', format: 'xlsx', seed: 802 });
    const uploadId = await put(u.token, g);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        call<{ report: ApiReport }>('POST', '/reports/upload', { token: u.token, body: { upload_id: uploadId } }),
      ),
    );
    for (const a of answers) expect([201, 202]).toContain(a.status);
    const ids = new Set(answers.map((a) => a.body.report.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect((await follow(u.token, id!)).at(-1)?.status).toBe('ready');
    expect((await getUserById(u.id))?.limits).toBe(10_000 - 500);
    expect(await history(u.id)).toEqual([['expense', 500, id]]);
  }, 120_000);

  it('a worker whose item write fails once is retried: ready, every item exactly once, charged once', async () => {
    const u = await newUser(10_000);
    const g = { ...generateReport({ rows: 2_000, articles: 120, layout: '2026', format: 'xlsx', seed: 803 }) };
    g.filename = `once-${g.filename}`;
    const uploadId = await put(u.token, g);
    const r = await call<{ report: ApiReport }>('POST', '/reports/upload', {
      token: u.token,
      body: { upload_id: uploadId },
    });
    expect([201, 202]).toContain(r.status);
    const ready = (await follow(u.token, r.body.report.id)).at(-1)!;
    expect(ready.status).toBe('ready');
    const ids = await itemIds(u.id, ready.id);
    expect(ids.length).toBe(g.expected.articles.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.round(ready.totals.realization! * 100)).toBe(answerKeyTotals(g).realization);
    expect(await history(u.id)).toEqual([['expense', 2_000, ready.id]]);
    // The first attempt's item write did fail (after its items landed).
    expect(faults.failed.get(ready.id)).toBe(1);
  }, 120_000);

  it('a worker that fails on every attempt ends the report failed, refunded exactly once, saying why', async () => {
    const u = await newUser(10_000);
    const g = { ...generateReport({ rows: 1_000, layout: '2026', format: 'xlsx', seed: 804 }) };
    g.filename = `always-${g.filename}`;
    const uploadId = await put(u.token, g);
    const r = await call<{ report: ApiReport }>('POST', '/reports/upload', {
      token: u.token,
      body: { upload_id: uploadId },
    });
    expect(r.status).toBe(202);
    const failed = (await follow(u.token, r.body.report.id)).at(-1)!;
    expect(failed).toMatchObject({
      status: 'failed',
      refunded_rows: 1_000,
      error: { code: 'processing_failed', message: expect.stringMatching(/Лимиты возвращены/) },
    });
    expect((await getUserById(u.id))?.limits).toBe(10_000);
    expect(await history(u.id)).toEqual([
      ['refund', 1_000, failed.id],
      ['expense', 1_000, failed.id],
    ]);
    expect(await itemIds(u.id, failed.id)).toEqual([]);
    expect(faults.failed.get(failed.id)).toBeGreaterThanOrEqual(2);
    // Listing again (the recovery sweep runs) refunds nothing more; the same upload again answers the same failure.
    await call('GET', '/reports', { token: u.token });
    const again = await call<{ error: { code: string; details: { report_id: string } } }>('POST', '/reports/upload', {
      token: u.token,
      body: { upload_id: uploadId },
    });
    expect(again.status).toBe(500);
    expect(again.body.error).toMatchObject({ code: 'processing_failed', details: { report_id: failed.id } });
    expect((await getUserById(u.id))?.limits).toBe(10_000);
  }, 120_000);

  it('a stack stopped while a report is processing leaves nothing stuck: the restarted one finishes it', async () => {
    const u = await newUser(1_000_000);
    const g = bigger;
    const uploadId = await put(u.token, g);
    const r = await call<{ report: ApiReport }>('POST', '/reports/upload', {
      token: u.token,
      body: { upload_id: uploadId },
    });
    expect(r.status).toBe(202);
    const id = r.body.report.id;
    // Kill the API and its worker mid-way.
    await offline!.stop();
    offline = null;
    // It died processing (the store says so), with its charge taken.
    const died = await getReportAnyStatus(u.id, id);
    expect(died?.status).toBe('processing');
    await start();
    // Its lease (3 s) ran out while the stack restarted. The recovery sweep hands it to a new worker: the
    // sweep function itself, invoked now through serverless-offline's Lambda endpoint as EventBridge
    // would (its own `rate(5 minutes)` runs there as the cron */5, up to 5 minutes away).
    const swept = await offline!.invoke<{ recovered: number; examined: number; errors: number }>('reportsSweep');
    expect(swept.errors).toBe(0);
    if (swept.recovered === 0) {
      // Only if serverless-offline's own schedule came first, in the moment since the restart: then the
      // record shows the hand-over all the same (a new lease, or the new worker done already).
      const now = await getReportAnyStatus(u.id, id);
      if (now?.status === 'processing') expect(now.lease_until ?? 0).toBeGreaterThan(died?.lease_until ?? 0);
    }
    // Then the 60k-row week is built again. The wait is bounded (150 s: a loaded machine's time to build
    // the week, ≈ 30 s here, 120 s once ran out on a loaded CI machine) and shorter than the schedule's
    // 5 minutes, so the test's time does not hinge on the schedule. A recovery that does not happen fails
    // either way: the sweep's answer above shows no hand-over, or the worker it invoked never makes the
    // report ready within the wait (the scheduled sweep, if it fires meanwhile, runs the same code).
    const deadline = Date.now() + 150_000;
    let report: ApiReport | undefined;
    while (Date.now() < deadline) {
      const list = await call<{ items: ApiReport[] }>('GET', '/reports', { token: u.token });
      expect(list.status).toBe(200);
      report = list.body.items.find((x) => x.id === id);
      if (report && report.status !== 'processing') break;
      await new Promise((res) => setTimeout(res, 500));
    }
    expect(report?.status).toBe('ready');
    const full = (await follow(u.token, id)).at(-1)!;
    expect(Math.round(full.totals.realization! * 100)).toBe(answerKeyTotals(g).realization);
    const ids = await itemIds(u.id, id);
    expect(new Set(ids).size).toBe(g.expected.articles.length);
    expect(ids.length).toBe(g.expected.articles.length);
    expect(await history(u.id)).toEqual([['expense', 60_000, id]]);
  }, 300_000);
});
