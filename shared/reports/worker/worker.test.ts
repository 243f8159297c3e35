/**
 * Unit tier (fast, no emulators): runWorkerEvent is real and gets fakes for everything it talks to
 * (ports.ts WorkerDeps: the report store and its transitions, files, the engine's reader, settings,
 * the recovery helpers and the invoker), so each test checks one decision of the worker in
 * milliseconds (claim, retry or give up, lost lease). test/integration/report-worker.test.ts runs the
 * worker against DynamoDB Local and s3rver.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../deps';
import { AppError } from '../../errors';
import type { WorkerEvent } from '../../jobs/worker-invoke';
import { setUnitEnv, unitReport, unitUser } from '../../../test/support/unit-fixtures';
import type { WorkerDeps } from '../ports';
import { runWorkerEvent } from './worker';
import type { ReportConfig } from '../ports';

vi.mock('../../log');

/** The catalog sync of the attempt (catalog-sync.ts, tested on its own). */
const catalog = { add: vi.fn(), done: vi.fn(), missing: vi.fn(), write: vi.fn(), complete: vi.fn() };

/** The report settings of these tests (ports.ts ReportConfig): no wait for the worker, the default lease and attempts. */
const CONFIG: ReportConfig = {
  maxUploadBytes: 512 * 1024 * 1024,
  uploadWaitMs: 0,
  uploadWaitRows: 100_000,
  workerLeaseMs: 60_000,
  workerMaxAttempts: 3,
};

const deps = {
  clock: manualClock('2026-01-05T10:00:00.000Z'),
  config: () => CONFIG,
  ids: { newId: () => 'owner-1' },
  invoker: { invoke: vi.fn() },
  reports: { getReportAnyStatus: vi.fn() },
  lifecycle: {
    claimReportTask: vi.fn(),
    renewReportTask: vi.fn(),
    releaseReportTask: vi.fn(),
    finishUploadTask: vi.fn(),
    finishRebuildTask: vi.fn(),
    claimCatalogTask: vi.fn(),
    releaseCatalogTask: vi.fn(),
    finishCatalogTask: vi.fn(),
  },
  items: { writeItems: vi.fn() },
  itemReader: { getItemsOfGen: vi.fn() },
  users: { getUserById: vi.fn() },
  sellers: { ensureSellerByNumber: vi.fn() },
  files: { objectRanges: vi.fn() },
  engine: { readReport: vi.fn(), buildItems: vi.fn() },
  handover: { take: vi.fn() },
  settings: { resolveReportSettings: vi.fn() },
  catalogSync: vi.fn(),
  summaries: { writeReportSummary: vi.fn() },
  duplicates: { putIdentity: vi.fn(), deleteIdentity: vi.fn(), findContentDuplicate: vi.fn() },
  rebuildReport: vi.fn(),
  failUpload: vi.fn(),
  dropUnusedSeller: vi.fn(),
};
const run = (e: WorkerEvent) => runWorkerEvent(deps as unknown as WorkerDeps, e);

setUnitEnv({ WORKER_MAX_ATTEMPTS: '3' });

const event: WorkerEvent = { kind: 'report', user_id: 'u1', report_id: 'r1', task_id: 't1' };
const processing = (over = {}) =>
  unitReport({ status: 'processing', task: 'upload', task_id: 't1', attempts: 1, ...over });

const parsed = {
  rows: 3,
  format: 'xlsx',
  articles: [{ article: 'A' }, { article: 'B' }],
  seller_number: '777',
  report_number: '123',
  period_from: '2024-01-01',
  period_to: '2024-01-07',
  warnings: [],
};

function item(article: string) {
  return { article, effective: {}, computed: {}, manual_values: {} };
}

beforeEach(() => {
  vi.resetAllMocks();
  deps.catalogSync.mockReturnValue(catalog);
  deps.reports.getReportAnyStatus.mockResolvedValue(processing());
  deps.lifecycle.claimReportTask.mockResolvedValue(processing());
  deps.users.getUserById.mockResolvedValue(unitUser());
  deps.lifecycle.renewReportTask.mockResolvedValue(true);
  deps.lifecycle.releaseReportTask.mockResolvedValue(true);
  deps.invoker.invoke.mockResolvedValue(undefined as never);
  deps.files.objectRanges.mockResolvedValue({ size: 1, etag: null, readRange: vi.fn() } as never);
  deps.engine.readReport.mockResolvedValue(parsed as never);
  deps.sellers.ensureSellerByNumber.mockResolvedValue({ id: 's1' } as never);
  deps.settings.resolveReportSettings.mockResolvedValue({
    settings: { tax: unitUser().tax, costPrices: {}, allocation: 'realization' },
    known: new Set(['A']),
    warnings: [],
    date: '2024-01-04',
  } as never);
  deps.engine.buildItems.mockReturnValue({
    items: [item('A'), item('B')],
    allocation: undefined,
    warnings: [],
  } as never);
  deps.lifecycle.finishUploadTask.mockImplementation(async () => processing({ status: 'ready' }));
  deps.lifecycle.finishRebuildTask.mockResolvedValue(true as never);
  catalog.done.mockResolvedValue({ prices: {}, known: new Set(['A']) });
  catalog.missing.mockReturnValue(['B']);
  catalog.write.mockResolvedValue(1);
  deps.lifecycle.finishCatalogTask.mockResolvedValue(true);
});

describe('runWorkerEvent: which events run', () => {
  it('an event of another task is skipped without a claim', async () => {
    expect(await run({ ...event, task_id: 'old' })).toBe('skipped');
    expect(deps.lifecycle.claimReportTask).not.toHaveBeenCalled();
  });

  it('a report no longer processing (ready, failed or gone) is skipped', async () => {
    deps.reports.getReportAnyStatus.mockResolvedValueOnce(unitReport({ status: 'ready', task_id: 't1' }));
    expect(await run(event)).toBe('skipped');
    deps.reports.getReportAnyStatus.mockResolvedValueOnce(null);
    expect(await run(event)).toBe('skipped');
    expect(deps.lifecycle.claimReportTask).not.toHaveBeenCalled();
  });

  it('a claim refused (a live worker holds the lease) is skipped and writes nothing', async () => {
    deps.lifecycle.claimReportTask.mockResolvedValue(null);
    expect(await run(event)).toBe('skipped');
    expect(deps.files.objectRanges).not.toHaveBeenCalled();
    expect(deps.failUpload).not.toHaveBeenCalled();
  });

  it('attempts already past WORKER_MAX_ATTEMPTS (a run that died) end the upload failed and refunded', async () => {
    deps.lifecycle.claimReportTask.mockResolvedValue(processing({ attempts: 4 }));
    expect(await run(event)).toBe('failed');
    expect(deps.failUpload.mock.calls[0]![1].code).toBe('processing_failed');
    expect(deps.files.objectRanges).not.toHaveBeenCalled();
  });

  it('a user gone ends the task failed', async () => {
    deps.users.getUserById.mockResolvedValue(null);
    expect(await run(event)).toBe('failed');
    expect(deps.failUpload).toHaveBeenCalledOnce();
  });
});

describe('runWorkerEvent: the same rows as another report', () => {
  const content = { value: 'r1:3:00000000000000ab', days: { '2024-01-02': '3:00000000000000ab' } };
  const older = { id: 'r0', title: 'Отчёт №1', created_at: '2026-01-01T00:00:00.000Z' };

  it('fails the upload as duplicate_report before building (refunded once by failUpload)', async () => {
    deps.engine.readReport.mockResolvedValue({ ...parsed, content } as never);
    deps.duplicates.findContentDuplicate.mockResolvedValue(older);
    expect(await run(event)).toBe('failed');
    expect(deps.duplicates.putIdentity).toHaveBeenCalledWith('u1', `fp:${content.value}`, 'r1', expect.any(String));
    expect(deps.duplicates.deleteIdentity).toHaveBeenCalledWith('u1', `fp:${content.value}`, 'r1');
    expect(deps.engine.buildItems).not.toHaveBeenCalled();
    expect(deps.items.writeItems).not.toHaveBeenCalled();
    expect(deps.failUpload).toHaveBeenCalledOnce();
    expect(deps.failUpload.mock.calls[0]![1]).toMatchObject({ code: 'duplicate_report', duplicate_of: 'r0' });
  });

  it('builds it when no older report has these rows, and keeps the fingerprint on the report', async () => {
    deps.engine.readReport.mockResolvedValue({ ...parsed, content } as never);
    deps.duplicates.findContentDuplicate.mockResolvedValue(null);
    expect(await run(event)).toBe('ready');
    expect(deps.lifecycle.finishUploadTask.mock.calls[0]![3]).toMatchObject({
      content_fingerprint: content.value,
      content_days: content.days,
      wb_report_id: '123',
    });
  });

  it('builds it anyway when the upload allowed a duplicate', async () => {
    deps.lifecycle.claimReportTask.mockResolvedValue(processing({ allow_duplicate: true }));
    deps.engine.readReport.mockResolvedValue({ ...parsed, content } as never);
    deps.duplicates.findContentDuplicate.mockResolvedValue(older);
    expect(await run(event)).toBe('ready');
    expect(deps.duplicates.findContentDuplicate).not.toHaveBeenCalled();
  });
});

describe('runWorkerEvent: an upload', () => {
  it('writes the items, syncs the catalog with the articles and marks the report ready with its seller', async () => {
    expect(await run(event)).toBe('ready');
    expect(deps.items.writeItems).toHaveBeenCalledWith('u1', 'r1', 1, [item('A'), item('B')]);
    // The catalog is synced with the report's articles, and its prices go to the settings.
    expect(catalog.done).toHaveBeenCalledWith(['A', 'B'], '2024-01-04');
    expect(deps.settings.resolveReportSettings.mock.calls[0]![4]).toBe(catalog.done.mock.results[0]!.value);
    const fields = deps.lifecycle.finishUploadTask.mock.calls[0]![3];
    expect(fields).toMatchObject({ seller_id: 's1', report_number: '123', item_count: 2, title: 'Отчёт' });
    expect(deps.summaries.writeReportSummary).toHaveBeenCalledOnce();
  });

  it('marks the report ready before writing the new articles to the catalog, then ends the follow-up', async () => {
    const order: string[] = [];
    deps.lifecycle.finishUploadTask.mockImplementation(async () => {
      order.push('ready');
      return processing({ status: 'ready' });
    });
    catalog.write.mockImplementation(async () => {
      order.push('catalog');
      return 1;
    });
    expect(await run(event)).toBe('ready');
    expect(order).toEqual(['ready', 'catalog']);
    // The follow-up goes with the ready report (so recovery finds it if this run dies), leased to this run (CATALOG_LEASE_FACTOR report leases).
    const followUp = deps.lifecycle.finishUploadTask.mock.calls[0]![4];
    expect(followUp).toMatchObject({ task_id: 'owner-1', attempts: 1 });
    expect(deps.lifecycle.finishCatalogTask).toHaveBeenCalledWith('u1', 'r1', 'owner-1');
  });

  it('every article known: no follow-up', async () => {
    catalog.missing.mockReturnValue([]);
    expect(await run(event)).toBe('ready');
    expect(deps.lifecycle.finishUploadTask.mock.calls[0]![4]).toBeUndefined();
    expect(catalog.write).not.toHaveBeenCalled();
  });

  it('a catalog write that fails leaves the report ready and the follow-up pending (no retry of the report)', async () => {
    catalog.write.mockRejectedValue(new AppError(429, 'rate_limited', 'throttled'));
    expect(await run(event)).toBe('ready');
    expect(deps.lifecycle.finishCatalogTask).not.toHaveBeenCalled();
    expect(deps.failUpload).not.toHaveBeenCalled();
    expect(deps.lifecycle.releaseReportTask).not.toHaveBeenCalled();
  });

  it('without a report number the period names the report', async () => {
    deps.engine.readReport.mockResolvedValue({ ...parsed, report_number: null } as never);
    await run(event);
    expect(deps.lifecycle.finishUploadTask.mock.calls[0]![3].title).not.toBe('Отчёт');
  });

  it("a file error (4xx) ends at once: failed with the file's code and refunded, no retry", async () => {
    deps.engine.readReport.mockRejectedValue(new AppError(422, 'missing_headers', 'no headers'));
    expect(await run(event)).toBe('failed');
    expect(deps.failUpload.mock.calls[0]![1].code).toBe('missing_headers');
    expect(deps.lifecycle.releaseReportTask).not.toHaveBeenCalled();
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
    // Nothing was written to the catalog.
    expect(catalog.write).not.toHaveBeenCalled();
  });

  it('more rows in the file than were charged (the bytes changed after the count) → failed source_changed', async () => {
    deps.engine.readReport.mockResolvedValue({ ...parsed, rows: 11 } as never); // the record charged 10
    expect(await run(event)).toBe('failed');
    expect(deps.failUpload.mock.calls[0]![1].code).toBe('source_changed');
    expect(deps.items.writeItems).not.toHaveBeenCalled();
  });

  it('a missing source is a 409 source_missing: failed at once', async () => {
    deps.files.objectRanges.mockResolvedValue(null);
    expect(await run(event)).toBe('failed');
    expect(deps.failUpload.mock.calls[0]![1].code).toBe('source_missing');
  });

  it('a server fault (5xx) before the last attempt releases the lease and re-invokes the same event', async () => {
    deps.items.writeItems.mockRejectedValue(new Error('DynamoDB throttled'));
    expect(await run(event)).toBe('retrying');
    expect(deps.lifecycle.releaseReportTask).toHaveBeenCalledOnce();
    expect(deps.invoker.invoke).toHaveBeenCalledWith(event);
    expect(deps.failUpload).not.toHaveBeenCalled();
  });

  it('a release refused (another worker took over) does not re-invoke', async () => {
    deps.items.writeItems.mockRejectedValue(new Error('boom'));
    deps.lifecycle.releaseReportTask.mockResolvedValue(false);
    expect(await run(event)).toBe('retrying');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a server fault on the last attempt (WORKER_MAX_ATTEMPTS) fails, refunds and drops the seller it created', async () => {
    deps.lifecycle.claimReportTask.mockResolvedValue(processing({ attempts: 3 }));
    deps.items.writeItems.mockRejectedValue(new Error('boom'));
    expect(await run(event)).toBe('failed');
    expect(deps.failUpload.mock.calls[0]![1].code).toBe('processing_failed');
    expect(deps.dropUnusedSeller).toHaveBeenCalledWith('u1', 's1');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a lease lost while reading: nothing is written after, no failure, no retry', async () => {
    deps.lifecycle.renewReportTask.mockResolvedValue(false);
    // The read yields to the timers, so the heartbeat's refused renewal lands before the next check.
    deps.engine.readReport.mockImplementation(async () => {
      await new Promise((r) => setTimeout(r, 0));
      return parsed as never;
    });
    expect(await run(event)).toBe('lost');
    expect(deps.items.writeItems).not.toHaveBeenCalled();
    expect(deps.lifecycle.finishUploadTask).not.toHaveBeenCalled();
    expect(deps.failUpload).not.toHaveBeenCalled();
    expect(deps.lifecycle.releaseReportTask).not.toHaveBeenCalled();
  });

  it('a finish refused by its lease condition is lost, not ready', async () => {
    deps.lifecycle.finishUploadTask.mockResolvedValue(null);
    expect(await run(event)).toBe('lost');
    expect(deps.summaries.writeReportSummary).not.toHaveBeenCalled();
    expect(deps.failUpload).not.toHaveBeenCalled();
  });
});

describe('runWorkerEvent: the read the preview handed over', () => {
  it('an upload whose preview kept its read is built from it: the file is not read again', async () => {
    deps.lifecycle.claimReportTask.mockResolvedValue(
      processing({ rows: 3, read_key: 'uploads/u1/up1/r.zip.read.json.gz' }),
    );
    deps.handover.take.mockResolvedValue(parsed);
    expect(await run(event)).toBe('ready');
    expect(deps.handover.take).toHaveBeenCalledWith('uploads/u1/up1/r.zip.read.json.gz');
    expect(deps.engine.readReport).not.toHaveBeenCalled();
    // The catalog is looked up for the read's articles as for a file's.
    expect(catalog.add.mock.calls.map((c) => c[0])).toEqual(['A', 'B']);
    expect(deps.engine.buildItems).toHaveBeenCalledOnce();
  });

  it.each([
    ['gone or of another version', null],
    ['of another row count than the charge', { ...parsed, rows: 4 }],
  ])('a kept read %s: the file is read instead', async (_what, kept) => {
    deps.lifecycle.claimReportTask.mockResolvedValue(processing({ rows: 3, read_key: 'k' }));
    deps.handover.take.mockResolvedValue(kept);
    expect(await run(event)).toBe('ready');
    expect(deps.engine.readReport).toHaveBeenCalledOnce();
  });

  it('the store failing to give the kept read: the file is read instead', async () => {
    deps.lifecycle.claimReportTask.mockResolvedValue(processing({ rows: 3, read_key: 'k' }));
    deps.handover.take.mockRejectedValue(new Error('s3 down'));
    expect(await run(event)).toBe('ready');
    expect(deps.engine.readReport).toHaveBeenCalledOnce();
  });

  it('an upload without a kept read never asks for one', async () => {
    expect(await run(event)).toBe('ready');
    expect(deps.handover.take).not.toHaveBeenCalled();
    expect(deps.engine.readReport).toHaveBeenCalledOnce();
  });
});

describe('runWorkerEvent: a rebuild', () => {
  beforeEach(() => {
    const rebuilding = processing({ task: 'rebuild' });
    deps.reports.getReportAnyStatus.mockResolvedValue(rebuilding);
    deps.lifecycle.claimReportTask.mockResolvedValue(rebuilding);
  });

  it('ends ready with last_rebuild listing the dropped corrections', async () => {
    const dropped = [{ article: 'Z', field: 'cost_price', value: 1 }];
    deps.rebuildReport.mockResolvedValue({ record: unitReport(), items: [], seller: null, dropped } as never);
    expect(await run(event)).toBe('ready');
    expect(deps.lifecycle.finishRebuildTask.mock.calls[0]![3]).toMatchObject({ task_id: 't1', dropped });
  });

  it('a permanent failure keeps the report as it was: the error goes into last_rebuild, nothing refunded', async () => {
    deps.rebuildReport.mockRejectedValue(new AppError(409, 'source_missing', 'gone'));
    expect(await run(event)).toBe('failed');
    expect(deps.lifecycle.finishRebuildTask.mock.calls[0]![3]).toMatchObject({ error: { code: 'source_missing' } });
    expect(deps.failUpload).not.toHaveBeenCalled();
  });
});

describe('runWorkerEvent: a catalog follow-up handed on by recovery', () => {
  const followUp = (attempts: number) =>
    unitReport({ status: 'ready', task_id: 't1', catalog_task: { task_id: 'c1', until: 0, attempts } });
  const catalogEvent: WorkerEvent = { ...event, task_id: 'c1' };

  it('claims it, reads the report’s articles, adds the missing ones and ends it', async () => {
    deps.reports.getReportAnyStatus.mockResolvedValue(followUp(1));
    deps.lifecycle.claimCatalogTask.mockResolvedValue(followUp(2));
    deps.itemReader.getItemsOfGen.mockResolvedValue([item('A'), item('B')] as never);
    catalog.complete.mockResolvedValue(1);
    expect(await run(catalogEvent)).toBe('ready');
    expect(catalog.complete).toHaveBeenCalledWith(['A', 'B']);
    expect(deps.lifecycle.finishCatalogTask).toHaveBeenCalledWith('u1', 'r1', 'c1');
    expect(deps.lifecycle.claimReportTask).not.toHaveBeenCalled();
  });

  it('held by another worker (or ended): skipped', async () => {
    deps.reports.getReportAnyStatus.mockResolvedValue(followUp(1));
    deps.lifecycle.claimCatalogTask.mockResolvedValue(null);
    expect(await run(catalogEvent)).toBe('skipped');
    expect(catalog.complete).not.toHaveBeenCalled();
  });

  it('fails again: stays pending for recovery; after its last attempt it is dropped', async () => {
    deps.reports.getReportAnyStatus.mockResolvedValue(followUp(1));
    deps.itemReader.getItemsOfGen.mockResolvedValue([item('A')] as never);
    deps.lifecycle.claimCatalogTask.mockResolvedValue(followUp(2));
    catalog.complete.mockRejectedValue(new Error('throttled'));
    expect(await run(catalogEvent)).toBe('retrying');
    expect(deps.lifecycle.finishCatalogTask).not.toHaveBeenCalled();
    deps.lifecycle.claimCatalogTask.mockResolvedValue(followUp(11));
    expect(await run(catalogEvent)).toBe('failed');
    expect(deps.lifecycle.finishCatalogTask).toHaveBeenCalledWith('u1', 'r1', 'c1');
  });
});
