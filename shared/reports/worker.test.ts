/**
 * Unit tier (fast, no emulators): runWorkerEvent is real; the report store, S3 files, the engine's
 * reader, settings, the recovery helpers (failUpload/dropUnusedSeller) and the invoker are vi.mock'ed,
 * so each test checks one decision of the worker in milliseconds (claim, retry or give up, lost lease).
 * test/integration/report-worker.test.ts runs the worker against DynamoDB Local and s3rver.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors';
import { buildItems, readReport } from '../engine';
import { objectRanges } from '../files/objects';
import { writeItems } from '../store/items.repo';
import {
  claimReportTask,
  finishRebuildTask,
  finishUploadTask,
  releaseReportTask,
  renewReportTask,
} from '../store/report-lifecycle.repo';
import { getReportAnyStatus } from '../store/reports.repo';
import { ensureSellerByNumber } from '../store/sellers.repo';
import { getUserById } from '../store/users.repo';
import type { WorkerEvent } from '../jobs/worker-invoke';
import { invokeWorker } from '../jobs/worker-invoke';
import { setUnitEnv, unitReport, unitUser } from '../../test/support/unit-fixtures';
import { writeReportSummary } from './analytics';
import { rebuildReport } from './rebuild';
import { dropUnusedSeller, failUpload } from './recover';
import { resolveReportSettings } from './settings';
import { parseFaults, runWorkerEvent } from './worker';

vi.mock('../log');
vi.mock('../engine', async (actual) => ({
  ...(await actual<typeof import('../engine')>()),
  readReport: vi.fn(),
  buildItems: vi.fn(),
}));
vi.mock('../files/objects', () => ({ objectRanges: vi.fn() }));
vi.mock('../store/items.repo', () => ({ writeItems: vi.fn() }));
vi.mock('./catalog-sync', () => ({
  CatalogSync: vi.fn(function CatalogSync() {
    return catalog;
  }),
}));
vi.mock('../store/report-lifecycle.repo', () => ({
  claimReportTask: vi.fn(),
  finishRebuildTask: vi.fn(),
  finishUploadTask: vi.fn(),
  releaseReportTask: vi.fn(),
  renewReportTask: vi.fn(),
}));
vi.mock('../store/reports.repo', () => ({ getReportAnyStatus: vi.fn() }));
vi.mock('../store/sellers.repo', () => ({ ensureSellerByNumber: vi.fn() }));
vi.mock('../store/users.repo', () => ({ getUserById: vi.fn() }));
vi.mock('../jobs/worker-invoke', () => ({ invokeWorker: vi.fn() }));
vi.mock('./recover', () => ({ dropUnusedSeller: vi.fn(), failUpload: vi.fn() }));
vi.mock('./analytics', () => ({ writeReportSummary: vi.fn() }));
vi.mock('./rebuild', () => ({ rebuildReport: vi.fn() }));
vi.mock('./settings', () => ({ resolveReportSettings: vi.fn(), settingsDate: vi.fn(() => '2024-01-04') }));

/** The catalog sync of the attempt (catalog-sync.ts, tested on its own). */
const catalog = vi.hoisted(() => ({ add: vi.fn(), done: vi.fn(), undo: vi.fn() }));
vi.mock('./upload', () => ({
  missingArticles: (a: readonly string[], known: ReadonlySet<string>) => a.filter((x) => !known.has(x)),
}));

setUnitEnv({ WORKER_MAX_ATTEMPTS: '3' });

describe('WORKER_FAULT rules', () => {
  it('reads one or several rules, times defaulting to always, and ignores malformed ones', () => {
    expect(parseFaults('')).toEqual([]);
    expect(parseFaults('fail_after_items=5')).toEqual([{ failAfterItems: 5, times: Infinity, match: '' }]);
    expect(parseFaults('fail_after_items=3,times=1,match=once-;fail_after_items=0,match=always-;junk')).toEqual([
      { failAfterItems: 3, times: 1, match: 'once-' },
      { failAfterItems: 0, times: Infinity, match: 'always-' },
    ]);
    expect(parseFaults('fail_after_items=-1;fail_after_items=x')).toEqual([]);
  });
});

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
  vi.mocked(getReportAnyStatus).mockResolvedValue(processing());
  vi.mocked(claimReportTask).mockResolvedValue(processing());
  vi.mocked(getUserById).mockResolvedValue(unitUser());
  vi.mocked(renewReportTask).mockResolvedValue(true);
  vi.mocked(releaseReportTask).mockResolvedValue(true);
  vi.mocked(invokeWorker).mockResolvedValue(undefined as never);
  vi.mocked(objectRanges).mockResolvedValue({ size: 1, etag: null, readRange: vi.fn() } as never);
  vi.mocked(readReport).mockResolvedValue(parsed as never);
  vi.mocked(ensureSellerByNumber).mockResolvedValue({ id: 's1' } as never);
  vi.mocked(resolveReportSettings).mockResolvedValue({
    settings: { tax: unitUser().tax, costPrices: {}, allocation: 'realization' },
    known: new Set(['A']),
    warnings: [],
    date: '2024-01-04',
  } as never);
  vi.mocked(buildItems).mockReturnValue({
    items: [item('A'), item('B')],
    allocation: undefined,
    warnings: [],
  } as never);
  vi.mocked(finishUploadTask).mockImplementation(async () => processing({ status: 'ready' }));
  vi.mocked(finishRebuildTask).mockResolvedValue(true as never);
  catalog.done.mockResolvedValue({ prices: {}, known: new Set(['A']) });
  catalog.undo.mockResolvedValue(0);
});

describe('runWorkerEvent: which events run', () => {
  it('an event of another task is skipped without a claim', async () => {
    expect(await runWorkerEvent({ ...event, task_id: 'old' })).toBe('skipped');
    expect(claimReportTask).not.toHaveBeenCalled();
  });

  it('a report no longer processing (ready, failed or gone) is skipped', async () => {
    vi.mocked(getReportAnyStatus).mockResolvedValueOnce(unitReport({ status: 'ready', task_id: 't1' }));
    expect(await runWorkerEvent(event)).toBe('skipped');
    vi.mocked(getReportAnyStatus).mockResolvedValueOnce(null);
    expect(await runWorkerEvent(event)).toBe('skipped');
    expect(claimReportTask).not.toHaveBeenCalled();
  });

  it('a claim refused (a live worker holds the lease) is skipped and writes nothing', async () => {
    vi.mocked(claimReportTask).mockResolvedValue(null);
    expect(await runWorkerEvent(event)).toBe('skipped');
    expect(objectRanges).not.toHaveBeenCalled();
    expect(failUpload).not.toHaveBeenCalled();
  });

  it('attempts already past WORKER_MAX_ATTEMPTS (a run that died) end the upload failed and refunded', async () => {
    vi.mocked(claimReportTask).mockResolvedValue(processing({ attempts: 4 }));
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(vi.mocked(failUpload).mock.calls[0]![1].code).toBe('processing_failed');
    expect(objectRanges).not.toHaveBeenCalled();
  });

  it('a user gone ends the task failed', async () => {
    vi.mocked(getUserById).mockResolvedValue(null);
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(failUpload).toHaveBeenCalledOnce();
  });
});

describe('runWorkerEvent: an upload', () => {
  it('writes the items, syncs the catalog with the articles and marks the report ready with its seller', async () => {
    expect(await runWorkerEvent(event)).toBe('ready');
    expect(writeItems).toHaveBeenCalledWith('u1', 'r1', 1, [item('A'), item('B')]);
    // The catalog is synced with the report's articles, and its prices go to the settings.
    expect(catalog.done).toHaveBeenCalledWith(['A', 'B'], '2024-01-04');
    expect(vi.mocked(resolveReportSettings).mock.calls[0]![4]).toBe(catalog.done.mock.results[0]!.value);
    expect(catalog.undo).not.toHaveBeenCalled();
    const fields = vi.mocked(finishUploadTask).mock.calls[0]![3];
    expect(fields).toMatchObject({ seller_id: 's1', report_number: '123', item_count: 2, title: 'Отчёт' });
    expect(writeReportSummary).toHaveBeenCalledOnce();
  });

  it('without a report number the period names the report', async () => {
    vi.mocked(readReport).mockResolvedValue({ ...parsed, report_number: null } as never);
    await runWorkerEvent(event);
    expect(vi.mocked(finishUploadTask).mock.calls[0]![3].title).not.toBe('Отчёт');
  });

  it("a file error (4xx) ends at once: failed with the file's code and refunded, no retry", async () => {
    vi.mocked(readReport).mockRejectedValue(new AppError(422, 'missing_headers', 'no headers'));
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(vi.mocked(failUpload).mock.calls[0]![1].code).toBe('missing_headers');
    expect(releaseReportTask).not.toHaveBeenCalled();
    expect(invokeWorker).not.toHaveBeenCalled();
    // What the read added to the catalog is taken back.
    expect(catalog.undo).toHaveBeenCalledOnce();
  });

  it('more rows in the file than were charged (the bytes changed after the count) → failed source_changed', async () => {
    vi.mocked(readReport).mockResolvedValue({ ...parsed, rows: 11 } as never); // the record charged 10
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(vi.mocked(failUpload).mock.calls[0]![1].code).toBe('source_changed');
    expect(writeItems).not.toHaveBeenCalled();
  });

  it('a missing source is a 409 source_missing: failed at once', async () => {
    vi.mocked(objectRanges).mockResolvedValue(null);
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(vi.mocked(failUpload).mock.calls[0]![1].code).toBe('source_missing');
  });

  it('a server fault (5xx) before the last attempt releases the lease and re-invokes the same event', async () => {
    vi.mocked(writeItems).mockRejectedValue(new Error('DynamoDB throttled'));
    expect(await runWorkerEvent(event)).toBe('retrying');
    expect(releaseReportTask).toHaveBeenCalledOnce();
    expect(invokeWorker).toHaveBeenCalledWith(event);
    expect(failUpload).not.toHaveBeenCalled();
  });

  it('a release refused (another worker took over) does not re-invoke', async () => {
    vi.mocked(writeItems).mockRejectedValue(new Error('boom'));
    vi.mocked(releaseReportTask).mockResolvedValue(false);
    expect(await runWorkerEvent(event)).toBe('retrying');
    expect(invokeWorker).not.toHaveBeenCalled();
  });

  it('a server fault on the last attempt (WORKER_MAX_ATTEMPTS) fails, refunds and drops the seller it created', async () => {
    vi.mocked(claimReportTask).mockResolvedValue(processing({ attempts: 3 }));
    vi.mocked(writeItems).mockRejectedValue(new Error('boom'));
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(vi.mocked(failUpload).mock.calls[0]![1].code).toBe('processing_failed');
    expect(dropUnusedSeller).toHaveBeenCalledWith('u1', 's1');
    expect(invokeWorker).not.toHaveBeenCalled();
  });

  it('a lease lost while reading: nothing is written after, no failure, no retry', async () => {
    vi.mocked(renewReportTask).mockResolvedValue(false);
    // The read yields to the timers, so the heartbeat's refused renewal lands before the next check.
    vi.mocked(readReport).mockImplementation(async () => {
      await new Promise((r) => setTimeout(r, 0));
      return parsed as never;
    });
    expect(await runWorkerEvent(event)).toBe('lost');
    expect(writeItems).not.toHaveBeenCalled();
    expect(finishUploadTask).not.toHaveBeenCalled();
    expect(failUpload).not.toHaveBeenCalled();
    expect(releaseReportTask).not.toHaveBeenCalled();
  });

  it('a finish refused by its lease condition is lost, not ready', async () => {
    vi.mocked(finishUploadTask).mockResolvedValue(null);
    expect(await runWorkerEvent(event)).toBe('lost');
    expect(writeReportSummary).not.toHaveBeenCalled();
    expect(failUpload).not.toHaveBeenCalled();
  });
});

describe('runWorkerEvent: a rebuild', () => {
  beforeEach(() => {
    const rebuilding = processing({ task: 'rebuild' });
    vi.mocked(getReportAnyStatus).mockResolvedValue(rebuilding);
    vi.mocked(claimReportTask).mockResolvedValue(rebuilding);
  });

  it('ends ready with last_rebuild listing the dropped corrections', async () => {
    const dropped = [{ article: 'Z', field: 'cost_price', value: 1 }];
    vi.mocked(rebuildReport).mockResolvedValue({ record: unitReport(), items: [], seller: null, dropped } as never);
    expect(await runWorkerEvent(event)).toBe('ready');
    expect(vi.mocked(finishRebuildTask).mock.calls[0]![3]).toMatchObject({ task_id: 't1', dropped });
  });

  it('a permanent failure keeps the report as it was: the error goes into last_rebuild, nothing refunded', async () => {
    vi.mocked(rebuildReport).mockRejectedValue(new AppError(409, 'source_missing', 'gone'));
    expect(await runWorkerEvent(event)).toBe('failed');
    expect(vi.mocked(finishRebuildTask).mock.calls[0]![3]).toMatchObject({ error: { code: 'source_missing' } });
    expect(failUpload).not.toHaveBeenCalled();
  });
});
