// Every row's money as WB moves it, on the rows of a real 2026 week (test/support/wb-week-2026.fixture.ts):
// the payout equals WB's «Итого к оплате» by the audit formula, the rebill is a reference amount, acquiring
// sits where the row's payment type and WB's identity say.
import { describe, expect, it } from 'vitest';
import { realWeek2026 } from '../../../../test/support/wb-week-2026.fixture';
import { buildItems, computeTotals, DEFAULT_TAX_PROFILE } from '../../../engine';
import { checkIdentity } from '../../../engine/kopeck-check';
import { moneyToKopecks } from '../money';
import { reconcile } from './reconcile';
import { reportSumsFromRows } from './report-sums';
import { aggregateApiRows } from './row-map';
import type { WbDetailedRow } from './schemas';

const k = (v: string | undefined) => (v === undefined ? 0 : moneyToKopecks(v));

/** WB's «Итого к оплате» by the public audit's formula, computed here straight from the rows. */
function auditBankPayment(rows: WbDetailedRow[]): number {
  let sum = 0;
  for (const r of rows) {
    const s = r.docTypeName === 'Возврат' ? -1 : 1;
    sum +=
      s * k(r.forPay) +
      k(r.additionalPayment) -
      k(r.deliveryService) -
      k(r.paidStorage) -
      k(r.paidAcceptance) -
      k(r.deduction) -
      k(r.penalty) -
      k(r.cashbackAmount) -
      k(r.cashbackCommissionChange);
  }
  return sum;
}

function build(rows: WbDetailedRow[]) {
  const parsed = aggregateApiRows([rows]);
  const items = buildItems({ articles: parsed.articles }, { tax: DEFAULT_TAX_PROFILE, costPrices: {} }).items;
  return { parsed, items, totals: computeTotals(items.map((i) => i.effective)) };
}

describe('the real 2026 week (51 rows, 23 rebill rows)', () => {
  const week = realWeek2026();
  const rebillRows = week.rows.filter((r) => r.rebillLogisticCost !== undefined);

  it('has WB’s identities on its rows', () => {
    expect(week.rows).toHaveLength(51);
    expect(rebillRows).toHaveLength(23);
    expect(week.rebill).toBe(8_164);
    for (const r of rebillRows) {
      expect(k(r.vw) + k(r.vwNds)).toBe(-k(r.rebillLogisticCost));
      expect(k(r.forPay)).toBe(0);
    }
    for (const r of week.rows.filter((x) => x.paymentProcessing !== undefined)) {
      expect(k(r.forPay)).toBe(k(r.retailAmount) - k(r.vw) - k(r.vwNds) - k(r.acquiringFee) - k(r.ppvzReward));
    }
  });

  it('the payout is WB’s «Итого к оплате» to the kopeck; the rebill is for reference, no expense', () => {
    const { parsed, totals, items } = build(week.rows);
    expect(totals.payout).toBe(auditBankPayment(week.rows));
    expect(totals.rebill_logistics).toBe(8_164);
    expect(totals.acquiring_billed).toBe(0);
    // Profit is not lowered by the rebill: expenses are for_pay's gap and the real costs only.
    const gap = (totals.realization ?? 0) - (totals.for_pay ?? 0);
    const costs = (totals.logistics ?? 0) + (totals.reverse_logistics ?? 0) + (totals.storage ?? 0) + (totals.ads ?? 0);
    expect(totals.expenses).toBe(gap + costs);
    // Every row explained; the 1-kopeck identity holds on each article.
    expect(parsed.warnings.filter((w) => w.code === 'unexplained_rows')).toEqual([]);
    expect(checkIdentity(items.map((i) => ({ article: i.article, computed: i.effective })))).toEqual([]);
  });

  it('reconciles with WB’s list sums: match, every figure equal', () => {
    const { totals } = build(week.rows);
    const { rebillLogisticCostSum: _r, ...sums } = reportSumsFromRows(week.rows, 'audit');
    expect(sums.bankPaymentSum).toBe(auditBankPayment(week.rows));
    const r = reconcile(totals, sums);
    expect(r.status).toBe('match');
    expect(r.fields.filter((f) => f.diff !== 0)).toEqual([]);
  });

  it('a rebill row WB did not net in its reward is named with its amount', () => {
    const rows = week.rows.map((r) => (r === rebillRows[4] ? { ...r, vw: '0.00', vwNds: '0.00' } : r));
    const { parsed } = build(rows);
    const w = parsed.warnings.find((x) => x.code === 'unexplained_rows');
    expect(w?.details).toEqual({ rows: 1, row_numbers: [String(rebillRows[4]!.rrdId)], amount: 355 });
    expect(w?.message).toContain(`№ ${rebillRows[4]!.rrdId}`);
    expect(w?.message).toContain('3.55 ₽');
  });
});

describe('a week whose acquiring WB bills separately («Комиссия за организацию платежа с НДС»)', () => {
  const week = realWeek2026({ billedSeparately: true });
  const sales = week.rows.filter((r) => r.paymentProcessing !== undefined);
  const signed = (f: (r: WbDetailedRow) => number) =>
    sales.reduce((s, r) => s + (r.docTypeName === 'Возврат' ? -1 : 1) * f(r), 0);

  it('acquiring is its own expense, outside for_pay and the payout', () => {
    const { parsed, totals, items } = build(week.rows);
    const acquiring = signed((r) => k(r.acquiringFee));
    expect(acquiring).toBeGreaterThan(0);
    expect(totals.acquiring_billed).toBe(acquiring);
    expect(totals.acquiring).toBe(0);
    expect(totals.payout).toBe(auditBankPayment(week.rows));
    const inside = build(realWeek2026().rows).totals;
    // for_pay is higher by the acquiring, the payout with it; profit is the same either way.
    expect((totals.for_pay ?? 0) - (inside.for_pay ?? 0)).toBe(acquiring);
    expect((totals.payout ?? 0) - (inside.payout ?? 0)).toBe(acquiring);
    expect(totals.expenses).toBe(inside.expenses);
    expect(totals.profit).toBe(inside.profit);
    expect(parsed.warnings.filter((w) => w.code === 'unexplained_rows')).toEqual([]);
    expect(checkIdentity(items.map((i) => ({ article: i.article, computed: i.effective })))).toEqual([]);
  });

  it('the row’s own money decides when its payment type disagrees with it', () => {
    // Acquiring taken from for_pay although the type says «организацию платежа»: inside, as the money says.
    const inside = realWeek2026().rows.map((r) =>
      r.paymentProcessing !== undefined ? { ...r, paymentProcessing: 'Комиссия за организацию платежа с НДС' } : r,
    );
    const { totals, parsed } = build(inside);
    expect(totals.acquiring_billed).toBe(0);
    expect(parsed.warnings.filter((w) => w.code === 'unexplained_rows')).toEqual([]);
  });

  it('a sale row neither way explains is named with its gap', () => {
    const odd = sales[2]!;
    const rows = week.rows.map((r) => (r === odd ? { ...r, forPay: (Number(r.forPay) - 10).toFixed(2) } : r));
    const { parsed } = build(rows);
    expect(parsed.warnings.find((x) => x.code === 'unexplained_rows')?.details).toEqual({
      rows: 1,
      row_numbers: [String(odd.rrdId)],
      amount: 1_000,
    });
  });
});
