/**
 * Reconciliation of an imported report with WB's own figures (docs/METRICS.md «Reconciliation with WB»):
 * our totals (the engine's, integer kopecks) against the sums WB's report list gives for the same report
 * (`sales-reports/list`, kopecks). Pure.
 *
 * Each WB figure is compared with the sum of our totals that covers the same rows (checked to the kopeck
 * on generated weeks, wb-emulator.test and reconcile.test):
 *   bankPaymentSum «Итого к оплате»    ↔ payout
 *   forPaySum «К перечислению за товар» ↔ for_pay + compensations
 *   deliveryServiceSum «Логистика»     ↔ logistics + reverse_logistics
 *   paidStorageSum                     ↔ storage
 *   paidAcceptanceSum                  ↔ acceptance
 *   deductionSum «Удержания»           ↔ deductions + ads + loans (the engine tells them apart)
 *   penaltySum                         ↔ penalties
 *   additionalPaymentSum               ↔ additional_payments
 *   cashbackDiscountSum − cashbackAmountSum − cashbackCommissionChangeSum ↔ loyalty
 * «Итого к оплате» differs by design where WB leaves out the rebill (Σ rebillLogisticCost, our
 * rebill_logistics) or the loyalty discount compensation (cashbackDiscountSum), as docs/WB-API.md found:
 * a payout difference made up exactly of those is named (`explained_by`) and is not a mismatch.
 */
import type { ItemValues } from '../../../engine/types';

export type ReconciliationStatus = 'match' | 'mismatch' | 'unavailable';
export type Explanation = 'rebill_logistics' | 'loyalty_discount';

export interface ReconciledField {
  field: string;
  wb_field: string;
  /** kopecks */
  wb: number;
  ours: number;
  diff: number;
  explained_by: Explanation[];
}

export interface Reconciliation {
  status: ReconciliationStatus;
  fields: ReconciledField[];
}

type Sums = Readonly<Record<string, number>>;
const v = (t: ItemValues, k: string) => Number((t as Record<string, number | null>)[k] ?? 0);
const s = (w: Sums, k: string) => Number(w[k] ?? 0);

export const RECONCILED: ReadonlyArray<{
  field: string;
  wb_field: string;
  ours: (t: ItemValues) => number;
  wb: (w: Sums) => number;
}> = [
  { field: 'payout', wb_field: 'bankPaymentSum', ours: (t) => v(t, 'payout'), wb: (w) => s(w, 'bankPaymentSum') },
  {
    field: 'for_pay',
    wb_field: 'forPaySum',
    ours: (t) => v(t, 'for_pay') + v(t, 'compensations'),
    wb: (w) => s(w, 'forPaySum'),
  },
  {
    field: 'logistics',
    wb_field: 'deliveryServiceSum',
    ours: (t) => v(t, 'logistics') + v(t, 'reverse_logistics'),
    wb: (w) => s(w, 'deliveryServiceSum'),
  },
  { field: 'storage', wb_field: 'paidStorageSum', ours: (t) => v(t, 'storage'), wb: (w) => s(w, 'paidStorageSum') },
  {
    field: 'acceptance',
    wb_field: 'paidAcceptanceSum',
    ours: (t) => v(t, 'acceptance'),
    wb: (w) => s(w, 'paidAcceptanceSum'),
  },
  {
    field: 'deductions',
    wb_field: 'deductionSum',
    ours: (t) => v(t, 'deductions') + v(t, 'ads') + v(t, 'loans'),
    wb: (w) => s(w, 'deductionSum'),
  },
  { field: 'penalties', wb_field: 'penaltySum', ours: (t) => v(t, 'penalties'), wb: (w) => s(w, 'penaltySum') },
  {
    field: 'additional_payments',
    wb_field: 'additionalPaymentSum',
    ours: (t) => v(t, 'additional_payments'),
    wb: (w) => s(w, 'additionalPaymentSum'),
  },
  {
    field: 'loyalty',
    wb_field: 'cashbackDiscountSum − cashbackAmountSum − cashbackCommissionChangeSum',
    ours: (t) => v(t, 'loyalty'),
    wb: (w) => s(w, 'cashbackDiscountSum') - s(w, 'cashbackAmountSum') - s(w, 'cashbackCommissionChangeSum'),
  },
];

/** Which by-design differences make up `diff` of the payout exactly (none when it is 0 or unexplained). */
function explainPayout(diff: number, totals: ItemValues, w: Sums): Explanation[] | null {
  if (diff === 0) return [];
  const rebill = v(totals, 'rebill_logistics');
  const loyaltyDiscount = s(w, 'cashbackDiscountSum');
  // Ours subtracts the rebill WB may leave out (ours lower) and adds the discount WB may leave out (ours higher).
  const candidates: Array<[number, Explanation[]]> = [
    [-rebill, ['rebill_logistics']],
    [loyaltyDiscount, ['loyalty_discount']],
    [loyaltyDiscount - rebill, ['rebill_logistics', 'loyalty_discount']],
  ];
  for (const [amount, names] of candidates) if (amount !== 0 && diff === amount) return names;
  return null;
}

/** Our totals against WB's list sums; `unavailable` without WB's sums. */
export function reconcile(totals: ItemValues, wbSums: Sums | null | undefined): Reconciliation {
  if (!wbSums || Object.keys(wbSums).length === 0) return { status: 'unavailable', fields: [] };
  let mismatch = false;
  const fields = RECONCILED.map((r) => {
    const ours = r.ours(totals);
    const wb = r.wb(wbSums);
    const diff = ours - wb;
    let explained: Explanation[] = [];
    if (diff !== 0) {
      const e = r.field === 'payout' ? explainPayout(diff, totals, wbSums) : null;
      if (e === null) mismatch = true;
      else explained = e;
    }
    return { field: r.field, wb_field: r.wb_field, wb, ours, diff, explained_by: explained };
  });
  return { status: mismatch ? 'mismatch' : 'match', fields };
}
