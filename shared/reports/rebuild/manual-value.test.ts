/**
 * Unit tier: setManualValue with a fake report store and summary writer passed as its dependencies
 * (ManualValueDeps). The engine's arithmetic is real; test/integration/reports-corrections.test.ts runs
 * the same use case against DynamoDB Local.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FIELDS, type ItemValues } from '../../engine';
import type { StoredItem } from '../../store/items.repo';
import { refusal, unitReport } from '../../../test/support/unit-fixtures';
import { setManualValue, type ManualValueDeps } from './manual-value';

const values = (v: number) => Object.fromEntries(FIELDS.map((f) => [f.name, v])) as ItemValues;

/** Item 1 of generation 1 of report R1. */
const ITEM_ID = 'R1.1000001';
const item = (): StoredItem => ({
  item_id: ITEM_ID,
  article: 'A-1',
  category: 'Платья',
  nm_id: '123',
  brand: 'B',
  computed: values(10_000),
  manual_values: {},
  effective: values(10_000),
  rev: 0,
});

type Reports = ManualValueDeps['reports'];
function fakeDeps() {
  return {
    reports: {
      getReport: vi.fn<Reports['getReport']>(async () => unitReport({ id: 'R1', items_gen: 1, version: 3 })),
      getReportItems: vi.fn<Reports['getReportItems']>(async () => [item()]),
      saveItemCorrection: vi.fn<Reports['saveItemCorrection']>(async () => 'ok'),
    },
    writeSummary: vi.fn<ManualValueDeps['writeSummary']>(async () => undefined),
    sleep: vi.fn(async () => undefined),
  } satisfies ManualValueDeps;
}

let deps: ReturnType<typeof fakeDeps>;
beforeEach(() => {
  deps = fakeDeps();
});

describe('setManualValue', () => {
  it('stores the value under the item and report versions read, then writes the summary of the next version', async () => {
    const r = await setManualValue(deps, 'u1', ITEM_ID, 'logistics', 12.5);
    expect(r.item.manual_values).toEqual({ logistics: 1250 });
    expect(r.item.rev).toBe(1);
    const saved = deps.reports.saveItemCorrection.mock.calls[0]![0];
    expect(saved).toMatchObject({ userId: 'u1', reportId: 'R1', itemId: ITEM_ID, expectedRev: 0, expectedVersion: 3 });
    expect(saved.patch.totals).toEqual(r.totals);
    expect(deps.writeSummary.mock.calls[0]![0]).toMatchObject({ id: 'R1', version: 4 });
  });

  it('a concurrent change: reads again after a wait, and 409 report_busy when it never settles', async () => {
    deps.reports.saveItemCorrection.mockResolvedValueOnce('report_changed');
    await setManualValue(deps, 'u1', ITEM_ID, 'logistics', 1);
    expect(deps.reports.getReport).toHaveBeenCalledTimes(2);
    expect(deps.sleep).toHaveBeenCalledOnce();

    deps = fakeDeps();
    deps.reports.saveItemCorrection.mockResolvedValue('item_changed');
    expect(await refusal(setManualValue(deps, 'u1', ITEM_ID, 'logistics', 1))).toMatchObject({
      status: 409,
      code: 'report_busy',
    });
    expect(deps.writeSummary).not.toHaveBeenCalled();
  });

  it('an item of a replaced generation → 404 item_not_found; a rebuild meanwhile → 409 report_rebuilt', async () => {
    deps.reports.getReport.mockResolvedValue(unitReport({ id: 'R1', items_gen: 2 }));
    expect((await refusal(setManualValue(deps, 'u1', ITEM_ID, 'logistics', 1))).code).toBe('item_not_found');

    deps = fakeDeps();
    deps.reports.saveItemCorrection.mockResolvedValueOnce('report_changed');
    deps.reports.getReport
      .mockResolvedValueOnce(unitReport({ id: 'R1', items_gen: 1 }))
      .mockResolvedValueOnce(unitReport({ id: 'R1', items_gen: 2 }));
    expect((await refusal(setManualValue(deps, 'u1', ITEM_ID, 'logistics', 1))).code).toBe('report_rebuilt');
  });

  it('a malformed item id or another user’s report → 404 item_not_found, nothing stored', async () => {
    expect((await refusal(setManualValue(deps, 'u1', 'nope', 'logistics', 1))).code).toBe('item_not_found');
    deps.reports.getReport.mockResolvedValue(null);
    expect((await refusal(setManualValue(deps, 'u1', ITEM_ID, 'logistics', 1))).code).toBe('item_not_found');
    expect(deps.reports.saveItemCorrection).not.toHaveBeenCalled();
  });
});
