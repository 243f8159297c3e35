/**
 * Unit tier (fast, no emulators): the combine use cases are real, and so are the engine's merging and
 * the in-process job registry; only the report store is vi.mock'ed, so the refusals (404 listing the
 * ids, overlapping selections, not combined, a source gone) and the shape of the combined record are
 * checked in milliseconds. test/integration/reports-combine-export.test.ts runs them against DynamoDB Local.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../errors';
import { createReport, replaceItems } from '../store/report-numbers.repo';
import { getReport, getReportItems } from '../store/reports.repo';
import { newReportId, type ReportRecord } from '../store/report-record';
import { refusal, setUnitEnv, unitReport } from '../../test/support/unit-fixtures';
import { assertNoOverlap, recombineReport, requireReports, startCombine, startRecombine } from './combine';

vi.mock('../store/reports.repo', () => ({ getReport: vi.fn(), getReportItems: vi.fn() }));
vi.mock('../store/report-numbers.repo', () => ({ createReport: vi.fn(), replaceItems: vi.fn() }));
vi.mock('../store/report-record', async (actual) => ({ ...(await actual<object>()), newReportId: vi.fn() }));

setUnitEnv();

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
  vi.resetAllMocks();
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
  vi.mocked(getReport).mockImplementation(async (_u, id) => reports.get(id) ?? null);
  vi.mocked(getReportItems).mockResolvedValue([]);
  vi.mocked(newReportId).mockReturnValue('new');
  vi.mocked(createReport).mockImplementation(async (record: ReportRecord) => ({ record, items: [] }) as never);
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
    const record = vi.mocked(createReport).mock.calls[0]![0];
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
  });

  it('sources with different tax settings get the mixed_tax_profiles warning; a title given is kept', async () => {
    reports.set('b', { ...reports.get('b')!, tax_profile: { tax_system: 'usn_income', usn_rate: 4, vat_rate: 0 } });
    await startCombine('u1', ['a', 'b'], 'Мой');
    const record = vi.mocked(createReport).mock.calls[0]![0];
    expect(record.title).toBe('Мой');
    expect(record.warnings.map((w) => w.code)).toEqual(['mixed_tax_profiles']);
  });

  it('an overlapping selection is refused before any job starts', async () => {
    reports.set('b', { ...reports.get('b')!, identity: 'ia' });
    expect((await refusal(startCombine('u1', ['a', 'b']))).code).toBe('overlapping_reports');
    expect(getReportItems).not.toHaveBeenCalled();
  });

  it('a source that changed while its items were read is read again', async () => {
    let reads = 0;
    vi.mocked(getReport).mockImplementation(async (_u, id) => {
      const r = reports.get(id)!;
      return id === 'a' && ++reads === 3 ? { ...r, version: 2 } : r;
    });
    await startCombine('u1', ['a', 'b']);
    expect(vi.mocked(getReportItems).mock.calls.filter((c) => c[0].id === 'a')).toHaveLength(2);
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
    vi.mocked(replaceItems).mockResolvedValue(null);
    expect((await refusal(recombineReport('u1', 'c', progress))).code).toBe('report_busy');
    expect(replaceItems).toHaveBeenCalledTimes(3);
  });

  it('keeps its seller and writes the sources as they are now', async () => {
    reports.set('c', unitReport({ id: 'c', is_combined: true, seller_id: 'mine', source_report_ids: ['a', 'b'] }));
    reports.set('b', { ...reports.get('b')!, version: 5 });
    vi.mocked(replaceItems).mockImplementation(async (record: ReportRecord) => ({ record, items: [] }) as never);
    expect(await recombineReport('u1', 'c', progress)).toBe('c');
    const patch = vi.mocked(replaceItems).mock.calls[0]![2];
    expect(patch).not.toHaveProperty('seller_id');
    expect(patch.sources).toEqual([
      { id: 'a', version: 1, rebuilt_at: null },
      { id: 'b', version: 5, rebuilt_at: null },
    ]);
  });
});
