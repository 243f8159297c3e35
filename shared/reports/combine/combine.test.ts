/**
 * Unit tier (fast, no emulators): the combine use cases are real, and so are the engine's merging and
 * a job registry of the test's own (with a manual clock); the report store is a fake passed as a
 * dependency (CombineDeps), so the refusals (404 listing the ids, overlapping selections, not combined,
 * a source gone) and the shape of the combined record are checked in milliseconds.
 * test/integration/reports-combine-export.test.ts runs them against DynamoDB Local.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../deps';
import { AppError } from '../../errors';
import { createJobRegistry } from '../../jobs/registry';
import type { ReportRecord } from '../../store/report-record';
import { refusal, setUnitEnv, unitReport } from '../../../test/support/unit-fixtures';
import {
  assertNoOverlap,
  recombineReport as recombineReportOf,
  requireReports as requireReportsOf,
  combineStatus,
  startCombine as startCombineOf,
  startRecombine as startRecombineOf,
  type CombineDeps,
  type CombineReports,
} from './combine';

setUnitEnv();

/** The report store as a fake; `reports` (below) holds what getReport finds. */
function fakeDeps() {
  const clock = manualClock('2024-03-01T10:00:00Z');
  return {
    reports: {
      getReport: vi.fn<CombineReports['getReport']>(async (_u, id) => reports.get(id) ?? null),
      getReportItems: vi.fn<CombineReports['getReportItems']>(async () => []),
      newReportId: vi.fn<CombineReports['newReportId']>(() => 'new'),
      createReport: vi.fn<CombineReports['createReport']>(async (record) => ({ record, items: [] })),
      replaceItems: vi.fn<CombineReports['replaceItems']>(),
    },
    jobs: createJobRegistry({ clock }),
    clock,
    waits: { startMs: () => 5_000, statusMs: () => 0 },
  } satisfies CombineDeps;
}

let deps: ReturnType<typeof fakeDeps>;
const requireReports = (userId: string, ids: string[]) => requireReportsOf(deps.reports, userId, ids);
const startCombine = (userId: string, ids: string[], title?: string) => startCombineOf(deps, userId, ids, title);
const startRecombine = (userId: string, id: string) => startRecombineOf(deps, userId, id);
const recombineReport = (userId: string, id: string, p: typeof progress) => recombineReportOf(deps, userId, id, p);

const progress = { step: vi.fn(), advance: vi.fn(), set: vi.fn() };

function catchSync(fn: () => void): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a refusal');
}

let reports: Map<string, ReportRecord>;

beforeEach(() => {
  deps = fakeDeps();
  reports = new Map(
    [
      unitReport({
        id: 'a',
        title: 'A',
        identity: 'ia',
        seller_id: 's1',
        period_from: '2024-01-01',
        period_to: '2024-01-07',
        rows: 3,
      }),
      unitReport({
        id: 'b',
        title: 'B',
        identity: 'ib',
        seller_id: 's1',
        period_from: '2024-01-08',
        period_to: '2024-01-14',
        rows: 4,
      }),
    ].map((r) => [r.id, r]),
  );
});

describe('requireReports', () => {
  it("→ 404 report_not_found listing every id that is not the caller's, in the order given", async () => {
    const e = await refusal(requireReports('u1', ['x', 'a', 'y']));
    expect([e.status, e.code, e.details.report_ids]).toEqual([404, 'report_not_found', ['x', 'y']]);
  });
});

describe('assertNoOverlap', () => {
  it('two copies of one report (the same identity) → 422 overlapping_reports same_report, naming both', () => {
    const e = catchSync(() =>
      assertNoOverlap([
        unitReport({ id: 'a', title: 'A', identity: 'i' }),
        unitReport({ id: 'b', title: 'B', identity: 'i' }),
      ]),
    );
    expect([e.status, e.code]).toEqual([422, 'overlapping_reports']);
    expect(e.details).toEqual({ report_ids: ['a', 'b'], titles: ['A', 'B'], reason: 'same_report' });
  });

  it('a combined report with one of its sources → combined_with_source', () => {
    const combined = unitReport({ id: 'c', is_combined: true, source_report_ids: ['a', 'b'] });
    const e = catchSync(() => assertNoOverlap([unitReport({ id: 'a' }), combined]));
    expect(e.details.reason).toBe('combined_with_source');
  });

  it('two combined reports sharing a source → shared_source', () => {
    const c1 = unitReport({ id: 'c1', is_combined: true, source_report_ids: ['a', 'b'] });
    const c2 = unitReport({ id: 'c2', is_combined: true, source_report_ids: ['b', 'd'] });
    expect(catchSync(() => assertNoOverlap([c1, c2])).details.reason).toBe('shared_source');
  });

  it('distinct reports pass', () => {
    expect(() =>
      assertNoOverlap([unitReport({ id: 'a', identity: 'i1' }), unitReport({ id: 'b', identity: 'i2' })]),
    ).not.toThrow();
  });
});

describe('startCombine', () => {
  it('combines ready reports into a new combined record: rows summed, periods united, the shared seller kept', async () => {
    const job = await startCombine('u1', ['a', 'b']);
    expect(job).toMatchObject({ status: 'done', report_id: 'new' });
    const record = deps.reports.createReport.mock.calls[0]![0];
    expect(record).toMatchObject({
      is_combined: true,
      source_report_ids: ['a', 'b'],
      source_path: null,
      rows: 7,
      seller_id: 's1',
      period_from: '2024-01-01',
      period_to: '2024-01-14',
      title: 'Сводный отчёт 01.01.2024–14.01.2024',
    });
    expect(record.warnings).toEqual([]);
    expect(record.created_at).toBe('2024-03-01T10:00:00.000Z');
  });

  it('sources with different tax settings get the mixed_tax_profiles warning; a title given is kept', async () => {
    reports.set('b', { ...reports.get('b')!, tax_profile: { tax_system: 'usn_income', usn_rate: 4, vat_rate: 0 } });
    await startCombine('u1', ['a', 'b'], 'Мой');
    const record = deps.reports.createReport.mock.calls[0]![0];
    expect(record.title).toBe('Мой');
    expect(record.warnings.map((w) => w.code)).toEqual(['mixed_tax_profiles']);
  });

  it('says a note on the files’ layout (kVV as fractions) once, naming every source; others per source', async () => {
    const fraction = {
      code: 'percent_as_fraction',
      message: 'Проценты «Размер кВВ, %» записаны долями (0,15 = 15 %) и пересчитаны в проценты',
      details: { column: 'commission_percent' },
    };
    const other = { code: 'invalid_number', message: 'x', details: {} };
    reports.set('a', { ...reports.get('a')!, warnings: [fraction, other] });
    reports.set('b', { ...reports.get('b')!, warnings: [fraction, other] });
    await startCombine('u1', ['a', 'b']);
    const record = deps.reports.createReport.mock.calls[0]![0];
    expect(record.warnings.map((w) => w.code)).toEqual(['percent_as_fraction', 'invalid_number', 'invalid_number']);
    expect(record.warnings[0]!.details).toEqual({
      column: 'commission_percent',
      report_id: 'a',
      report_ids: ['a', 'b'],
    });
    expect(record.warnings[2]!.details).toEqual({ report_id: 'b' });
  });

  it('an overlapping selection is refused before any job starts', async () => {
    reports.set('b', { ...reports.get('b')!, identity: 'ia' });
    expect((await refusal(startCombine('u1', ['a', 'b']))).code).toBe('overlapping_reports');
    expect(deps.reports.getReportItems).not.toHaveBeenCalled();
  });

  it('a source that changed while its items were read is read again', async () => {
    let reads = 0;
    deps.reports.getReport.mockImplementation(async (_u, id) => {
      const r = reports.get(id)!;
      return id === 'a' && ++reads === 3 ? { ...r, version: 2 } : r;
    });
    await startCombine('u1', ['a', 'b']);
    expect(deps.reports.getReportItems.mock.calls.filter((c) => c[0].id === 'a')).toHaveLength(2);
  });
});

describe('combineStatus', () => {
  it("the job of its registry for its owner; another owner's or an unknown id → null", async () => {
    const job = await startCombine('u1', ['a', 'b']);
    expect(await combineStatus(deps, 'u1', job.id)).toMatchObject({ status: 'done', report_id: 'new' });
    expect(await combineStatus(deps, 'u2', job.id)).toBeNull();
    expect(await combineStatus(deps, 'u1', 'no-such-job')).toBeNull();
    // Another process (another registry) does not know the job: the 404 the route documents.
    expect(await combineStatus({ ...deps, jobs: createJobRegistry({ clock: deps.clock }) }, 'u1', job.id)).toBeNull();
  });
});

describe('recombine', () => {
  it('an uploaded report → 422 not_combined', async () => {
    expect(await refusal(startRecombine('u1', 'a'))).toMatchObject({ status: 422, code: 'not_combined' });
  });

  it('a combined report whose source was deleted → 409 source_missing naming it', async () => {
    reports.set('c', unitReport({ id: 'c', is_combined: true, source_report_ids: ['a', 'gone'] }));
    const e = await refusal(startRecombine('u1', 'c'));
    expect([e.status, e.code, e.details.report_ids]).toEqual([409, 'source_missing', ['gone']]);
  });

  it('a combined report changed on every try → 409 report_busy after three attempts', async () => {
    reports.set('c', unitReport({ id: 'c', is_combined: true, source_report_ids: ['a', 'b'] }));
    deps.reports.replaceItems.mockResolvedValue(null);
    expect((await refusal(recombineReport('u1', 'c', progress))).code).toBe('report_busy');
    expect(deps.reports.replaceItems).toHaveBeenCalledTimes(3);
  });

  it('keeps its seller and writes the sources as they are now', async () => {
    reports.set('c', unitReport({ id: 'c', is_combined: true, seller_id: 'mine', source_report_ids: ['a', 'b'] }));
    reports.set('b', { ...reports.get('b')!, version: 5 });
    deps.reports.replaceItems.mockImplementation(async (record: ReportRecord) => ({ record, items: [] }));
    expect(await recombineReport('u1', 'c', progress)).toBe('c');
    const patch = deps.reports.replaceItems.mock.calls[0]![2];
    expect(patch).not.toHaveProperty('seller_id');
    expect(patch.sources).toEqual([
      { id: 'a', version: 1, rebuilt_at: null },
      { id: 'b', version: 5, rebuilt_at: null },
    ]);
  });
});

describe('the request deadline (deadline.ts)', () => {
  const never = () => new Promise<never>(() => undefined);

  it('the reports not read by the deadline → 503 try_again, no job started', async () => {
    deps.reports.getReport.mockImplementation(never);
    expect(await refusal(startCombineOf(deps, 'u1', ['a', 'b'], undefined, 50))).toMatchObject({
      status: 503,
      code: 'try_again',
    });
  });

  it('a job started but still running at the deadline → the job as it is (202)', async () => {
    deps.reports.getReportItems.mockImplementation(never);
    const job = await startCombineOf(deps, 'u1', ['a', 'b'], undefined, 50);
    expect(['queued', 'running']).toContain(job.status);
    expect(deps.jobs.getJob('u1', job.id)).not.toBeNull();
  });
});
