/**
 * The report-level sums of WB's report list (`sales-reports/list`), computed from a report's detailed rows.
 *
 * The emulator gives its list these sums, and a reconciliation can recompute them from imported rows to
 * say which of WB's figures a difference sits in. The formulas are our reading of WB's weekly report
 * summary (docs/WB-API.md, «Report sums»); each list field is the signed sum of one row field:
 * - retailAmountSum «Продажа»: Σ s·retailPriceWithDisc·quantity over sale/return rows (s = −1 for returns);
 * - forPaySum «К перечислению за товар»: Σ s·forPay over all rows (only sales, returns and compensations
 *   carry it);
 * - deliveryServiceSum «Стоимость логистики»: Σ deliveryService, «Логистика сторно» rows subtracted;
 * - paidStorage/paidAcceptance/deduction/penalty/additionalPayment/cashback*Sum, paymentSchedule: Σ of the
 *   row field over all rows.
 * bankPaymentSum «Итого к оплате» (docs/WB-API.md, «Итого к оплате»):
 * - `audit`, WB's: the public audit's formula of live reports, which has no «Возмещение издержек по
 *   перевозке» (WB nets it in its reward on the row) and no loyalty discount compensation (inside for_pay);
 *   the engine's payout sums the same lines;
 * - `cash`: `audit` − Σ rebillLogisticCost + cashbackDiscountSum, the rebill deducted and the discount
 *   added once more. Not WB's figure: a test's wrong «Итого к оплате», which the reconciliation must call a
 *   mismatch.
 */
import type { ReportListMoneyField } from './finance-fields';
import { moneyToKopecks } from '../money';
import type { WbDetailedRow } from './schemas';

export type BankPaymentFormula = 'audit' | 'cash';

export type ReportSums = Record<ReportListMoneyField, number> & { rebillLogisticCostSum: number };

const RETURN_OPERATIONS = new Set(['возврат', 'корректный возврат', 'сторно продаж', 'коррекция возвратов']);

function norm(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim().toLowerCase().replace(/ё/g, 'е');
}

const k = (v: string | undefined) => (v === undefined || v === '' ? 0 : moneyToKopecks(v));

/** −1 for a return by its document type (or, when that is empty, by its operation), else +1. */
function direction(row: WbDetailedRow): 1 | -1 {
  const doc = norm(row.docTypeName);
  if (doc === 'возврат') return -1;
  if (doc === 'продажа') return 1;
  return RETURN_OPERATIONS.has(norm(row.sellerOperName)) ? -1 : 1;
}

const REALIZATION = new Set([
  'продажа',
  'возврат',
  'корректная продажа',
  'корректный возврат',
  'сторно продаж',
  'сторно возвратов',
  'коррекция продаж',
  'коррекция возвратов',
]);

export function reportSumsFromRows(rows: Iterable<WbDetailedRow>, formula: BankPaymentFormula = 'audit'): ReportSums {
  const s: ReportSums = {
    retailAmountSum: 0,
    forPaySum: 0,
    deliveryServiceSum: 0,
    paidStorageSum: 0,
    paidAcceptanceSum: 0,
    deductionSum: 0,
    penaltySum: 0,
    additionalPaymentSum: 0,
    cashbackAmountSum: 0,
    cashbackDiscountSum: 0,
    cashbackCommissionChangeSum: 0,
    paymentSchedule: 0,
    bankPaymentSum: 0,
    rebillLogisticCostSum: 0,
  };
  for (const row of rows) {
    const op = norm(row.sellerOperName);
    const sign = direction(row);
    if (REALIZATION.has(op)) s.retailAmountSum += sign * k(row.retailPriceWithDisc) * (row.quantity ?? 0);
    s.forPaySum += sign * k(row.forPay);
    s.deliveryServiceSum += (op === 'логистика сторно' ? -1 : 1) * k(row.deliveryService);
    s.paidStorageSum += k(row.paidStorage);
    s.paidAcceptanceSum += k(row.paidAcceptance);
    s.deductionSum += k(row.deduction);
    s.penaltySum += k(row.penalty);
    s.additionalPaymentSum += k(row.additionalPayment);
    s.cashbackAmountSum += k(row.cashbackAmount);
    s.cashbackDiscountSum += k(row.cashbackDiscount);
    s.cashbackCommissionChangeSum += k(row.cashbackCommissionChange);
    s.paymentSchedule += k(row.paymentSchedule);
    s.rebillLogisticCostSum += k(row.rebillLogisticCost);
  }
  s.bankPaymentSum = bankPayment(s, formula);
  return s;
}

export function bankPayment(s: Omit<ReportSums, 'bankPaymentSum'>, formula: BankPaymentFormula): number {
  const audit =
    s.forPaySum +
    s.additionalPaymentSum -
    s.deliveryServiceSum -
    s.paidStorageSum -
    s.paidAcceptanceSum -
    s.deductionSum -
    s.penaltySum -
    s.cashbackAmountSum -
    s.cashbackCommissionChangeSum -
    s.paymentSchedule;
  return formula === 'audit' ? audit : audit - s.rebillLogisticCostSum + s.cashbackDiscountSum;
}
