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
 *   −cashbackAmountSum − cashbackCommissionChangeSum ↔ loyalty
 * The payout is WB's «Итого к оплате» line by line (docs/WB-API.md, the audit formula), so every figure is
 * either equal to the kopeck or a mismatch: `match` only when all are equal.
 */
import type { ItemValues } from '../../../engine/types';

export type ReconciliationStatus = 'match' | 'mismatch' | 'unavailable';

export interface ReconciledField {
  field: string;
  wb_field: string;
  /** kopecks */
  wb: number;
  ours: number;
  diff: number;
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
    wb_field: '−cashbackAmountSum − cashbackCommissionChangeSum',
    ours: (t) => v(t, 'loyalty'),
    wb: (w) => -s(w, 'cashbackAmountSum') - s(w, 'cashbackCommissionChangeSum'),
  },
];

/** Our totals against WB's list sums; `unavailable` without WB's sums. */
export function reconcile(totals: ItemValues, wbSums: Sums | null | undefined): Reconciliation {
  if (!wbSums || Object.keys(wbSums).length === 0) return { status: 'unavailable', fields: [] };
  const fields = RECONCILED.map((r) => {
    const ours = r.ours(totals);
    const wb = r.wb(wbSums);
    return { field: r.field, wb_field: r.wb_field, wb, ours, diff: ours - wb };
  });
  return { status: fields.some((f) => f.diff !== 0) ? 'mismatch' : 'match', fields };
}

/** Our totals' fields the reconciliation reads (RECONCILED's `ours`), kept per WB report on a combined report. */
const RECONCILED_TOTALS = [
  'payout',
  'for_pay',
  'compensations',
  'logistics',
  'reverse_logistics',
  'storage',
  'acceptance',
  'deductions',
  'ads',
  'loans',
  'penalties',
  'additional_payments',
  'loyalty',
] as const;

/** One WB report inside a combined report: its own totals (the reconciled fields, kopecks) and WB's list sums. */
export interface WbPart {
  /** Our report it was imported as. */
  report_id: string;
  /** WB's report id (weekly, buyouts of type 2 and 3, or daily). */
  wb_report_id: string;
  totals: Record<string, number>;
  wb_sums: Record<string, number>;
}

/** A WB-imported report as a part of a combined report; null for a report not imported from WB. */
export function wbPartOf(r: {
  id: string;
  wb_report_id?: string | null;
  wb_sums?: Record<string, number>;
  totals: ItemValues;
}): WbPart | null {
  if (!r.wb_report_id || !r.wb_sums) return null;
  const totals: Record<string, number> = {};
  for (const k of RECONCILED_TOTALS) totals[k] = v(r.totals, k);
  return { report_id: r.id, wb_report_id: r.wb_report_id, totals, wb_sums: r.wb_sums };
}

/**
 * A combined report of WB's reports reconciled per WB report id: each part's own totals against its own
 * list sums (a buyouts report's or a day's figures are checked against its rows, not lost in the week's
 * sum), and the figures summed over the parts that have WB's figures. `match` only when every part
 * matches; `mismatch` when any differs; else `unavailable` (WB gave no figures for a part).
 */
export function reconcileParts(
  parts: readonly WbPart[],
): Reconciliation & { reports: Array<Reconciliation & { report_id: string; wb_report_id: string }> } {
  const reports = parts.map((p) => ({
    report_id: p.report_id,
    wb_report_id: p.wb_report_id,
    ...reconcile(p.totals as unknown as ItemValues, p.wb_sums),
  }));
  const known = reports.filter((r) => r.status !== 'unavailable');
  if (known.length === 0) return { status: 'unavailable', fields: [], reports };
  const fields = RECONCILED.map((r) => {
    let ours = 0;
    let wb = 0;
    for (const p of parts) {
      if (Object.keys(p.wb_sums).length === 0) continue;
      ours += r.ours(p.totals as unknown as ItemValues);
      wb += r.wb(p.wb_sums);
    }
    return { field: r.field, wb_field: r.wb_field, wb, ours, diff: ours - wb };
  });
  // A part WB gave no figures for cannot be confirmed: the whole is `unavailable` unless a part differs.
  const status = reports.some((r) => r.status === 'mismatch')
    ? 'mismatch'
    : known.length < reports.length
      ? 'unavailable'
      : 'match';
  return { status, fields, reports };
}
