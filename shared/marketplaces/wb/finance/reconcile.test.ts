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
  const { rebillLogisticCostSum, ...sums } = reportSumsFromRows(w.rows, formula);
  return { totals, sums, rebillLogisticCostSum };
}

describe('reconciliation with WB’s list', () => {
  it('WB’s «Итого к оплате» by the audit formula is the engine’s payout to the kopeck: match, field by field', () => {
    const { totals, sums, rebillLogisticCostSum } = week('audit');
    // The week has rebill and loyalty discount rows: the payout equals WB's figure without either.
    expect(rebillLogisticCostSum).toBeGreaterThan(0);
    expect(sums.cashbackDiscountSum).toBeGreaterThan(0);
    expect(totals.rebill_logistics).toBe(rebillLogisticCostSum);
    const r = reconcile(totals, sums);
    expect(r.status).toBe('match');
    expect(r.fields.every((f) => f.diff === 0)).toBe(true);
    expect(r.fields.find((f) => f.field === 'payout')).toMatchObject({ ours: totals.payout, wb: sums.bankPaymentSum });
  });

  it('a «Итого к оплате» that deducts the rebill is a mismatch of the payout, never explained away', () => {
    const { totals, sums, rebillLogisticCostSum } = week('cash');
    const r = reconcile(totals, sums);
    expect(r.status).toBe('mismatch');
    expect(r.fields.filter((f) => f.diff !== 0)).toEqual([
      expect.objectContaining({
        field: 'payout',
        wb_field: 'bankPaymentSum',
        diff: rebillLogisticCostSum - sums.cashbackDiscountSum,
      }),
    ]);
  });

  it('an altered figure is a mismatch naming its field; no sums: unavailable', () => {
    const { totals, sums } = week('audit');
    const r = reconcile(totals, { ...sums, paidStorageSum: sums.paidStorageSum + 1 });
    expect(r.status).toBe('mismatch');
    expect(r.fields.filter((f) => f.diff !== 0)).toEqual([
      expect.objectContaining({ field: 'storage', wb_field: 'paidStorageSum', diff: -1 }),
    ]);
    expect(reconcile(totals, undefined)).toEqual({ status: 'unavailable', fields: [] });
  });
});
