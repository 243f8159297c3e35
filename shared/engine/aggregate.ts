/**
 * Per-article accumulators (docs/METRICS.md, Aggregates per article): a RowSink that the readers feed row by row,
 * so nothing holds the sheet. Money is summed as integer kopecks parsed straight from the cell text.
 *
 * Hot path: called once per row for files of several hundred thousand rows, so it keeps one mutable
 * accumulator object per article, caches the classification per distinct operation / document type /
 * bonus type text, and parses only the cells a row's class needs.
 */
import {
  classifyNormalized,
  deductionKind,
  isReverseLegKind,
  normalizeText,
  type DeductionKind,
  type OperationClass,
} from './classify';
import { round2, scanScaled, toIsoDate } from './money';
import { KEY_INDEX, METRIC_KEYS, type MetricKey, type RowSink } from './row-sink';
import type { AggregateValues, ParsedReport, ReportWarning } from './types';

const I = KEY_INDEX;
const SA = I.sa_name;
const SUBJECT = I.subject_name;
const NM = I.nm_id;
const BRAND = I.brand_name;
const DOC = I.doc_type_name;
const OP = I.supplier_oper_name;
const ORDER_DT = I.order_dt;
const SALE_DT = I.sale_dt;
const QTY = I.quantity;
const RETAIL_AMOUNT = I.retail_amount;
const PRICE = I.retail_price_withdisc_rub;
const PCT = I.commission_percent;
const REWARD = I.ppvz_reward;
const ACQ = I.acquiring_fee;
const VW = I.ppvz_vw;
const VW_NDS = I.ppvz_vw_nds;
const FOR_PAY = I.ppvz_for_pay;
const RETURN_AMOUNT = I.return_amount;
const DELIVERY = I.delivery_rub;
const PENALTY = I.penalty;
const ADDITIONAL = I.additional_payment;
const BONUS = I.bonus_type_name;
const REBILL = I.rebill_logistic_cost;
const STORAGE = I.storage_fee;
const DEDUCTION = I.deduction;
const ACCEPTANCE = I.acceptance;
const CB_DISCOUNT = I.cashback_discount;
const CB_COMMISSION = I.cashback_commission_change;
const CB_AMOUNT = I.cashback_amount;
const PAYMENT_TYPE = I.payment_processing;
const ROW_NO = I.rrd_no;

/** The columns of WB's identity of a row's money (for_pay = retail_amount − vw − vw_nds − acquiring − ppvz_reward). */
const IDENTITY_KEYS: readonly MetricKey[] = [
  'retail_amount',
  'ppvz_vw',
  'ppvz_vw_nds',
  'acquiring_fee',
  'ppvz_reward',
  'ppvz_for_pay',
];
/** WB rounds each column on its own: a row's identity holds within this many kopecks. */
const ROW_TOLERANCE = 1;
/** Rows named in the `unexplained_rows` warning (the count and the amount cover them all). */
const NAMED_ROWS_MAX = 20;

/**
 * A payment type whose acquiring WB bills separately, outside for_pay («Комиссия за организацию платежа с
 * НДС»), as against «Компенсация платёжных услуг», deducted inside for_pay (docs/METRICS.md, Row money).
 */
export function isAcquiringBilledSeparately(paymentTypeNormalized: string): boolean {
  return paymentTypeNormalized.includes('организацию платежа');
}

/** Distinct date texts remembered with their ISO date (sale and order dates repeat across rows). */
const DATE_CACHE_MAX = 4096;

class Acc {
  salesQty = 0;
  returnsQty = 0;
  realization = 0;
  sellerPrice = 0;
  salesSellerPrice = 0;
  forPay = 0;
  commission = 0;
  acquiring = 0;
  attorney = 0;
  compensations = 0;
  logistics = 0;
  reverseLogistics = 0;
  rebill = 0;
  storage = 0;
  acceptance = 0;
  penalties = 0;
  additional = 0;
  ads = 0;
  loans = 0;
  deductions = 0;
  loyalty = 0;
  loyaltyDiscount = 0;
  acquiringBilled = 0;
  /** Σ commission_percent · |retail_amount| and Σ |retail_amount| over realization rows (weighted mean). */
  pctWeighted = 0;
  pctWeight = 0;
  /** Plain mean of the percents, for an article whose realization rows all have zero amounts. */
  pctPlain = 0;
  pctRows = 0;
  category = '';
  categoryFromRealization = false;
  nmId = '';
  brand = '';
  constructor(readonly article: string) {}
}

interface BonusInfo {
  reverse: boolean;
  deduction: DeductionKind;
}

interface OperationStats {
  name: string;
  known: boolean;
  rows: number;
  amount: number;
}

interface InvalidCells {
  rows: number;
  example: string;
}

export interface AggregatorResult {
  period_from: string | null;
  period_to: string | null;
  articles: ParsedReport['articles'];
  warnings: ParsedReport['warnings'];
  /** Rows received. */
  rows: number;
}

export type Aggregator = RowSink & { finish(): AggregatorResult };

/** `onArticle` hears each article code (not the empty one) once, the first time a row names it. */
export function createAggregator(onArticle?: (article: string) => void): Aggregator {
  const accs = new Map<string, Acc>();
  const opCache = new Map<string, OperationClass>();
  const docCache = new Map<string, 1 | -1 | 0>();
  const bonusCache = new Map<string, BonusInfo>();
  const dateCache = new Map<string, string | null>();
  const uncounted = new Map<string, OperationStats>();
  const invalid = new Map<number, InvalidCells>();
  const paymentTypeCache = new Map<string, boolean>();
  /** Rows whose money WB's identity does not explain (docs/METRICS.md, Row money). */
  const unexplained = { rows: 0, amount: 0, named: [] as string[] };
  let hasVw = true;
  /** Every column of WB's row identity is in the file, so each row can be checked. */
  let canCheck = true;
  let rows = 0;
  let lastRawArticle: string | undefined;
  let lastAcc: Acc | undefined;
  let periodFrom: string | null = null;
  let periodTo: string | null = null;
  let pctMaxAbs = 0;
  let orphanRows = 0;
  let orphanRealization = 0;
  let orphanForPay = 0;

  function money(cells: ReadonlyArray<string | undefined>, idx: number): number {
    const t = cells[idx];
    if (t === undefined) return 0;
    const v = scanScaled(t, 2);
    if (v !== v) return badCell(idx, t);
    return v;
  }

  function count(cells: ReadonlyArray<string | undefined>, idx: number): number {
    const t = cells[idx];
    if (t === undefined) return 0;
    const v = scanScaled(t, 0);
    if (v !== v) return badCell(idx, t);
    return v;
  }

  function percent(cells: ReadonlyArray<string | undefined>, idx: number): number {
    const t = cells[idx];
    if (t === undefined) return 0;
    const v = scanScaled(t, 6);
    if (v !== v) return badCell(idx, t);
    return v / 1e6;
  }

  function badCell(idx: number, text: string): number {
    // Non-numeric text in a number column ("-", "н/д") counts as 0 and is reported, never silently.
    if (text.trim() === '') return 0;
    const s = invalid.get(idx);
    if (s) s.rows++;
    else invalid.set(idx, { rows: 1, example: text.length > 50 ? `${text.slice(0, 50)}…` : text });
    return 0;
  }

  function billedSeparately(text: string | undefined): boolean {
    if (text === undefined) return false;
    let b = paymentTypeCache.get(text);
    if (b === undefined) {
      b = isAcquiringBilledSeparately(normalizeText(text));
      paymentTypeCache.set(text, b);
    }
    return b;
  }

  function noteUnexplained(cells: ReadonlyArray<string | undefined>, gap: number): void {
    unexplained.rows++;
    unexplained.amount += gap;
    if (unexplained.named.length < NAMED_ROWS_MAX) {
      const no = cells[ROW_NO]?.trim();
      unexplained.named.push(no !== undefined && no !== '' ? no : `стр. ${rows}`);
    }
  }

  function bonusInfo(text: string | undefined): BonusInfo {
    const key = text ?? '';
    let b = bonusCache.get(key);
    if (b === undefined) {
      const n = normalizeText(key);
      b = { reverse: isReverseLegKind(n), deduction: deductionKind(n) };
      bonusCache.set(key, b);
    }
    return b;
  }

  function accFor(raw: string | undefined): Acc {
    if (raw === lastRawArticle && lastAcc !== undefined) return lastAcc;
    const article = raw === undefined ? '' : raw.trim();
    let acc = accs.get(article);
    if (acc === undefined) {
      acc = new Acc(article);
      accs.set(article, acc);
      if (onArticle !== undefined && article !== '') onArticle(article);
    }
    lastRawArticle = raw;
    lastAcc = acc;
    return acc;
  }

  function isoDate(text: string | undefined): string | null {
    if (text === undefined) return null;
    let d = dateCache.get(text);
    if (d === undefined) {
      d = toIsoDate(text);
      // A report has a few hundred distinct date texts; a hostile one cannot grow the cache without bound.
      if (dateCache.size >= DATE_CACHE_MAX) dateCache.clear();
      dateCache.set(text, d);
    }
    return d;
  }

  function notePeriod(cells: ReadonlyArray<string | undefined>): void {
    let d = isoDate(cells[SALE_DT]);
    if (d === null) d = isoDate(cells[ORDER_DT]);
    if (d === null) return;
    if (periodFrom === null || d < periodFrom) periodFrom = d;
    if (periodTo === null || d > periodTo) periodTo = d;
  }

  return {
    begin(present: ReadonlySet<MetricKey>): void {
      hasVw = present.has('ppvz_vw');
      canCheck = IDENTITY_KEYS.every((k) => present.has(k));
    },

    row(cells: ReadonlyArray<string | undefined>): void {
      rows++;
      const acc = accFor(cells[SA]);
      const opRaw = cells[OP] ?? '';
      let op = opCache.get(opRaw);
      if (op === undefined) {
        op = classifyNormalized(normalizeText(opRaw));
        opCache.set(opRaw, op);
      }

      if (acc.nmId === '') {
        const nm = cells[NM];
        if (nm !== undefined) acc.nmId = nm.trim();
      }
      if (acc.brand === '') {
        const b = cells[BRAND];
        if (b !== undefined) acc.brand = b.trim();
      }
      if (!acc.categoryFromRealization) {
        const subj = cells[SUBJECT];
        if (subj !== undefined) {
          const s = subj.trim();
          if (s !== '') {
            if (op.cls === 'realization') {
              acc.category = s;
              acc.categoryFromRealization = true;
            } else if (acc.category === '') {
              acc.category = s;
            }
          }
        }
      }
      notePeriod(cells);

      // Column-driven amounts: summed over every row whatever its class (zero elsewhere).
      const rebill = money(cells, REBILL);
      const storage = money(cells, STORAGE);
      const acceptance = money(cells, ACCEPTANCE);
      const penalty = money(cells, PENALTY);
      const additional = money(cells, ADDITIONAL);
      const deduction = money(cells, DEDUCTION);
      const cbDiscount = money(cells, CB_DISCOUNT);
      const cbCommission = money(cells, CB_COMMISSION);
      const cbAmount = money(cells, CB_AMOUNT);
      acc.rebill += rebill;
      acc.storage += storage;
      acc.acceptance += acceptance;
      acc.penalties += penalty;
      acc.additional += additional;
      acc.loyalty -= cbCommission + cbAmount;
      acc.loyaltyDiscount += cbDiscount;
      if (rebill !== 0 && canCheck) {
        // WB nets the rebill in its reward on the same row: vw + vw_nds = −rebill and for_pay = 0.
        const gap = money(cells, VW) + money(cells, VW_NDS) + rebill;
        const forPay = money(cells, FOR_PAY);
        if (Math.abs(gap) > ROW_TOLERANCE || forPay !== 0)
          noteUnexplained(cells, Math.abs(gap) > ROW_TOLERANCE ? gap : forPay);
      }
      if (deduction !== 0) {
        const kind = bonusInfo(cells[BONUS]).deduction;
        if (kind === 'ads') acc.ads += deduction;
        else if (kind === 'loans') acc.loans += deduction;
        else acc.deductions += deduction;
      }

      switch (op.cls) {
        case 'realization': {
          const s = direction(op, cells[DOC]);
          const qty = count(cells, QTY);
          const retail = money(cells, RETAIL_AMOUNT);
          // Price kopecks × integer quantity: exact, no float product of roubles.
          const price = money(cells, PRICE) * qty;
          const forPay = money(cells, FOR_PAY);
          const vw = money(cells, VW) + money(cells, VW_NDS);
          const acq = money(cells, ACQ);
          const reward = money(cells, REWARD);
          // Where the row's acquiring sits: its payment type says, WB's identity on the row confirms
          // (for_pay = retail_amount − vw − vw_nds − acquiring − ppvz_reward when acquiring is inside,
          // without the acquiring term when WB bills it separately); a row neither explains is named.
          let outside = billedSeparately(cells[PAYMENT_TYPE]);
          if (canCheck) {
            const inside = retail - vw - acq - reward - forPay;
            const apart = inside + acq;
            const insideHolds = Math.abs(inside) <= ROW_TOLERANCE;
            const apartHolds = Math.abs(apart) <= ROW_TOLERANCE;
            if (insideHolds !== apartHolds) outside = apartHolds;
            else if (!insideHolds) noteUnexplained(cells, s * (outside ? apart : inside));
          }
          const acqIn = outside ? 0 : acq;
          acc.acquiringBilled += s * (acq - acqIn);
          if (s === 1) {
            acc.salesQty += qty;
            acc.salesSellerPrice += price;
            acc.realization += retail;
            acc.sellerPrice += price;
            acc.forPay += forPay;
            acc.commission += vw;
            acc.acquiring += acqIn;
            acc.attorney += reward;
          } else {
            acc.returnsQty += qty;
            acc.realization -= retail;
            acc.sellerPrice -= price;
            acc.forPay -= forPay;
            acc.commission -= vw;
            acc.acquiring -= acqIn;
            acc.attorney -= reward;
          }
          const pct = percent(cells, PCT);
          if (pct !== 0) {
            const a = pct < 0 ? -pct : pct;
            if (a > pctMaxAbs) pctMaxAbs = a;
          }
          const w = retail < 0 ? -retail : retail;
          acc.pctWeighted += pct * w;
          acc.pctWeight += w;
          acc.pctPlain += pct;
          acc.pctRows++;
          if (acc.article === '' && (retail !== 0 || forPay !== 0)) {
            orphanRows++;
            orphanRealization += s * retail;
            orphanForPay += s * forPay;
          }
          break;
        }
        case 'compensation': {
          const s = direction(op, cells[DOC]);
          const forPay = money(cells, FOR_PAY);
          acc.compensations += s * forPay;
          if (acc.article === '' && forPay !== 0) {
            orphanRows++;
            orphanForPay += s * forPay;
          }
          break;
        }
        case 'logistics': {
          const delivery = money(cells, DELIVERY) * op.sign;
          if (delivery !== 0) {
            if (count(cells, RETURN_AMOUNT) > 0 || bonusInfo(cells[BONUS]).reverse) acc.reverseLogistics += delivery;
            else acc.logistics += delivery;
          }
          break;
        }
        case 'pickup':
          acc.attorney += money(cells, REWARD);
          break;
        case 'acquiring_correction':
          acc.acquiring += money(cells, ACQ);
          break;
        default: {
          if (
            rebill === 0 &&
            storage === 0 &&
            acceptance === 0 &&
            penalty === 0 &&
            additional === 0 &&
            deduction === 0 &&
            cbDiscount === 0 &&
            cbCommission === 0 &&
            cbAmount === 0
          ) {
            const amount =
              money(cells, RETAIL_AMOUNT) +
              money(cells, FOR_PAY) +
              money(cells, DELIVERY) +
              money(cells, REWARD) +
              money(cells, ACQ) +
              money(cells, VW) +
              money(cells, VW_NDS);
            // Rare rows: normalising here merges spellings of one operation into one warning.
            const key = normalizeText(opRaw);
            let st = uncounted.get(key);
            if (st === undefined) {
              st = { name: opRaw.trim().replace(/\s+/g, ' '), known: op.known, rows: 0, amount: 0 };
              uncounted.set(key, st);
            }
            st.rows++;
            st.amount += amount;
          }
        }
      }
    },

    finish(): AggregatorResult {
      // A percent column whose non-zero values are all ≤ 1 holds fractions (0.15 = 15 %), as WB wrote up to 2022.
      const pctIsFraction = pctMaxAbs > 0 && pctMaxAbs <= 1;
      const articles: ParsedReport['articles'] = [];
      for (const a of accs.values()) {
        let pct = a.pctWeight > 0 ? a.pctWeighted / a.pctWeight : a.pctRows > 0 ? a.pctPlain / a.pctRows : 0;
        if (pctIsFraction) pct *= 100;
        const commission = hasVw ? a.commission : a.realization - a.forPay - a.acquiring - a.attorney;
        const aggregates: AggregateValues = {
          sales_qty: a.salesQty,
          returns_qty: a.returnsQty,
          seller_price: a.sellerPrice,
          sales_seller_price: a.salesSellerPrice,
          wb_discount: a.sellerPrice - a.realization,
          realization: a.realization,
          commission,
          acquiring: a.acquiring,
          acquiring_billed: a.acquiringBilled,
          attorney_services: a.attorney,
          for_pay: a.forPay,
          compensations: a.compensations,
          additional_payments: a.additional,
          loyalty: a.loyalty,
          loyalty_discount: a.loyaltyDiscount,
          logistics: a.logistics,
          reverse_logistics: a.reverseLogistics,
          rebill_logistics: a.rebill,
          storage: a.storage,
          acceptance: a.acceptance,
          penalties: a.penalties,
          deductions: a.deductions,
          ads: a.ads,
          loans: a.loans,
          category_commission_percent: round2(pct) + 0,
        };
        articles.push({ article: a.article, category: a.category, nm_id: a.nmId, brand: a.brand, aggregates });
      }

      const warnings: ReportWarning[] = [];
      for (const st of uncounted.values()) {
        if (!st.known) {
          warnings.push({
            code: 'unknown_operation',
            message: `Неизвестная операция «${st.name}»: ${st.rows} стр., сумма ${formatRoubles(st.amount)} ₽ не учтена`,
            details: { operation: st.name, rows: st.rows, amount: st.amount },
          });
        } else if (st.amount !== 0) {
          warnings.push({
            code: 'uncounted_operation',
            message: `Операция «${st.name}»: ${st.rows} стр., сумма ${formatRoubles(st.amount)} ₽ не попала ни в одну статью`,
            details: { operation: st.name, rows: st.rows, amount: st.amount },
          });
        }
      }
      if (orphanRows > 0) {
        warnings.push({
          code: 'realization_without_article',
          message: `${orphanRows} стр. продаж/возвратов без артикула: реализация ${formatRoubles(orphanRealization)} ₽, к перечислению ${formatRoubles(orphanForPay)} ₽ (строка «Без артикула»)`,
          details: { rows: orphanRows, realization: orphanRealization, for_pay: orphanForPay },
        });
      }
      if (unexplained.rows > 0) {
        const more = unexplained.rows - unexplained.named.length;
        warnings.push({
          code: 'unexplained_rows',
          message: `${unexplained.rows} стр., где деньги строки не сходятся с формулой WB (к перечислению = реализация − ВВ − НДС с ВВ − эквайринг − услуги поверенного; ребилл: ВВ + НДС = −ребилл, к перечислению 0): № ${unexplained.named.join(', ')}${more > 0 ? ` и ещё ${more}` : ''}; расхождение ${formatRoubles(unexplained.amount)} ₽`,
          details: { rows: unexplained.rows, row_numbers: unexplained.named, amount: unexplained.amount },
        });
      }
      if (pctIsFraction) {
        warnings.push({
          code: 'percent_as_fraction',
          message: 'Проценты «Размер кВВ, %» записаны долями (0,15 = 15 %) и пересчитаны в проценты',
          details: { column: 'commission_percent' },
        });
      }
      for (const [idx, s] of invalid) {
        warnings.push({
          code: 'invalid_number',
          message: `Столбец ${METRIC_KEYS[idx]}: ${s.rows} ячеек не являются числом (например «${s.example}») и считаются нулём`,
          details: { column: METRIC_KEYS[idx], rows: s.rows, example: s.example },
        });
      }
      return { period_from: periodFrom, period_to: periodTo, articles, warnings, rows };
    },
  };

  function direction(op: OperationClass, docRaw: string | undefined): 1 | -1 {
    if (docRaw === undefined) return op.sign;
    let d = docCache.get(docRaw);
    if (d === undefined) {
      const n = normalizeText(docRaw);
      d = n === 'продажа' ? 1 : n === 'возврат' ? -1 : 0;
      docCache.set(docRaw, d);
    }
    return d === 0 ? op.sign : d;
  }
}

/** Kopecks → "1234.56" for warning texts. */
function formatRoubles(kopecks: number): string {
  const sign = kopecks < 0 ? '-' : '';
  const a = Math.abs(kopecks);
  const r = a % 100;
  return `${sign}${(a - r) / 100}.${r < 10 ? '0' : ''}${r}`;
}
