/**
 * The asynchronous upload pipeline in-process (the worker runs in this process, as when no function
 * name is configured): 201 within the wait, 202 `processing` with progress beyond it; idempotent
 * uploads (upload_id and Idempotency-Key, sequential and concurrent); a worker whose item store fails
 * (a failing dependency injected through the composition, shared/reports/deps.ts) retried to `ready`
 * with every item once, or ending `failed` refunded exactly once; a report whose worker never ran
 * picked up by the scheduled sweep (on an injected clock), handed to a new worker while attempts
 * remain, else failed and refunded once; a ready report whose catalog follow-up died (the new articles
 * not yet in the catalog) handed to a new worker by the sweep, which adds them.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { handler as uploadHandler } from '../../functions/reports/upload.handler';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';
import type { ApiReport } from '../../shared/reports/present-report';
import { recoverAbandonedUploads, sweepPendingReports } from '../../shared/reports/worker/recover';
import { reportDeps } from '../../shared/reports/deps';
import { onWorkerEvent, useInProcessWorker } from '../../scripts/local/in-process-worker';
import { manualClock } from '../../shared/deps';
import { writeItems } from '../../shared/store/items.repo';
import { ddb, tableName } from '../../shared/store/client';
import { getItems } from '../../shared/store/items.repo';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { claimReportTask } from '../../shared/store/report-lifecycle.repo';
import { getReportAnyStatus } from '../../shared/store/reports.repo';
import { CatalogSync } from '../../shared/reports/worker/catalog-sync';
import { addProducts, getProducts } from '../../shared/store/products.repo';
import { getUserById } from '../../shared/store/users.repo';
import type { WorkerEvent } from '../../shared/jobs/worker-invoke';
import { idleWorkers } from '../support/worker';
import {
  getReportOk,
  makeReport,
  newUser,
  objectExists,
  presignedUpload,
  uploadById,
  uploadMultipart,
  type TestUser,
} from '../support/reports';

const ENV = ['UPLOAD_WAIT_MS', 'UPLOAD_WAIT_ROWS', 'WORKER_LEASE_MS'] as const;

function setEnv(values: Partial<Record<(typeof ENV)[number], string>>) {
  for (const k of ENV) delete process.env[k];
  Object.assign(process.env, values);
}

beforeAll(() => setEnv({}));
afterEach(async () => {
  useInProcessWorker();
  await idleWorkers();
  setEnv({});
});

/** An item store whose writes of reports named `match` write `after` items and throw, `times` times each. */
function failingItems(match: string, after: number, times = Infinity) {
  const used = new Map<string, number>();
  return {
    async writeItems(...args: Parameters<typeof writeItems>) {
      const [userId, reportId, gen, items] = args;
      const name = (await getReportAnyStatus(userId, reportId))?.source_name ?? '';
      const n = used.get(reportId) ?? 0;
      if (!name.includes(match) || n >= times) return writeItems(...args);
      used.set(reportId, n + 1);
      await writeItems(userId, reportId, gen, items.slice(0, after));
      throw new Error(`item store failed after ${after} items`);
    },
  };
}

/** The scheduled sweep as if it ran at `at` (epoch ms). */
const sweepAt = (at: number) => sweepPendingReports({ ...reportDeps, clock: manualClock(at) });

/** Events handed to the worker are dropped (an invoke lost, or a process that died at once). */
const loseInvokes = () => onWorkerEvent(async () => undefined);

/** The items stored for a report (every record of its partition, chunks unpacked), by id. */
async function storedItems(userId: string, reportId: string): Promise<string[]> {
  return (await getItems(userId, reportId, 1)).map((i) => i.item_id);
}

/** Records left in a report's item partition (chunks and corrections). */
async function partitionRecords(userId: string, reportId: string): Promise<number> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `ITEMS#${userId}#${reportId}` },
      ConsistentRead: true,
    }),
  );
  return r.Items?.length ?? 0;
}

async function history(userId: string) {
  return (await listLimitHistory(userId)).items.map((h) => [h.operation, h.rows, h.report_id]);
}

const limitsOf = async (userId: string) => (await getUserById(userId))?.limits;

function uploadWithKey(u: TestUser, file: { filename: string; file: Buffer }, key: string) {
  const { body, contentType } = multipartBody({ filename: file.filename, content: file.file });
  return uploadHandler(
    apiEvent({
      method: 'POST',
      path: '/api/reports/upload',
      token: u.token,
      body,
      headers: { 'content-type': contentType, 'idempotency-key': key },
    }),
  );
}

describe('upload through the worker', () => {
  it('answers 202 with the report processing (and its progress) beyond the wait; it ends ready', async () => {
    setEnv({ UPLOAD_WAIT_MS: '0' });
    const u = await newUser(1000);
    const g = makeReport({ rows: 300, seed: 61 });
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(202);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    expect(report).toMatchObject({ status: 'processing', task: 'upload', rows: 300, items: [] });
    expect(report.progress).toMatchObject({ rows_total: 300 });
    // Charged at once, with its expense record.
    expect(await limitsOf(u.id)).toBe(700);
    await idleWorkers();
    const ready = await getReportOk(u.token, report.id);
    expect(ready.status).toBe('ready');
    expect(ready.progress).toBeUndefined();
    expect(ready.items.length).toBe(g.expected.articles.length);
    // The generator's answer key: Σ realization and Σ sales over its articles (kopecks, counts).
    const sum = (f: 'realization' | 'sales_qty') => g.expected.articles.reduce((t, a) => t + a.aggregates[f], 0);
    expect(Math.round(ready.totals.realization! * 100)).toBe(sum('realization'));
    expect(ready.totals.sales_qty).toBe(sum('sales_qty'));
    expect(await history(u.id)).toEqual([['expense', 300, report.id]]);
  });

  it('a file of more rows than UPLOAD_WAIT_ROWS is not waited for: 202 at once; one within it waits: 201', async () => {
    setEnv({ UPLOAD_WAIT_MS: '20000', UPLOAD_WAIT_ROWS: '250' });
    const u = await newUser(1000);
    // Queued, not run: a wait would last the whole UPLOAD_WAIT_MS (20 s, over the test's timeout).
    const queued: WorkerEvent[] = [];
    onWorkerEvent(async (e) => {
      queued.push(e);
    });
    const big = await uploadMultipart(u.token, makeReport({ rows: 300, seed: 66 }));
    expect(big.statusCode).toBe(202);
    expect(bodyOf<{ report: ApiReport }>(big).report).toMatchObject({ status: 'processing', rows: 300 });
    expect(queued).toHaveLength(1);
    useInProcessWorker();
    const small = await uploadMultipart(u.token, makeReport({ rows: 200, seed: 67 }));
    expect(small.statusCode).toBe(201);
    expect(bodyOf<{ report: ApiReport }>(small).report.status).toBe('ready');
  });

  it('the same upload_id three times at once charges once and answers one report', async () => {
    const u = await newUser(1000);
    const g = makeReport({ rows: 120, seed: 62, format: 'zip' });
    const uploadId = await presignedUpload(u.token, g);
    const answers = await Promise.all([1, 2, 3].map(() => uploadById(u.token, uploadId)));
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201]);
    const ids = new Set(answers.map((a) => bodyOf<{ report: ApiReport }>(a).report.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(await limitsOf(u.id)).toBe(880);
    expect(await history(u.id)).toEqual([['expense', 120, id]]);
    // And once more, later: the same report, nothing charged.
    const again = await uploadById(u.token, uploadId);
    expect(bodyOf<{ report: ApiReport }>(again).report.id).toBe(id);
    expect(await limitsOf(u.id)).toBe(880);
  });

  it('an Idempotency-Key makes a multipart upload repeatable; the key with another file is 422', async () => {
    const u = await newUser(1000);
    const g = makeReport({ rows: 80, seed: 63 });
    const key = `key-${Date.now()}`;
    const [a, b] = await Promise.all([uploadWithKey(u, g, key), uploadWithKey(u, g, key)]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(bodyOf<{ report: ApiReport }>(a).report.id).toBe(bodyOf<{ report: ApiReport }>(b).report.id);
    expect(await limitsOf(u.id)).toBe(920);
    const other = await uploadWithKey(u, makeReport({ rows: 50, seed: 64 }), key);
    expect(other.statusCode).toBe(422);
    expect(bodyOf<{ error: { code: string } }>(other).error.code).toBe('idempotency_key_reused');
    expect(await limitsOf(u.id)).toBe(920);
    const bad = await uploadWithKey(u, g, 'a key with spaces');
    expect(bad.statusCode).toBe(400);
  });

  it('a worker failing once after 3 item writes is retried and ends ready with every item exactly once', async () => {
    useInProcessWorker({ items: failingItems('once-', 3, 1) });
    const u = await newUser(1000);
    const g = { ...makeReport({ rows: 200, seed: 65 }), filename: 'once-report.xlsx' };
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(201);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    expect(report.status).toBe('ready');
    const record = await getReportAnyStatus(u.id, report.id);
    expect(record?.attempts).toBe(2);
    const stored = await storedItems(u.id, report.id);
    expect(stored.length).toBe(report.items.length);
    expect(new Set(stored).size).toBe(stored.length);
    expect(report.items.length).toBe(g.expected.articles.length);
    expect(await history(u.id)).toEqual([['expense', 200, report.id]]);
  });

  it('a worker failing on every attempt ends the report failed, refunded exactly once, saying why', async () => {
    useInProcessWorker({ items: failingItems('always-', 2) });
    const u = await newUser(1000);
    const g = { ...makeReport({ rows: 150, seed: 66 }), filename: 'always-report.xlsx' };
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(500);
    const err = bodyOf<{ error: { code: string; details: { report_id: string; refunded_rows: number } } }>(r).error;
    expect(err.code).toBe('processing_failed');
    expect(err.details.refunded_rows).toBe(150);
    const id = err.details.report_id;
    expect(await limitsOf(u.id)).toBe(1000);
    expect(await history(u.id)).toEqual([
      ['refund', 150, id],
      ['expense', 150, id],
    ]);
    const failed = await getReportOk(u.token, id);
    expect(failed).toMatchObject({
      status: 'failed',
      refunded_rows: 150,
      items: [],
      error: { code: 'processing_failed', message: expect.stringMatching(/Лимиты возвращены/) },
    });
    const listed = bodyOf<{ items: ApiReport[] }>(
      await listHandler(apiEvent({ method: 'GET', path: '/api/reports', token: u.token })),
    ).items;
    expect(listed.map((x) => [x.id, x.status])).toEqual([[id, 'failed']]);
    expect(await partitionRecords(u.id, id)).toBe(0);
    expect(await objectExists(`sources/${u.id}/${id}/${g.filename}`)).toBe(false);
    // Sweeps later refund nothing more.
    await sweepAt(Date.now() + 3_600_000);
    await recoverAbandonedUploads({ ...reportDeps, clock: manualClock(Date.now() + 3_600_000) }, u.id);
    expect(await limitsOf(u.id)).toBe(1000);
  });

  it('a report whose worker never ran is handed to a new one by the sweep once its lease ran out', async () => {
    setEnv({ UPLOAD_WAIT_MS: '0', WORKER_LEASE_MS: '300' });
    loseInvokes();
    const u = await newUser(1000);
    const r = await uploadMultipart(u.token, makeReport({ rows: 90, seed: 67 }));
    expect(r.statusCode).toBe(202);
    const id = bodyOf<{ report: ApiReport }>(r).report.id;
    // A live lease: nothing to pick up.
    expect(await recoverAbandonedUploads(reportDeps, u.id)).toEqual({ recovered: 0, refunded_rows: 0 });
    await sweepAt(Date.now());
    expect((await getReportAnyStatus(u.id, id))?.attempts).toBe(0);
    // Listing only reads.
    const list = await listHandler(apiEvent({ method: 'GET', path: '/api/reports', token: u.token }));
    expect(list.statusCode).toBe(200);
    expect((await getReportAnyStatus(u.id, id))?.status).toBe('processing');
    useInProcessWorker();
    // A second later (on the sweep's clock) the 300 ms lease has run out.
    const swept = await sweepAt(Date.now() + 1_000);
    expect(swept.recovered).toBeGreaterThanOrEqual(1);
    await idleWorkers();
    const ready = await getReportOk(u.token, id);
    expect(ready.status).toBe('ready');
    expect(await history(u.id)).toEqual([['expense', 90, id]]);
  });

  it('the report never waits for the catalog: a worker that dies mid-catalog leaves it ready; the sweep finishes the catalog', async () => {
    setEnv({ WORKER_LEASE_MS: '300' });
    // The run writes the report, then dies while writing the new articles' catalog entries.
    useInProcessWorker({
      catalogSync: (userId) =>
        Object.assign(new CatalogSync(userId, { getProducts, addProducts }), {
          write: () => Promise.reject(new Error('the process died mid-catalog')),
        }),
    });
    const u = await newUser(1000);
    const g = makeReport({ rows: 120, seed: 69 });
    const articles = g.expected.articles.map((a) => a.article).filter((a) => a !== '');
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(201);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    expect(report.status).toBe('ready');
    // Priced without the catalog: every article is named as missing its cost price.
    expect(report.warnings.some((w) => w.code === 'missing_cost_price')).toBe(true);
    await idleWorkers();
    const pending = await getReportAnyStatus(u.id, report.id);
    expect(pending?.catalog_task?.attempts).toBe(1);
    expect((await getProducts(u.id, articles)).size).toBe(0);
    // Within its lease the sweep leaves it alone; after it, hands it to a worker, which adds the articles.
    useInProcessWorker();
    await sweepAt(Date.now() - 60_000);
    await idleWorkers();
    expect((await getProducts(u.id, articles)).size).toBe(0);
    // The follow-up's lease is CATALOG_LEASE_FACTOR (10) report leases: 3 s here.
    await sweepAt(Date.now() + 1_000);
    await idleWorkers();
    expect((await getProducts(u.id, articles)).size).toBe(0);
    const swept = await sweepAt(Date.now() + 4_000);
    expect(swept.recovered).toBeGreaterThanOrEqual(1);
    await idleWorkers();
    const products = await getProducts(u.id, articles);
    expect(products.size).toBe(articles.length);
    expect([...products.values()].every((p) => !p.cost_price_set && p.cost_price === 0)).toBe(true);
    const after = await getReportAnyStatus(u.id, report.id);
    expect(after?.catalog_task).toBeUndefined();
    expect(after?.status).toBe('ready');
    // Charged once; nothing left for another sweep.
    expect(await history(u.id)).toEqual([['expense', 120, report.id]]);
    const user = { ...reportDeps, clock: manualClock(Date.now() + 60_000) };
    expect(await recoverAbandonedUploads(user, u.id)).toEqual({ recovered: 0, refunded_rows: 0 });
  });

  it('after its last attempt died, recovery fails the report and refunds it once, however many sweeps run', async () => {
    setEnv({ UPLOAD_WAIT_MS: '0', WORKER_LEASE_MS: '300' });
    loseInvokes();
    const u = await newUser(1000);
    const r = await uploadMultipart(u.token, makeReport({ rows: 70, seed: 68 }));
    const id = bodyOf<{ report: ApiReport }>(r).report.id;
    // Three workers took it and died (their leases ran out).
    let t = Date.now();
    for (let i = 0; i < 3; i++) {
      t += 1_000;
      expect(await claimReportTask(u.id, id, `dead-${i}`, 300, t)).not.toBeNull();
    }
    const later = t + 1_000;
    const sweeps = await Promise.all([1, 2, 3].map(() => sweepAt(later)));
    expect(sweeps.reduce((s, x) => s + x.refunded_rows, 0)).toBeGreaterThanOrEqual(70);
    expect(await limitsOf(u.id)).toBe(1000);
    expect(await history(u.id)).toEqual([
      ['refund', 70, id],
      ['expense', 70, id],
    ]);
    expect((await getReportOk(u.token, id)).status).toBe('failed');
  });
});
