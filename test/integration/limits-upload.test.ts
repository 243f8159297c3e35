/**
 * Limits at upload (docs/API.md, Upload; docs/ARCHITECTURE.md, Security and reliability): exactly `rows` charged
 * with one `expense` record; a shortfall is a 402 that leaves limits, history, reports and files
 * unchanged; concurrent uploads never overdraw; a failure after the charge refunds and leaves nothing.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { bucketName, s3 } from '../../shared/files/client';
import { bodyOf } from '../support/test-event';
import { useInProcessWorker } from '../../scripts/local/in-process-worker';
import { writeItems } from '../../shared/store/items.repo';
import { ddb, tableName } from '../../shared/store/client';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { listReports } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import type { ApiReport } from '../../shared/reports/present-report';
import { makeReport, newUser, presignedUpload, uploadById, uploadMultipart } from '../support/reports';

afterEach(() => {
  useInProcessWorker();
});

/** The worker's item store with `after` run once its items are written (a failure there fails the attempt). */
function afterItems(after: (reportId: string) => Promise<void>) {
  useInProcessWorker({
    items: {
      async writeItems(...args: Parameters<typeof writeItems>) {
        const stored = await writeItems(...args);
        await after(args[1]);
        return stored;
      },
    },
  });
}

async function sourceKeys(userId: string): Promise<string[]> {
  const r = await s3().send(new ListObjectsV2Command({ Bucket: bucketName(), Prefix: `sources/${userId}/` }));
  return (r.Contents ?? []).map((o) => o.Key!).sort();
}

async function itemPartitions(userId: string, reportIds: string[]): Promise<number> {
  let n = 0;
  for (const id of reportIds) {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `ITEMS#${userId}#${id}` },
        ConsistentRead: true,
      }),
    );
    n += r.Items?.length ?? 0;
  }
  return n;
}

async function state(userId: string) {
  const [user, history, reports, sources] = await Promise.all([
    getUserById(userId),
    listLimitHistory(userId),
    listReports(userId),
    sourceKeys(userId),
  ]);
  return { limits: user?.limits, history: history.items, reports: reports.items.map((r) => r.id), sources };
}

describe('limits at upload', () => {
  it('charges exactly `rows` with one expense history record naming the report', async () => {
    const u = await newUser(1000);
    const g = makeReport({ rows: 137, seed: 31 });
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(201);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    const s = await state(u.id);
    expect(s.limits).toBe(1000 - 137);
    expect(s.history).toHaveLength(1);
    expect(s.history[0]).toMatchObject({ operation: 'expense', rows: 137, limits_after: 863, report_id: report.id });
    expect(s.reports).toEqual([report.id]);
  });

  it('a shortfall is 402 insufficient_limits {rows, limits} and changes nothing', async () => {
    const u = await newUser(100);
    const g = makeReport({ rows: 101, seed: 32 });
    const before = await state(u.id);
    for (const send of [
      () => uploadMultipart(u.token, g),
      async () => uploadById(u.token, await presignedUpload(u.token, g)),
    ]) {
      const r = await send();
      expect(r.statusCode).toBe(402);
      expect(bodyOf<{ error: { code: string; details: unknown } }>(r).error).toMatchObject({
        code: 'insufficient_limits',
        details: { rows: 101, limits: 100 },
      });
    }
    expect(await state(u.id)).toEqual(before);
    expect(before).toMatchObject({ limits: 100, history: [], reports: [], sources: [] });
  });

  it('10 concurrent uploads against limits for 3 succeed exactly 3 times', async () => {
    const g = makeReport({ rows: 50, seed: 33 });
    const u = await newUser(3 * 50 + 49);
    // Ten copies of one report on purpose (the race here is the limits'): allowed as duplicates.
    const results = await Promise.all(
      Array.from({ length: 10 }, () => uploadMultipart(u.token, g, { allow_duplicate: 'true' })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 201, 201, 402, 402, 402, 402, 402, 402, 402]);
    const ok = results
      .filter((r) => r.statusCode === 201)
      .map((r) => bodyOf<{ report: ApiReport }>(r).report.id)
      .sort();
    const s = await state(u.id);
    expect(s.limits).toBe(49);
    expect(s.history.map((h) => h.operation)).toEqual(['expense', 'expense', 'expense']);
    expect(s.history.map((h) => h.report_id).sort()).toEqual(ok);
    expect(s.history.map((h) => h.limits_after).sort((a, b) => a - b)).toEqual([49, 99, 149]);
    expect([...s.reports].sort()).toEqual(ok);
    expect(s.sources).toEqual(ok.map((id) => `sources/${u.id}/${id}/${g.filename}`).sort());
  });

  it('a failure after the charge (every attempt of the worker) fails the report, refunds it once and leaves no items or source', async () => {
    const u = await newUser(1000);
    const g = makeReport({ rows: 90, seed: 34 });
    let failedReport = '';
    let attempts = 0;
    afterItems(async (reportId) => {
      attempts++;
      failedReport = reportId;
      // The charge and the items are in place when the failure strikes.
      expect((await getUserById(u.id))?.limits).toBe(910);
      expect(await itemPartitions(u.id, [reportId])).toBeGreaterThan(0);
      throw new Error('injected failure after the charge');
    });
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(500);
    expect(bodyOf<{ error: { code: string; message: string } }>(r).error).toEqual({
      code: 'processing_failed',
      message: expect.stringContaining('Лимиты возвращены'),
      details: { report_id: failedReport, refunded_rows: 90 },
    });
    expect(attempts).toBe(3);
    const s = await state(u.id);
    expect(s.limits).toBe(1000);
    expect(s.history.map((h) => [h.operation, h.rows, h.limits_after, h.report_id])).toEqual([
      ['refund', 90, 1000, failedReport],
      ['expense', 90, 910, failedReport],
    ]);
    // The report stays, failed, saying why; nothing of it is left in storage.
    expect(s.reports).toEqual([failedReport]);
    const listed = (await listReports(u.id)).items[0];
    expect(listed).toMatchObject({ status: 'failed', refunded_rows: 90, error: { code: 'processing_failed' } });
    expect(s.sources).toEqual([]);
    expect(await itemPartitions(u.id, [failedReport])).toBe(0);

    // The same file goes through once the failure is gone.
    useInProcessWorker();
    expect((await uploadMultipart(u.token, g)).statusCode).toBe(201);
    expect((await getUserById(u.id))?.limits).toBe(910);
  });
});
