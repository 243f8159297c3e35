/**
 * A detailed row's values checked before they count (the Finance client refuses the page, and so the
 * report, on the first row that fails; docs/WB-API.md «Rows checked before they count»): a money field the
 * engine reads sent as null (never read as 0), a negative quantity on a sale, a value past the engine's
 * bounds (shared/engine/build.ts: 10^13 kopecks, 10^9 units). The row's type checks (a number where a
 * number belongs, money as decimal text) are schemas.ts's.
 */
import { MAX_MANUAL_MONEY, MAX_MANUAL_QTY } from '../../../engine/build';
import { DETAILED_ROW_FIELDS, DETAILED_ROW_FIELD_NAMES, type DetailedRowField } from './finance-fields';

/**
 * The money fields every row carries in WB's answers (the spec's required ones that the engine reads):
 * null in one of these is a broken row, not a zero. Newer money fields (cashback*, paymentSchedule,
 * installmentCofinancingAmount, rebillLogisticCost) may be absent or null and count as 0.
 */
export const REQUIRED_MONEY: readonly DetailedRowField[] = [
  'retailPrice',
  'retailAmount',
  'retailPriceWithDisc',
  'deliveryService',
  'ppvzSalesCommission',
  'forPay',
  'ppvzReward',
  'acquiringFee',
  'vw',
  'vwNds',
  'penalty',
  'additionalPayment',
  'paidStorage',
  'deduction',
  'paidAcceptance',
];

const MONEY = DETAILED_ROW_FIELD_NAMES.filter((f) => DETAILED_ROW_FIELDS[f][0] === 'money');
const MONEY_BOUND_ROUBLES = MAX_MANUAL_MONEY / 100;
const COUNTS: readonly DetailedRowField[] = ['quantity', 'deliveryAmount', 'returnAmount'];
const SALE = 'Продажа';
/** The same word as the Finance client's one-byte first reading of a row has it (json-rows.ts `latin1`). */
const SALE_LATIN1 = Buffer.from(SALE, 'utf8').toString('latin1');

/** Why the row (index `i`, as WB sent it) cannot count, or null when it can. */
export function rowValueProblem(row: Record<string, unknown>, i: number): string | null {
  const id = typeof row.rrdId === 'number' ? ` (rrdId ${row.rrdId})` : '';
  for (const field of REQUIRED_MONEY) {
    if (field in row && row[field] === null) return `row ${i}${id}: ${field} is null`;
  }
  for (const field of MONEY) {
    const v = row[field];
    if (typeof v === 'number' && !(Math.abs(v) < MONEY_BOUND_ROUBLES))
      return `row ${i}${id}: ${field} ${v} is past the bounds`;
    if (typeof v === 'string' && /^\s*[+-]?\d{12,}/.test(v) && Math.abs(Number(v)) >= MONEY_BOUND_ROUBLES)
      return `row ${i}${id}: ${field} ${v.trim().slice(0, 30)} is past the bounds`;
  }
  for (const field of COUNTS) {
    const v = row[field];
    if (typeof v === 'number' && Math.abs(v) > MAX_MANUAL_QTY) return `row ${i}${id}: ${field} ${v} is past the bounds`;
  }
  if (
    (row.docTypeName === SALE || row.docTypeName === SALE_LATIN1) &&
    typeof row.quantity === 'number' &&
    row.quantity < 0
  )
    return `row ${i}${id}: quantity ${row.quantity} on a sale`;
  return null;
}
