/**
 * Recovery of pre-worker uploads whose process died after the charge (shared/reports/recover.ts;
 * the worker-era recovery is in report-worker.test.ts): the scheduled sweep (sweepPendingReports, on
 * an injected clock) or starting an upload undoes the user's `building` records older than
 * ABANDONED_UPLOAD_AFTER_MS — limits given back exactly once, items, source and record gone — and
 * leaves younger building records and ready reports alone.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { resetConfig } from '../../shared/config';
import { apiEvent, bodyOf } from '../support/test-event';
import { recoverAbandonedUploads, sweepPendingReports, undoChargedUpload } from '../../shared/reports/recover';
import { reportDeps } from '../../shared/reports/deps';
import { manualClock } from '../../shared/deps';
import { ddb, tableName } from '../../shared/store/client';
import { listLimitHistory, refundLimits } from '../../shared/store/limits.repo';
import { claimBuildingReport, markReportReady } from '../../shared/store/report-lifecycle.repo';
import { getReportAnyStatus } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import type { ApiReport } from '../../shared/reports/present';
import {
  chargedBuildingReport,
  makeReport,
  newUser,
  objectExists,
  uploadMultipart,
  uploadOk,
  type ChargedBuildingReport,
  type TestUser,
} from '../support/reports';

beforeAll(() => resetConfig());

const MINUTE = 60_000;

async function itemCount(userId: string, reportId: string): Promise<number> {
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

async function limitsOf(userId: string): Promise<number | undefined> {
  return (await getUserById(userId))?.limits;
}

async function history(userId: string) {
  return (await listLimitHistory(userId)).items.map((h) => [h.operation, h.rows, h.limits_after, h.report_id]);
}

/** What is left of an upload: its record's status, its source, its items. */
async function traces(userId: string, c: ChargedBuildingReport) {
  const record = await getReportAnyStatus(userId, c.id);
  return {
    status: record?.status ?? null,
    source: await objectExists(c.sourceKey),
    items: await itemCount(userId, c.id),
  };
}

/** The scheduled sweep, now. */
const sweep = () => sweepPendingReports({ ...reportDeps(), clock: manualClock(Date.now()) });
const recoverUser = (userId: string) => recoverAbandonedUploads(reportDeps(), userId);

function listReportsApi(u: TestUser) {
  return listHandler(apiEvent({ method: 'GET', path: '/api/reports', token: u.token }));
}

describe('recovery of abandoned uploads', () => {
  it('the sweep undoes an upload abandoned 11 minutes ago, leaves a fresh one and ready reports alone', async () => {
    const u = await newUser(1000);
    const ready = await uploadOk(u.token, makeReport({ rows: 50, seed: 41 }));
    const stale = await chargedBuildingReport(u.id, makeReport({ rows: 120, seed: 42 }), 11 * MINUTE);
    const fresh = await chargedBuildingReport(u.id, makeReport({ rows: 70, seed: 43 }), 0);
    expect(await limitsOf(u.id)).toBe(1000 - 50 - 120 - 70);
    expect(await traces(u.id, stale)).toEqual({ status: 'building', source: true, items: expect.any(Number) });
    expect((await traces(u.id, stale)).items).toBeGreaterThan(0);

    // Listing only reads.
    expect((await listReportsApi(u)).statusCode).toBe(200);
    expect(await limitsOf(u.id)).toBe(1000 - 50 - 120 - 70);

    await sweep();
    const r = await listReportsApi(u);
    expect(r.statusCode).toBe(200);
    expect(bodyOf<{ items: Array<{ id: string }> }>(r).items.map((i) => i.id)).toEqual([ready.id]);

    expect(await limitsOf(u.id)).toBe(1000 - 50 - 70);
    expect(await history(u.id)).toEqual([
      ['refund', 120, 880, stale.id],
      ['expense', 70, 760, fresh.id],
      ['expense', 120, 830, stale.id],
      ['expense', 50, 950, ready.id],
    ]);
    expect(await traces(u.id, stale)).toEqual({ status: null, source: false, items: 0 });
    const freshLeft = await traces(u.id, fresh);
    expect(freshLeft.status).toBe('building');
    expect(freshLeft.source).toBe(true);
    expect(freshLeft.items).toBeGreaterThan(0);

    // Sweeping again changes nothing.
    await sweep();
    expect(await limitsOf(u.id)).toBe(880);
    expect((await history(u.id)).filter(([op]) => op === 'refund')).toHaveLength(1);
  });

  it('sweeps running at once refund once', async () => {
    const u = await newUser(1000);
    const stale = await chargedBuildingReport(u.id, makeReport({ rows: 90, seed: 44 }), 11 * MINUTE);
    expect(await limitsOf(u.id)).toBe(910);
    const [a, b] = await Promise.all([recoverUser(u.id), recoverUser(u.id), sweep()]);
    // Whichever sweep refunded, exactly one did.
    expect(a.refunded_rows + b.refunded_rows).toBeLessThanOrEqual(90);
    expect(await limitsOf(u.id)).toBe(1000);
    expect(await history(u.id)).toEqual([
      ['refund', 90, 1000, stale.id],
      ['expense', 90, 910, stale.id],
    ]);
    expect(await traces(u.id, stale)).toEqual({ status: null, source: false, items: 0 });
    expect(await recoverUser(u.id)).toEqual({ recovered: 0, refunded_rows: 0 });
    expect(await limitsOf(u.id)).toBe(1000);
  });

  it('an upload first gives back the limits of abandoned uploads, so they count for it', async () => {
    const u = await newUser(200);
    const stale = await chargedBuildingReport(u.id, makeReport({ rows: 150, seed: 46 }), 11 * MINUTE);
    expect(await limitsOf(u.id)).toBe(50);
    const r = await uploadMultipart(u.token, makeReport({ rows: 120, seed: 47 }));
    expect(r.statusCode).toBe(201);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    expect(await limitsOf(u.id)).toBe(80);
    expect(await history(u.id)).toEqual([
      ['expense', 120, 80, report.id],
      ['refund', 150, 200, stale.id],
      ['expense', 150, 50, stale.id],
    ]);
    expect(await traces(u.id, stale)).toEqual({ status: null, source: false, items: 0 });
  });

  it('a ready report is never undone, and a claimed one can no longer become ready', async () => {
    const u = await newUser(1000);
    const ready = await uploadOk(u.token, makeReport({ rows: 60, seed: 48 }));
    expect(await undoChargedUpload(u.id, ready.id)).toEqual({ outcome: 'not_building', refunded_rows: 0 });
    expect(await limitsOf(u.id)).toBe(940);
    expect((await getReportAnyStatus(u.id, ready.id))?.status).toBe('ready');
    expect(await itemCount(u.id, ready.id)).toBeGreaterThan(0);

    const building = await chargedBuildingReport(u.id, makeReport({ rows: 30, seed: 49 }), 0);
    expect((await claimBuildingReport(u.id, building.id))?.id).toBe(building.id);
    await expect(markReportReady(u.id, building.id)).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((await getReportAnyStatus(u.id, building.id))?.status).toBe('building');
  });

  it('an undo interrupted after its refund is finished by the next sweep without a second refund', async () => {
    const u = await newUser(1000);
    const stale = await chargedBuildingReport(u.id, makeReport({ rows: 40, seed: 50 }), 11 * MINUTE);
    // What an undo that died right after refunding leaves behind.
    expect(await claimBuildingReport(u.id, stale.id)).not.toBeNull();
    expect(await refundLimits({ userId: u.id, rows: 40, reportId: stale.id })).toMatchObject({ limits_after: 1000 });
    expect(await traces(u.id, stale)).toMatchObject({ status: 'building', source: true });

    await sweep();
    expect(await limitsOf(u.id)).toBe(1000);
    expect(await history(u.id)).toEqual([
      ['refund', 40, 1000, stale.id],
      ['expense', 40, 960, stale.id],
    ]);
    expect(await traces(u.id, stale)).toEqual({ status: null, source: false, items: 0 });
  });
});
