/**
 * The money lines of docs/METRICS.md, sign by sign, named once: what WB transfers (payout) and the
 * item's expenses. derive.ts computes with them, the XLSX export lays the payout reconciliation out from
 * them and the web page's waterfall draws them, so a line added or re-signed here changes all three.
 */
import { FIELD_BY_NAME, type FieldName } from './fields';

export interface MoneyLine {
  readonly key: FieldName;
  /** The field's Russian title (fields.ts), as the export and the web page show it. */
  readonly label: string;
  readonly sign: 1 | -1;
}

const line = (sign: 1 | -1, key: FieldName): MoneyLine => ({ key, label: FIELD_BY_NAME.get(key)!.title, sign });

/**
 * payout = for_pay + compensations + additional_payments + loyalty − logistics − reverse_logistics − storage −
 * acceptance − penalties − deductions − ads − loans (docs/METRICS.md, payout): WB's «Итого к оплате» line by
 * line. The rebill (netted in WB's reward on its own row), the loyalty discount compensation (already inside
 * for_pay) and acquiring billed separately are not payout lines.
 */
export const PAYOUT_LINES: readonly MoneyLine[] = [
  line(1, 'for_pay'),
  line(1, 'compensations'),
  line(1, 'additional_payments'),
  line(1, 'loyalty'),
  line(-1, 'logistics'),
  line(-1, 'reverse_logistics'),
  line(-1, 'storage'),
  line(-1, 'acceptance'),
  line(-1, 'penalties'),
  line(-1, 'deductions'),
  line(-1, 'ads'),
  line(-1, 'loans'),
];

/**
 * expenses = (realization − for_pay) + acquiring_billed + logistics + reverse_logistics + storage + acceptance +
 * penalties + deductions + ads − loyalty + cost_total + own_costs (docs/METRICS.md, expenses).
 */
export const EXPENSE_LINES: readonly MoneyLine[] = [
  line(1, 'realization'),
  line(-1, 'for_pay'),
  line(1, 'acquiring_billed'),
  line(1, 'logistics'),
  line(1, 'reverse_logistics'),
  line(1, 'storage'),
  line(1, 'acceptance'),
  line(1, 'penalties'),
  line(1, 'deductions'),
  line(1, 'ads'),
  line(-1, 'loyalty'),
  line(1, 'cost_total'),
  line(1, 'own_costs'),
];

/**
 * «Расходы WB»: what WB keeps or bills of the seller's money for its services — the expense lines without
 * the seller's own goods (cost_total, own_costs): WB's commission, acquiring and attorney services
 * (realization − for_pay), acquiring billed separately, logistics both ways, storage, acceptance,
 * penalties, deductions and ads, less the loyalty programme's payments. The report XLSX prints it on its
 * first page beside the cost (docs/METRICS.md «The XLSX export»).
 */
export const WB_COSTS_TITLE = 'Расходы WB';
export const WB_COST_LINES: readonly MoneyLine[] = EXPENSE_LINES.filter(
  (l) => l.key !== 'cost_total' && l.key !== 'own_costs',
);

/**
 * Amounts the report shows beside the payout for reference, moving no money of their own: the rebill WB
 * nets in its reward, the loyalty discount compensation already inside for_pay.
 */
export const REFERENCE_LINES: readonly MoneyLine[] = [line(1, 'rebill_logistics'), line(1, 'loyalty_discount')];

/** Σ sign · value over the lines, in the values' unit (integer kopecks stay integers); a missing value counts as 0. */
export function sumLines(
  lines: readonly MoneyLine[],
  values: Readonly<Partial<Record<FieldName, number | null>>>,
): number {
  let sum = 0;
  for (const l of lines) sum += l.sign * (values[l.key] ?? 0);
  return sum;
}
