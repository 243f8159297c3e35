import { describe, expect, it } from 'vitest';
import { emulatedWeek } from '../../../../scripts/local/wb/weeks';
import { buildItems, computeTotals, DEFAULT_TAX_PROFILE } from '../../../engine';
import { reconcile } from './reconcile';
import { reportSumsFromRows, type BankPaymentFormula } from './report-sums';
import { aggregateApiRows } from './row-map';

function week(formula: BankPaymentFormula) {
  const w = emulatedWeek({ index: 0, rows: 400, seed: 5 });
  const parsed = aggregateApiRows([w.rows]);
  const totals = computeTotals(
    buildItems({ articles: parsed.articles }, { tax: DEFAULT_TAX_PROFILE, costPrices: {} }).items.map(
      (i) => i.effective,
    ),
  );
  const { rebillLogisticCostSum: _r, ...sums } = reportSumsFromRows(w.rows, formula);
  return { totals, sums };
}

describe('reconciliation with WB’s list', () => {
  it('matches field by field when WB’s «Итого к оплате» is every row’s money (the engine’s payout)', () => {
    const { totals, sums } = week('cash');
    const r = reconcile(totals, sums);
    expect(r.status).toBe('match');
    expect(r.fields.every((f) => f.diff === 0 && f.explained_by.length === 0)).toBe(true);
    expect(r.fields.find((f) => f.field === 'payout')!.ours).toBe(totals.payout);
  });

  it('names the rebill and the loyalty discount when WB leaves them out (the audit formula): not a mismatch', () => {
    const { totals, sums } = week('audit');
    const r = reconcile(totals, sums);
    expect(r.status).toBe('match');
    const payout = r.fields.find((f) => f.field === 'payout')!;
    expect(payout.diff).toBe(-(totals.rebill_logistics ?? 0) + sums.cashbackDiscountSum);
    expect(payout.explained_by).toEqual(['rebill_logistics', 'loyalty_discount']);
  });

  it('an altered figure is a mismatch naming its field; no sums: unavailable', () => {
    const { totals, sums } = week('cash');
    const r = reconcile(totals, { ...sums, paidStorageSum: sums.paidStorageSum + 1 });
    expect(r.status).toBe('mismatch');
    expect(r.fields.filter((f) => f.diff !== 0)).toEqual([
      expect.objectContaining({ field: 'storage', wb_field: 'paidStorageSum', diff: -1, explained_by: [] }),
    ]);
    expect(reconcile(totals, undefined)).toEqual({ status: 'unavailable', fields: [] });
  });
});
