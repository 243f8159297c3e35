/**
 * Unit tier (fast, no emulators): rebuildReport, startRebuild and rebuildMany are real; the report
 * store, S3 files, the engine's reader and item builder and settings are vi.mock'ed, the task's
 * transition, the invoker, ids and clock are passed as fakes (ports.ts), so each decision (source missing, corrections carried by article, retry on a concurrent
 * change, joining a running rebuild, skipping) is checked in milliseconds.
 * test/integration/reports-corrections.test.ts and report-settings.test.ts run rebuilds end to end.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { buildItems, readReport } from '../engine';
import { objectRanges } from '../files/objects';
import type { StoredItem } from '../store/items.repo';
import { getReport, getReportAnyStatus, getReportItems, listAllReports } from '../store/reports.repo';
import type { ReportRecord } from '../store/report-record';
import { replaceItems } from '../store/report-numbers.repo';
import { manualClock } from '../deps';
import type { ReportDeps } from './ports';
import { refusal, setUnitEnv, unitReport, unitUser } from '../../test/support/unit-fixtures';
import { requireReport } from './queries';
import {
  rebuildMany,
  rebuildReport as rebuildReportWith,
  startRebuild as startRebuildWith,
  type RebuildDeps,
} from './rebuild';

vi.mock('../log');
vi.mock('../engine', async (actual) => ({
  ...(await actual<typeof import('../engine')>()),
  readReport: vi.fn(),
  buildItems: vi.fn(),
}));
vi.mock('../files/objects', () => ({ objectRanges: vi.fn() }));
vi.mock('../store/products.repo', () => ({ ensureProducts: vi.fn() }));
vi.mock('../store/reports.repo', () => ({
  getReport: vi.fn(),
  getReportAnyStatus: vi.fn(),
  getReportItems: vi.fn(),
  listAllReports: vi.fn(),
}));
vi.mock('../store/report-numbers.repo', () => ({ replaceItems: vi.fn() }));
vi.mock('../store/sellers.repo', () => ({ getSeller: vi.fn() }));
vi.mock('./queries', () => ({ requireReport: vi.fn(), sellerOf: vi.fn() }));
vi.mock('./upload', () => ({
  missingArticles: (a: readonly string[], known: ReadonlySet<string>) => a.filter((x) => !known.has(x)),
  workerWaitMs: () => 0,
}));

setUnitEnv();

/** The rebuild's own dependencies (ports.ts): its task transition, the invoker, ids and the clock. */
const deps = {
  clock: manualClock('2026-01-05T10:00:00.000Z'),
  ids: { newId: vi.fn() },
  invoker: { invoke: vi.fn() },
  lifecycle: { startRebuildTask: vi.fn() },
  settings: { resolveReportSettings: vi.fn() },
  summaries: { writeReportSummary: vi.fn() },
};
const asDeps = deps as unknown as RebuildDeps & Pick<ReportDeps, 'settings' | 'summaries'>;
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
  vi.mocked(requireReport).mockResolvedValue(unitReport());
  vi.mocked(objectRanges).mockResolvedValue({ size: 1, etag: null, readRange: vi.fn() } as never);
  vi.mocked(readReport).mockResolvedValue(parsed as never);
  vi.mocked(getReportItems).mockResolvedValue([]);
  deps.settings.resolveReportSettings.mockResolvedValue({
    settings: { tax: user.tax, costPrices: {}, allocation: 'realization' },
    known: new Set(['A']),
    warnings: [{ code: 'vat_rate_adjusted', message: 'v' }],
    date: '2024-02-04',
  } as never);
  vi.mocked(buildItems).mockReturnValue({ items: [], dropped: [], allocation: undefined, warnings: [] } as never);
  vi.mocked(replaceItems).mockImplementation(async (record: ReportRecord) => ({ record, items: [] }) as never);
  deps.ids.newId.mockReturnValue('tnew');
  deps.lifecycle.startRebuildTask.mockResolvedValue(true as never);
  deps.invoker.invoke.mockResolvedValue(undefined as never);
});

describe('rebuildReport (the worker body)', () => {
  it('a combined report, or one without a stored source → 409 source_missing, nothing read', async () => {
    for (const record of [unitReport({ is_combined: true }), unitReport({ source_path: null })]) {
      vi.mocked(requireReport).mockResolvedValue(record);
      expect(await refusal(rebuildReport(user, 'r1'))).toMatchObject({ status: 409, code: 'source_missing' });
    }
    expect(objectRanges).not.toHaveBeenCalled();
  });

  it('a stored source gone from S3 → 409 source_missing', async () => {
    vi.mocked(objectRanges).mockResolvedValue(null);
    expect((await refusal(rebuildReport(user, 'r1'))).code).toBe('source_missing');
    expect(replaceItems).not.toHaveBeenCalled();
  });

  it('carries the corrections over by article (items without one add nothing) and returns the dropped ones', async () => {
    vi.mocked(getReportItems).mockResolvedValue([
      stored('A', { cost_price: 1500 }),
      stored('B'),
      stored('GONE', { qty: 2 }),
    ]);
    const dropped = [{ article: 'GONE', field: 'qty', value: 2 }];
    vi.mocked(buildItems).mockReturnValue({ items: [], dropped, allocation: undefined, warnings: [] } as never);
    const r = await rebuildReport(user, 'r1');
    expect(vi.mocked(buildItems).mock.calls[0]![2]).toEqual({ A: { cost_price: 1500 }, GONE: { qty: 2 } });
    expect(r.dropped).toEqual(dropped);
  });

  it("switches to the new items with the file's rows, period and the settings' warnings first", async () => {
    await rebuildReport(user, 'r1');
    const patch = vi.mocked(replaceItems).mock.calls[0]![2];
    expect(patch).toMatchObject({ rows: 7, period_from: '2024-02-01', period_to: '2024-02-07', report_number: '9' });
    expect(patch.warnings?.map((w) => w.code)).toEqual(['vat_rate_adjusted', 'from_file']);
    const { ensureProducts } = await import('../store/products.repo');
    expect(ensureProducts).toHaveBeenCalledWith('u1', ['B']);
  });

  it('a report changed meanwhile (replace refused) is rebuilt again from its new state', async () => {
    vi.mocked(replaceItems).mockResolvedValueOnce(null);
    await rebuildReport(user, 'r1');
    expect(replaceItems).toHaveBeenCalledTimes(2);
    expect(requireReport).toHaveBeenCalledTimes(2);
  });

  it('refused three times → 409 report_busy', async () => {
    vi.mocked(replaceItems).mockResolvedValue(null);
    expect((await refusal(rebuildReport(user, 'r1'))).code).toBe('report_busy');
    expect(replaceItems).toHaveBeenCalledTimes(3);
  });
});

describe('startRebuild (the route)', () => {
  it('without a source → 409 source_missing and no task started', async () => {
    vi.mocked(requireReport).mockResolvedValue(unitReport({ source_path: null }));
    expect((await refusal(startRebuild(user, 'r1', 0))).code).toBe('source_missing');
    expect(deps.lifecycle.startRebuildTask).not.toHaveBeenCalled();
  });

  it('starts a task, invokes the worker and answers 202-style while it runs', async () => {
    vi.mocked(getReportAnyStatus).mockResolvedValue(
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
    vi.mocked(requireReport).mockResolvedValue(running);
    vi.mocked(getReportAnyStatus).mockResolvedValue(running);
    expect((await startRebuild(user, 'r1', 0)).done).toBe(false);
    expect(deps.lifecycle.startRebuildTask).not.toHaveBeenCalled();
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a start refused because another request started a rebuild meanwhile joins that task', async () => {
    deps.lifecycle.startRebuildTask.mockResolvedValue(false as never);
    vi.mocked(getReportAnyStatus).mockResolvedValue(
      unitReport({ status: 'processing', task: 'rebuild', task_id: 'tother' }),
    );
    expect((await startRebuild(user, 'r1', 0)).done).toBe(false);
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a start refused for another reason (an upload still processing) → 409 report_busy', async () => {
    deps.lifecycle.startRebuildTask.mockResolvedValue(false as never);
    vi.mocked(getReportAnyStatus).mockResolvedValue(
      unitReport({ status: 'processing', task: 'upload', task_id: 'tup' }),
    );
    expect((await refusal(startRebuild(user, 'r1', 0))).code).toBe('report_busy');
  });

  it("a rebuild that failed within the wait answers its error; another task's outcome is not taken for it", async () => {
    const error = { code: 'missing_headers', message: 'm' };
    vi.mocked(getReportAnyStatus).mockResolvedValueOnce(
      unitReport({ last_rebuild: { task_id: 'tnew', finished_at: 'x', dropped: [], error } }),
    );
    expect(await refusal(startRebuild(user, 'r1', 0))).toMatchObject({ status: 422, code: 'missing_headers' });
    vi.mocked(getReportAnyStatus).mockResolvedValueOnce(
      unitReport({ last_rebuild: { task_id: 'tolder', finished_at: 'x', dropped: [], error } }),
    );
    expect((await startRebuild(user, 'r1', 0)).done).toBe(true);
  });

  it('a rebuild finished within the wait answers its items and dropped corrections', async () => {
    const dropped = [{ article: 'GONE', field: 'qty', value: 2 }];
    vi.mocked(getReportAnyStatus).mockResolvedValue(
      unitReport({ last_rebuild: { task_id: 'tnew', finished_at: 'x', dropped } }),
    );
    vi.mocked(getReportItems).mockResolvedValue([stored('A')]);
    const r = await startRebuild(user, 'r1', 0);
    expect([r.done, r.items.length, r.dropped]).toEqual([true, 1, dropped]);
  });

  it('a failed worker invoke still answers (recovery re-invokes after the lease)', async () => {
    deps.invoker.invoke.mockRejectedValue(new Error('lambda down'));
    vi.mocked(getReportAnyStatus).mockResolvedValue(
      unitReport({ status: 'processing', task: 'rebuild', task_id: 'tnew' }),
    );
    expect((await startRebuild(user, 'r1', 0)).done).toBe(false);
  });
});

describe('rebuildMany', () => {
  it('skips unknown, malformed and combined ids, counts a repeated id once, keeps the order given', async () => {
    vi.mocked(getReport).mockImplementation(async (_u, id) =>
      id === 'ok1' || id === 'ok2' ? unitReport({ id }) : id === 'comb' ? unitReport({ id, is_combined: true }) : null,
    );
    vi.mocked(getReportAnyStatus).mockImplementation(async (_u, id) => unitReport({ id }));
    const r = await rebuildMany(asDeps, user, ['ok2', 'nope', 'comb', 'bad id!', 'ok1', 'ok2'], 0);
    expect(r.rebuilt).toEqual(['ok2', 'ok1']);
    expect(r.skipped).toEqual([
      { id: 'nope', reason: 'not_found' },
      { id: 'comb', reason: 'source_missing' },
      { id: 'bad id!', reason: 'not_found' },
    ]);
    expect(deps.lifecycle.startRebuildTask).toHaveBeenCalledTimes(2);
    expect(vi.mocked(getReport).mock.calls.map((c) => c[1])).not.toContain('bad id!');
  });

  it('without ids rebuilds every report with a stored source', async () => {
    vi.mocked(listAllReports).mockResolvedValue([
      unitReport({ id: 'a' }),
      unitReport({ id: 'c', is_combined: true, source_path: null }),
      unitReport({ id: 'b' }),
    ]);
    vi.mocked(getReportAnyStatus).mockImplementation(async (_u, id) =>
      unitReport({ id, status: 'processing', task: 'rebuild', task_id: 'tnew' }),
    );
    const r = await rebuildMany(asDeps, user, undefined, 0);
    expect(r).toEqual({ rebuilt: [], processing: ['a', 'b'], skipped: [] });
  });

  it('a report busy with another task is skipped with report_busy', async () => {
    vi.mocked(getReport).mockResolvedValue(unitReport({ id: 'a' }));
    deps.lifecycle.startRebuildTask.mockResolvedValue(false as never);
    vi.mocked(getReportAnyStatus).mockResolvedValue(unitReport({ status: 'processing', task: 'upload' }));
    expect((await rebuildMany(asDeps, user, ['a'], 0)).skipped).toEqual([{ id: 'a', reason: 'report_busy' }]);
  });
});

describe('the row check against the charge', () => {
  it('a stored file with more rows than were charged → 409 source_changed, the report untouched', async () => {
    vi.mocked(requireReport).mockResolvedValue(unitReport({ rows: 6 }));
    expect(await refusal(rebuildReport(user, 'r1'))).toMatchObject({ status: 409, code: 'source_changed' });
    expect(replaceItems).not.toHaveBeenCalled();
  });

  it('as many rows as were charged (or fewer) rebuilds', async () => {
    vi.mocked(requireReport).mockResolvedValue(unitReport({ rows: 7 }));
    await rebuildReport(user, 'r1');
    expect(replaceItems).toHaveBeenCalledTimes(1);
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
    vi.mocked(getReportAnyStatus).mockImplementation(never as never);
    const r = await startRebuildWith(asDeps, user, 'r1', 5_000, 50);
    expect(r).toMatchObject({
      done: false,
      items: [],
      record: { status: 'processing', task: 'rebuild', task_id: 'tnew' },
    });
    expect(deps.invoker.invoke).toHaveBeenCalledTimes(1);
  });

  it('rebuildMany: the started ones are processing, the rest time_limit; none started → 503', async () => {
    vi.mocked(getReport).mockImplementation(async (_u, id) => unitReport({ id }));
    vi.mocked(getReportAnyStatus).mockImplementation(never as never);
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
