import { describe, expect, it } from 'vitest';
import type { OwnCostLine } from '../../engine/own-costs';
import type { ReportRecord } from '../../store/report-record';
import { ownCostsChangedOn, rebuildCovered, type CoveredDeps } from './rebuild-covered';

const line = (name: string, amounts: Array<[string | null, number]>, article: string | null = null): OwnCostLine => ({
  article,
  name,
  amounts: amounts.map(([valid_from, amount]) => ({ valid_from, amount })),
});

describe('ownCostsChangedOn', () => {
  const packaging = line('Упаковка', [[null, 1000]]);

  it('a line added, removed or changed from the beginning changes every day', () => {
    expect(ownCostsChangedOn([], [packaging], '2026-05-20')).toBe(true);
    expect(ownCostsChangedOn([packaging], [], '2026-05-20')).toBe(true);
    expect(ownCostsChangedOn([packaging], [line('Упаковка', [[null, 1200]])], '2026-05-20')).toBe(true);
  });

  it('a new amount from a date changes only the days from it', () => {
    const later = line('Упаковка', [
      [null, 1000],
      ['2026-06-01', 1500],
    ]);
    expect(ownCostsChangedOn([packaging], [later], '2026-05-20')).toBe(false);
    expect(ownCostsChangedOn([packaging], [later], '2026-06-03')).toBe(true);
  });

  it('an article’s own line is a line of its own; the same lines change nothing', () => {
    expect(ownCostsChangedOn([packaging], [packaging, line('Упаковка', [[null, 0]], 'A-1')], '2026-05-20')).toBe(true);
    expect(ownCostsChangedOn([packaging], [line('Упаковка', [[null, 1000]])], '2026-05-20')).toBe(false);
  });
});

describe('rebuildCovered', () => {
  const report = (id: string, status: ReportRecord['status'], extra: Partial<ReportRecord> = {}): ReportRecord =>
    ({
      id,
      status,
      source_path: `sources/u/${id}/x.xlsx`,
      is_combined: false,
      period_from: '2026-05-18',
      period_to: '2026-05-24',
      ...extra,
    }) as ReportRecord;

  function deps(records: ReportRecord[]) {
    const started: string[] = [];
    const marked: string[] = [];
    const d = {
      clock: { now: () => new Date('2026-12-02T00:00:00Z') },
      config: () => ({ workerLeaseMs: 60_000 }),
      ids: { newId: () => 'task-1' },
      invoker: { invoke: () => Promise.resolve() },
      lifecycle: {
        startRebuildTask: (_u: string, id: string) => {
          started.push(id);
          return Promise.resolve({ ...records.find((r) => r.id === id)!, status: 'processing' });
        },
        markRebuildAgain: (_u: string, id: string) => {
          const r = records.find((x) => x.id === id)!;
          if (r.status !== 'processing') return Promise.resolve(false);
          marked.push(id);
          return Promise.resolve(true);
        },
      },
      reports: {
        listAllReports: () => Promise.resolve(records),
        getReportAnyStatus: (_u: string, id: string) => Promise.resolve(records.find((r) => r.id === id) ?? null),
      },
    } as unknown as CoveredDeps;
    return { d, started, marked };
  }

  it('starts the ready covered reports, marks those being built, leaves the rest', async () => {
    const records = [
      report('R1', 'ready'),
      report('R2', 'processing', { task: 'rebuild', task_id: 't0' }),
      report('R3', 'ready', { period_from: '2025-01-06', period_to: '2025-01-12' }),
      report('R4', 'ready', { is_combined: true, source_path: null } as Partial<ReportRecord>),
      report('R5', 'failed'),
    ];
    const { d, started, marked } = deps(records);
    const before = [line('Упаковка', [[null, 1000]])];
    const after = [
      line('Упаковка', [
        [null, 1000],
        ['2026-03-01', 1500],
      ]),
    ];
    const r = await rebuildCovered(d, 'u', before, after);
    expect(r).toEqual({ started: ['R1'], again: ['R2'] });
    expect(started).toEqual(['R1']);
    expect(marked).toEqual(['R2']);
  });
});
