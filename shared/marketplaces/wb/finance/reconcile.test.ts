import { describe, expect, it } from 'vitest';
import { emulatedWeek } from '../../../../scripts/local/wb/weeks';
import { buildItems, computeTotals, DEFAULT_TAX_PROFILE } from '../../../engine';
import { reconcile, reconcileParts, wbPartOf } from './reconcile';
import { reportSumsFromRows, type BankPaymentFormula } from './report-sums';
import { aggregateApiRows } from './row-map';

function week(formula: BankPaymentFormula, index = 0) {
  const w = emulatedWeek({ index, rows: 400, seed: 5 });
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

describe('a combined report of WB reports, reconciled per WB report id', () => {
  const part = (id: string, wbId: string, index: number, alter: Record<string, number> = {}) => {
    const { totals, sums } = week('audit', index);
    const wbSums: Record<string, number> = { ...sums };
    for (const [k, d] of Object.entries(alter)) wbSums[k] = wbSums[k]! + d;
    return { part: wbPartOf({ id, wb_report_id: wbId, wb_sums: wbSums, totals })!, totals, sums };
  };

  it('each report matches on its own: match, one entry per WB report, the figures summed over them', () => {
    const a = part('R1', '900000001', 0);
    const b = part('R2', '900000002', 1);
    const r = reconcileParts([a.part, b.part]);
    expect(r.status).toBe('match');
    expect(r.reports.map((x) => [x.report_id, x.wb_report_id, x.status])).toEqual([
      ['R1', '900000001', 'match'],
      ['R2', '900000002', 'match'],
    ]);
    expect(r.fields.find((f) => f.field === 'payout')).toMatchObject({
      ours: (a.totals.payout ?? 0) + (b.totals.payout ?? 0),
      wb: a.sums.bankPaymentSum + b.sums.bankPaymentSum,
      diff: 0,
    });
  });

  it('differences that cancel out in the week’s sum still show per WB report: mismatch, naming each', () => {
    // The main report's storage a kopeck over WB's, the buyouts report's a kopeck under: the sum agrees.
    const a = part('R1', '900000001', 0, { paidStorageSum: -1 });
    const b = part('R2', '900000002', 1, { paidStorageSum: 1 });
    const r = reconcileParts([a.part, b.part]);
    expect(r.fields.every((f) => f.diff === 0)).toBe(true);
    expect(r.status).toBe('mismatch');
    expect(r.reports.map((x) => x.fields.filter((f) => f.diff !== 0).map((f) => [f.wb_field, f.diff]))).toEqual([
      [['paidStorageSum', 1]],
      [['paidStorageSum', -1]],
    ]);
  });

  it('a week holding a weekly report (type 1), a buyouts report (type 3) and a daily report: each WB report id on its own', () => {
    // The daily report's id is past 2^53: kept as text, never a rounded number.
    const daily = '2000000000000000017';
    const weekly = part('R1', '900000001', 0);
    const buyouts = part('R2', '900000003', 1, { forPaySum: 250 });
    const day = part('R3', daily, 2);
    const r = reconcileParts([weekly.part, buyouts.part, day.part]);
    expect(r.reports.map((x) => [x.report_id, x.wb_report_id, x.status])).toEqual([
      ['R1', '900000001', 'match'],
      ['R2', '900000003', 'mismatch'],
      ['R3', daily, 'match'],
    ]);
    // The buyouts report's own difference is named on it; the period's status is a mismatch.
    expect(r.reports[1]!.fields.filter((f) => f.diff !== 0).map((f) => [f.wb_field, f.diff])).toEqual([
      ['forPaySum', -250],
    ]);
    expect(r.status).toBe('mismatch');
    expect(r.fields.find((f) => f.field === 'payout')).toMatchObject({
      ours: [weekly, buyouts, day].reduce((s, x) => s + (x.totals.payout ?? 0), 0),
      diff: 0,
    });
  });

  it('a report WB gave no figures for is unavailable on its own; a report not from WB is no part', () => {
    const a = part('R1', '900000001', 0);
    const none = { ...a.part, report_id: 'R3', wb_report_id: '900000003', wb_sums: {} };
    const r = reconcileParts([a.part, none]);
    expect(r.reports.map((x) => x.status)).toEqual(['match', 'unavailable']);
    expect(r.status).toBe('unavailable');
    expect(reconcileParts([none]).status).toBe('unavailable');
    expect(wbPartOf({ id: 'F1', totals: a.totals })).toBeNull();
  });
});
