/**
 * Unit tier (fast, no emulators): rebuildReport, startRebuild and rebuildMany are real; everything they
 * talk to (the report store and its transitions, S3 files, the engine's reader and item builder,
 * settings, summaries, the invoker, ids and the clock) is passed as fakes (ports.ts), so each decision
 * (source missing, corrections carried by article, retry on a concurrent change, joining a running
 * rebuild, skipping) is checked in milliseconds.
 * test/integration/reports-corrections.test.ts and report-settings.test.ts run rebuilds end to end.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredItem } from '../../store/items.repo';
import type { ReportRecord } from '../../store/report-record';
import { manualClock } from '../../deps';
import { refusal, setUnitEnv, unitReport, unitUser } from '../../../test/support/unit-fixtures';
import {
  rebuildMany,
  rebuildReport as rebuildReportWith,
  startRebuild as startRebuildWith,
  type RebuildDeps,
  type RebuildRunDeps,
} from './rebuild';
import type { ReportConfig } from '../ports';

vi.mock('../../log');

setUnitEnv();

/** The rebuild's dependencies (ports.ts): stores, files, the engine, settings, the invoker, ids, the clock. */
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
  ids: { newId: vi.fn() },
  invoker: { invoke: vi.fn() },
  lifecycle: { startRebuildTask: vi.fn() },
  reports: {
    getReport: vi.fn<RebuildDeps['reports']['getReport']>(),
    getReportAnyStatus: vi.fn<RebuildDeps['reports']['getReportAnyStatus']>(),
    getReportItems: vi.fn<RebuildDeps['reports']['getReportItems']>(),
    listAllReports: vi.fn<RebuildDeps['reports']['listAllReports']>(),
  },
  sellers: { getSeller: vi.fn<RebuildDeps['sellers']['getSeller']>() },
  files: { objectRanges: vi.fn() },
  engine: { readReport: vi.fn(), buildItems: vi.fn() },
  settings: { resolveReportSettings: vi.fn() },
  summaries: { writeReportSummary: vi.fn() },
  products: { ensureProducts: vi.fn() },
  numbers: { replaceItems: vi.fn<RebuildRunDeps['numbers']['replaceItems']>() },
  duplicates: { putIdentity: vi.fn(), deleteIdentity: vi.fn() },
};
const asDeps = deps as unknown as RebuildDeps & RebuildRunDeps;
const rebuildReport = (u: typeof user, id: string) => rebuildReportWith(asDeps, u, id);
const startRebuild = (u: typeof user, id: string, wait: number) => startRebuildWith(asDeps, u, id, wait);

const user = unitUser();
const parsed = {
  rows: 7,
  format: 'xlsx',
  articles: [{ article: 'A' }, { article: 'B' }],
  report_number: '9',
  period_from: '2024-02-01',
  period_to: '2024-02-07',
  warnings: [{ code: 'from_file', message: 'f' }],
};

function stored(article: string, manual: Record<string, number> = {}): StoredItem {
  return { article, manual_values: manual } as unknown as StoredItem;
}

beforeEach(() => {
  vi.resetAllMocks();
  deps.reports.getReport.mockResolvedValue(unitReport());
  deps.files.objectRanges.mockResolvedValue({ size: 1, etag: null, readRange: vi.fn() } as never);
  deps.engine.readReport.mockResolvedValue(parsed as never);
  deps.reports.getReportItems.mockResolvedValue([]);
  deps.settings.resolveReportSettings.mockResolvedValue({
    settings: { tax: user.tax, costPrices: {}, allocation: 'realization' },
    known: new Set(['A']),
    warnings: [{ code: 'vat_rate_adjusted', message: 'v' }],
    date: '2024-02-04',
  } as never);
  deps.engine.buildItems.mockReturnValue({ items: [], dropped: [], allocation: undefined, warnings: [] } as never);
  deps.numbers.replaceItems.mockImplementation(async (record: ReportRecord) => ({ record, items: [] }) as never);
  deps.ids.newId.mockReturnValue('tnew');
  deps.lifecycle.startRebuildTask.mockResolvedValue(true as never);
  deps.invoker.invoke.mockResolvedValue(undefined as never);
});

describe('rebuildReport (the worker body)', () => {
  it('a combined report, or one without a stored source → 409 source_missing, nothing read', async () => {
    for (const record of [unitReport({ is_combined: true }), unitReport({ source_path: null })]) {
      deps.reports.getReport.mockResolvedValue(record);
      expect(await refusal(rebuildReport(user, 'r1'))).toMatchObject({ status: 409, code: 'source_missing' });
    }
    expect(deps.files.objectRanges).not.toHaveBeenCalled();
  });

  it('a stored source gone from S3 → 409 source_missing', async () => {
    deps.files.objectRanges.mockResolvedValue(null);
    expect((await refusal(rebuildReport(user, 'r1'))).code).toBe('source_missing');
    expect(deps.numbers.replaceItems).not.toHaveBeenCalled();
  });

  it('carries the corrections over by article (items without one add nothing) and returns the dropped ones', async () => {
    deps.reports.getReportItems.mockResolvedValue([
      stored('A', { cost_price: 1500 }),
      stored('B'),
      stored('GONE', { qty: 2 }),
    ]);
    const dropped = [{ article: 'GONE', field: 'qty', value: 2 }];
    deps.engine.buildItems.mockReturnValue({ items: [], dropped, allocation: undefined, warnings: [] } as never);
    const r = await rebuildReport(user, 'r1');
    expect(deps.engine.buildItems.mock.calls[0]![2]).toEqual({ A: { cost_price: 1500 }, GONE: { qty: 2 } });
    expect(r.dropped).toEqual(dropped);
  });

  it("switches to the new items with the file's rows, period and the settings' warnings first", async () => {
    await rebuildReport(user, 'r1');
    const patch = deps.numbers.replaceItems.mock.calls[0]![2];
    expect(patch).toMatchObject({ rows: 7, period_from: '2024-02-01', period_to: '2024-02-07', report_number: '9' });
    expect(patch.warnings?.map((w) => w.code)).toEqual(['vat_rate_adjusted', 'from_file']);
    expect(deps.products.ensureProducts).toHaveBeenCalledWith('u1', ['B']);
  });

  it('a report changed meanwhile (replace refused) is rebuilt again from its new state', async () => {
    deps.numbers.replaceItems.mockResolvedValueOnce(null);
    await rebuildReport(user, 'r1');
    expect(deps.numbers.replaceItems).toHaveBeenCalledTimes(2);
    expect(deps.reports.getReport).toHaveBeenCalledTimes(2);
  });

  it('refused three times → 409 report_busy', async () => {
    deps.numbers.replaceItems.mockResolvedValue(null);
    expect((await refusal(rebuildReport(user, 'r1'))).code).toBe('report_busy');
    expect(deps.numbers.replaceItems).toHaveBeenCalledTimes(3);
  });
});

describe('startRebuild (the route)', () => {
  it('without a source → 409 source_missing and no task started', async () => {
    deps.reports.getReport.mockResolvedValue(unitReport({ source_path: null }));
    expect((await refusal(startRebuild(user, 'r1', 0))).code).toBe('source_missing');
    expect(deps.lifecycle.startRebuildTask).not.toHaveBeenCalled();
  });

  it('starts a task, invokes the worker and answers 202-style while it runs', async () => {
    deps.reports.getReportAnyStatus.mockResolvedValue(
      unitReport({ status: 'processing', task: 'rebuild', task_id: 'tnew' }),
    );
    const r = await startRebuild(user, 'r1', 0);
    expect(r.done).toBe(false);
    expect(deps.invoker.invoke).toHaveBeenCalledWith({
      kind: 'report',
      user_id: 'u1',
      report_id: 'r1',
      task_id: 'tnew',
    });
  });

  it('a report already being rebuilt is joined, not started twice', async () => {
    const running = unitReport({ status: 'processing', task: 'rebuild', task_id: 'told' });
    deps.reports.getReport.mockResolvedValue(running);
    deps.reports.getReportAnyStatus.mockResolvedValue(running);
    expect((await startRebuild(user, 'r1', 0)).done).toBe(false);
    expect(deps.lifecycle.startRebuildTask).not.toHaveBeenCalled();
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a start refused because another request started a rebuild meanwhile joins that task', async () => {
    deps.lifecycle.startRebuildTask.mockResolvedValue(false as never);
    deps.reports.getReportAnyStatus.mockResolvedValue(
      unitReport({ status: 'processing', task: 'rebuild', task_id: 'tother' }),
    );
    expect((await startRebuild(user, 'r1', 0)).done).toBe(false);
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a start refused for another reason (an upload still processing) → 409 report_busy', async () => {
    deps.lifecycle.startRebuildTask.mockResolvedValue(false as never);
    deps.reports.getReportAnyStatus.mockResolvedValue(
      unitReport({ status: 'processing', task: 'upload', task_id: 'tup' }),
    );
    expect((await refusal(startRebuild(user, 'r1', 0))).code).toBe('report_busy');
  });

  it("a rebuild that failed within the wait answers its error; another task's outcome is not taken for it", async () => {
    const error = { code: 'missing_headers', message: 'm' };
    deps.reports.getReportAnyStatus.mockResolvedValueOnce(
      unitReport({ last_rebuild: { task_id: 'tnew', finished_at: 'x', dropped: [], error } }),
    );
    expect(await refusal(startRebuild(user, 'r1', 0))).toMatchObject({ status: 422, code: 'missing_headers' });
    deps.reports.getReportAnyStatus.mockResolvedValueOnce(
      unitReport({ last_rebuild: { task_id: 'tolder', finished_at: 'x', dropped: [], error } }),
    );
    expect((await startRebuild(user, 'r1', 0)).done).toBe(true);
  });

  it('a rebuild finished within the wait answers its items and dropped corrections', async () => {
    const dropped = [{ article: 'GONE', field: 'qty', value: 2 }];
    deps.reports.getReportAnyStatus.mockResolvedValue(
      unitReport({ last_rebuild: { task_id: 'tnew', finished_at: 'x', dropped } }),
    );
    deps.reports.getReportItems.mockResolvedValue([stored('A')]);
    const r = await startRebuild(user, 'r1', 0);
    expect([r.done, r.items.length, r.dropped]).toEqual([true, 1, dropped]);
  });

  it('a failed worker invoke still answers (recovery re-invokes after the lease)', async () => {
    deps.invoker.invoke.mockRejectedValue(new Error('lambda down'));
    deps.reports.getReportAnyStatus.mockResolvedValue(
      unitReport({ status: 'processing', task: 'rebuild', task_id: 'tnew' }),
    );
    expect((await startRebuild(user, 'r1', 0)).done).toBe(false);
  });
});

describe('rebuildMany', () => {
  it('skips unknown, malformed and combined ids, counts a repeated id once, keeps the order given', async () => {
    deps.reports.getReport.mockImplementation(async (_u, id) =>
      id === 'ok1' || id === 'ok2' ? unitReport({ id }) : id === 'comb' ? unitReport({ id, is_combined: true }) : null,
    );
    deps.reports.getReportAnyStatus.mockImplementation(async (_u, id) => unitReport({ id }));
    const r = await rebuildMany(asDeps, user, ['ok2', 'nope', 'comb', 'bad id!', 'ok1', 'ok2'], 0);
    expect(r.rebuilt).toEqual(['ok2', 'ok1']);
    expect(r.skipped).toEqual([
      { id: 'nope', reason: 'not_found' },
      { id: 'comb', reason: 'source_missing' },
      { id: 'bad id!', reason: 'not_found' },
    ]);
    expect(deps.lifecycle.startRebuildTask).toHaveBeenCalledTimes(2);
    expect(deps.reports.getReport.mock.calls.map((c) => c[1])).not.toContain('bad id!');
  });

  it('without ids rebuilds every report with a stored source', async () => {
    deps.reports.listAllReports.mockResolvedValue([
      unitReport({ id: 'a' }),
      unitReport({ id: 'c', is_combined: true, source_path: null }),
      unitReport({ id: 'b' }),
    ]);
    deps.reports.getReportAnyStatus.mockImplementation(async (_u, id) =>
      unitReport({ id, status: 'processing', task: 'rebuild', task_id: 'tnew' }),
    );
    const r = await rebuildMany(asDeps, user, undefined, 0);
    expect(r).toEqual({ rebuilt: [], processing: ['a', 'b'], skipped: [] });
  });

  it('a report busy with another task is skipped with report_busy', async () => {
    deps.reports.getReport.mockResolvedValue(unitReport({ id: 'a' }));
    deps.lifecycle.startRebuildTask.mockResolvedValue(false as never);
    deps.reports.getReportAnyStatus.mockResolvedValue(unitReport({ status: 'processing', task: 'upload' }));
    expect((await rebuildMany(asDeps, user, ['a'], 0)).skipped).toEqual([{ id: 'a', reason: 'report_busy' }]);
  });
});

describe('the row check against the charge', () => {
  it('a stored file with more rows than were charged → 409 source_changed, the report untouched', async () => {
    deps.reports.getReport.mockResolvedValue(unitReport({ rows: 6 }));
    expect(await refusal(rebuildReport(user, 'r1'))).toMatchObject({ status: 409, code: 'source_changed' });
    expect(deps.numbers.replaceItems).not.toHaveBeenCalled();
  });

  it('as many rows as were charged (or fewer) rebuilds', async () => {
    deps.reports.getReport.mockResolvedValue(unitReport({ rows: 7 }));
    await rebuildReport(user, 'r1');
    expect(deps.numbers.replaceItems).toHaveBeenCalledTimes(1);
  });
});

describe('the request deadline (deadline.ts)', () => {
  const never = () => new Promise<never>(() => undefined);

  it('startRebuild: the task not started by the deadline → 503 try_again', async () => {
    deps.lifecycle.startRebuildTask.mockImplementation(never as never);
    const t0 = Date.now();
    expect(await refusal(startRebuildWith(asDeps, user, 'r1', 5_000, 50))).toMatchObject({
      status: 503,
      code: 'try_again',
    });
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it('startRebuild: the task started, the store stalls → 202 processing (task rebuild) at the deadline', async () => {
    deps.reports.getReportAnyStatus.mockImplementation(never as never);
    const r = await startRebuildWith(asDeps, user, 'r1', 5_000, 50);
    expect(r).toMatchObject({
      done: false,
      items: [],
      record: { status: 'processing', task: 'rebuild', task_id: 'tnew' },
    });
    expect(deps.invoker.invoke).toHaveBeenCalledTimes(1);
  });

  it('rebuildMany: the started ones are processing, the rest time_limit; none started → 503', async () => {
    deps.reports.getReport.mockImplementation(async (_u, id) => unitReport({ id }));
    deps.reports.getReportAnyStatus.mockImplementation(never as never);
    const ids = ['01ARZ3NDEKTSV4RRFFQ69G5FAA', '01ARZ3NDEKTSV4RRFFQ69G5FAB'];
    deps.lifecycle.startRebuildTask.mockImplementation((async (_u: string, id: string) =>
      id === ids[0] ? true : never()) as never);
    expect(await rebuildMany(asDeps, user, ids, 5_000, 50)).toEqual({
      rebuilt: [],
      processing: [ids[0]],
      skipped: [{ id: ids[1], reason: 'time_limit' }],
    });
    deps.lifecycle.startRebuildTask.mockImplementation(never as never);
    expect(await refusal(rebuildMany(asDeps, user, ids, 5_000, 50))).toMatchObject({ code: 'try_again' });
  });
});
