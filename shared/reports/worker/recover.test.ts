/**
 * Unit tier: the scheduled sweep (sweepPendingReports) with fakes for everything it talks to
 * (ports.ts) and an injected clock: which pending report is left alone, handed to a new worker, failed
 * and refunded, or ended as it was; pages are followed; one report's failure does not stop the rest.
 * test/integration/report-worker.test.ts runs it against DynamoDB Local.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../deps';
import { setUnitEnv, unitReport } from '../../../test/support/unit-fixtures';
import type { ReportRecord } from '../../store/report-record';
import { AppError } from '../../errors';
import { dropUnusedSeller, failUpload, sweepPendingReports, type UndoDeps } from './recover';
import type { RecoverDeps } from '../ports';
import type { ReportConfig } from '../ports';

vi.mock('../../log');
setUnitEnv({ WORKER_MAX_ATTEMPTS: '3', WORKER_LEASE_MS: '60000' });

const NOW = Date.parse('2026-01-05T10:00:00.000Z');
const processing = (id: string, over: Partial<ReportRecord> = {}) =>
  unitReport({
    id,
    status: 'processing',
    task: 'upload',
    task_id: `t-${id}`,
    attempts: 1,
    lease_until: NOW - 1,
    ...over,
  });

const store = new Map<string, ReportRecord>();
/** The report settings of these tests (ports.ts ReportConfig): no wait for the worker, the default lease and attempts. */
const CONFIG: ReportConfig = {
  maxUploadBytes: 512 * 1024 * 1024,
  uploadWaitMs: 0,
  uploadWaitRows: 100_000,
  workerLeaseMs: 60_000,
  workerMaxAttempts: 3,
};

const deps = {
  clock: manualClock(NOW),
  config: () => CONFIG,
  invoker: { invoke: vi.fn() },
  reports: { getReportAnyStatus: vi.fn(async (_u: string, id: string) => store.get(id) ?? null) },
  lifecycle: {
    releaseReportTask: vi.fn(async () => true),
    finishRebuildTask: vi.fn(async () => true),
    releaseCatalogTask: vi.fn(async () => true),
  },
  pending: { listPendingReports: vi.fn(), scanPendingReports: vi.fn() },
  failUpload: vi.fn(async (r: ReportRecord, _failure: { code: string }) => r.rows),
  dropUnusedSeller: vi.fn(),
};
const sweep = () => sweepPendingReports(deps as unknown as RecoverDeps);

function pages(...lists: ReportRecord[][]) {
  for (const list of lists) for (const r of list) store.set(r.id, r);
  lists.forEach((items, i) =>
    deps.pending.scanPendingReports.mockResolvedValueOnce({
      items,
      next: i < lists.length - 1 ? { page: i + 1 } : null,
    }),
  );
}

beforeEach(() => {
  store.clear();
  vi.clearAllMocks();
});

describe('sweepPendingReports', () => {
  it('hands a ready report’s catalog follow-up past its lease to a worker with its task id; one within it waits', async () => {
    const ready = (id: string, until: number) =>
      unitReport({ id, status: 'ready', task_id: `t-${id}`, catalog_task: { task_id: `c-${id}`, until, attempts: 1 } });
    pages([ready('died', NOW - 1), ready('busy', NOW + 1)]);
    expect(await sweep()).toEqual({ recovered: 1, refunded_rows: 0, examined: 2, errors: 0 });
    expect(deps.invoker.invoke).toHaveBeenCalledExactlyOnceWith({
      kind: 'report',
      user_id: store.get('died')!.user_id,
      report_id: 'died',
      task_id: 'c-died',
    });
    expect(deps.lifecycle.releaseCatalogTask).toHaveBeenCalledExactlyOnceWith(
      store.get('died')!.user_id,
      'died',
      'c-died',
      NOW,
    );
    expect(deps.lifecycle.releaseReportTask).not.toHaveBeenCalled();
    expect(deps.failUpload).not.toHaveBeenCalled();
  });

  it('leaves a report within its lease alone', async () => {
    pages([processing('live', { lease_until: NOW + 1 })]);
    expect(await sweep()).toEqual({ recovered: 0, refunded_rows: 0, examined: 1, errors: 0 });
    expect(deps.lifecycle.releaseReportTask).not.toHaveBeenCalled();
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('hands a report whose lease ran out to a new worker while attempts remain', async () => {
    pages([processing('r1')]);
    expect(await sweep()).toMatchObject({ recovered: 1, refunded_rows: 0 });
    expect(deps.lifecycle.releaseReportTask).toHaveBeenCalledWith('u1', 'r1', null, 60000, NOW);
    expect(deps.invoker.invoke).toHaveBeenCalledWith({
      kind: 'report',
      user_id: 'u1',
      report_id: 'r1',
      task_id: 't-r1',
    });
  });

  it('a release refused (another worker took it meanwhile) invokes nobody', async () => {
    pages([processing('r1')]);
    deps.lifecycle.releaseReportTask.mockResolvedValueOnce(false);
    expect(await sweep()).toMatchObject({ recovered: 0 });
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('after the last attempt fails and refunds an upload, and ends a rebuild as it was', async () => {
    pages([processing('up', { attempts: 3, rows: 40 }), processing('rb', { attempts: 3, task: 'rebuild' })]);
    expect(await sweep()).toEqual({ recovered: 2, refunded_rows: 40, examined: 2, errors: 0 });
    expect(deps.failUpload.mock.calls[0]![1]).toMatchObject({ code: 'processing_failed' });
    expect(deps.lifecycle.finishRebuildTask).toHaveBeenCalledWith(
      'u1',
      'rb',
      null,
      expect.objectContaining({ task_id: 't-rb', error: expect.objectContaining({ code: 'processing_failed' }) }),
    );
  });

  it('decides on the record, not the eventually consistent index', async () => {
    pages([processing('r1')]);
    store.set('r1', processing('r1', { status: 'ready' }));
    expect(await sweep()).toMatchObject({ recovered: 0, examined: 1 });
    expect(deps.lifecycle.releaseReportTask).not.toHaveBeenCalled();
  });

  it('follows the pages, and one report that throws does not stop the others', async () => {
    pages([processing('a')], [processing('b', { attempts: 3 })]);
    deps.lifecycle.releaseReportTask.mockRejectedValueOnce(new Error('throttled'));
    expect(await sweep()).toEqual({ recovered: 1, refunded_rows: 10, examined: 2, errors: 1 });
    expect(deps.pending.scanPendingReports).toHaveBeenLastCalledWith({ page: 1 }, 100);
  });
});

describe('failUpload and dropUnusedSeller (undoing an upload, with fake stores)', () => {
  const failure = { code: 'processing_failed', message: 'сбой' } as const;
  const undo = {
    limits: { refundLimits: vi.fn(async (_input: { extraItems: unknown[] }) => ({ limits: 100 })) },
    items: { deleteItems: vi.fn(async () => 3) },
    lifecycle: {
      failUploadUpdate: vi.fn((_u: string, id: string) => ({ Update: { id } })),
      markUploadFailed: vi.fn(async () => undefined),
    },
    files: { deleteObject: vi.fn(async () => undefined) },
    identities: { deleteIdentity: vi.fn(async () => undefined) },
    sellers: { removeSellerIfUnused: vi.fn(async () => true) },
  };
  const deps = undo as unknown as UndoDeps;
  const upload = processing('up', { rows: 40, source_path: 'sources/u1/up.xlsx', identity: 'id-up' });

  it('deletes what the worker left, then refunds and fails the report in one transaction', async () => {
    expect(await failUpload(deps, upload, failure)).toBe(40);
    expect(undo.items.deleteItems).toHaveBeenCalledWith('u1', 'up');
    expect(undo.files.deleteObject).toHaveBeenCalledWith('sources/u1/up.xlsx');
    expect(undo.identities.deleteIdentity).toHaveBeenCalledWith('u1', 'id-up', 'up');
    expect(undo.lifecycle.failUploadUpdate).toHaveBeenCalledWith('u1', 'up', failure, 40);
    expect(undo.limits.refundLimits.mock.calls[0]![0]).toMatchObject({ extraItems: [{ Update: { id: 'up' } }] });
    expect(undo.lifecycle.markUploadFailed).not.toHaveBeenCalled();
  });

  it('refunded before: nothing given back, the report still ends failed', async () => {
    undo.limits.refundLimits.mockResolvedValueOnce(null as unknown as { limits: number });
    expect(await failUpload(deps, upload, failure)).toBe(0);
    expect(undo.lifecycle.markUploadFailed).toHaveBeenCalledWith('u1', 'up', failure, 40);
  });

  it('another recovery ended it first (the transaction conflicts): 0; a cleanup failure does not stop the refund', async () => {
    undo.items.deleteItems.mockRejectedValueOnce(new Error('throttled'));
    undo.limits.refundLimits.mockRejectedValueOnce(new AppError(409, 'transaction_conflict', 'conflict'));
    expect(await failUpload(deps, upload, failure)).toBe(0);
    undo.limits.refundLimits.mockRejectedValueOnce(new Error('store down'));
    await expect(failUpload(deps, upload, failure)).rejects.toThrow('store down');
  });

  it('drops the seller an upload created only when it has one, and never throws', async () => {
    await dropUnusedSeller(deps, 'u1', null);
    expect(undo.sellers.removeSellerIfUnused).not.toHaveBeenCalled();
    undo.sellers.removeSellerIfUnused.mockRejectedValueOnce(new Error('throttled'));
    await expect(dropUnusedSeller(deps, 'u1', 's1')).resolves.toBeUndefined();
    expect(undo.sellers.removeSellerIfUnused).toHaveBeenCalledWith('u1', 's1');
  });
});
