/**
 * The USN payer's VAT thresholds of 2025–2028, as data with their sources (docs/METRICS.md, «Tax
 * thresholds»), and where a seller's income of the calendar year stands against them. Pure: money in
 * kopecks, months `YYYY-MM`.
 *
 * The rules (Tax Code as amended by 176-ФЗ of 12.07.2024 and 425-ФЗ of 28.11.2025):
 * - a USN payer is exempt from VAT (art. 145 p. 1) while the income of the previous year and of the
 *   current year so far does not exceed the year's threshold; the exemption ends from the 1st day of
 *   the month FOLLOWING the month in which the income exceeded it (art. 145 p. 5);
 * - above the threshold the USN payer may take the special rate 5 % up to the first band limit and 7 %
 *   up to the second (art. 164 p. 8); above the second the USN itself is lost (art. 346.13 p. 4), from
 *   the quarter's start — here: the month after;
 * - the income is the USN base of art. 346.15 (sales income per art. 249): for marketplace sales the full
 *   amount the buyer paid, not reduced by the marketplace's reward (ФНС 08.05.2024 № СД-4-3/5416@,
 *   05.05.2023 № СД-4-3/5762@; Минфин 01.09.2023 № 03-11-11/83988) — the report's `income`
 *   (realization + compensations), by the month of the sale.
 */
import { amountBySize, inMonth } from './months';

export interface YearThresholds {
  year: number;
  /** VAT exemption threshold (kopecks): income above it ends the exemption. */
  exemption: number;
  /** Income up to which the 5 % rate applies (kopecks). */
  rate5: number;
  /** Income up to which the 7 % rate applies — the USN income limit itself (kopecks). */
  rate7: number;
  source: string;
}

const M = 100_000_000; // a million roubles in kopecks

/**
 * The thresholds by year. 2027 and 2028 take 2026's bands: they are indexed by the deflator coefficient
 * each year and the coefficient is not yet published; the exemption steps are the law's own figures.
 */
export const TAX_THRESHOLDS: readonly YearThresholds[] = [
  {
    year: 2025,
    exemption: 60 * M,
    rate5: 250 * M,
    rate7: 450 * M,
    source: 'НК РФ ст. 145 п. 1, ст. 164 п. 8, ст. 346.13 п. 4 (ред. 176-ФЗ от 12.07.2024)',
  },
  {
    year: 2026,
    exemption: 20 * M,
    rate5: 272.5 * M,
    rate7: 490.5 * M,
    source:
      'НК РФ ст. 145 п. 1 (ред. 425-ФЗ от 28.11.2025); ст. 164 п. 8 и ст. 346.13 п. 4, пределы 250 и 450 млн ₽ с коэффициентом-дефлятором 1,090 на 2026 год',
  },
  {
    year: 2027,
    exemption: 15 * M,
    rate5: 272.5 * M,
    rate7: 490.5 * M,
    source: 'НК РФ ст. 145 п. 1 (ред. 425-ФЗ от 28.11.2025); полосы 5 %/7 % — пределы 2026 года до нового коэффициента',
  },
  {
    year: 2028,
    exemption: 10 * M,
    rate5: 272.5 * M,
    rate7: 490.5 * M,
    source: 'НК РФ ст. 145 п. 1 (ред. 425-ФЗ от 28.11.2025); полосы 5 %/7 % — пределы 2026 года до нового коэффициента',
  },
];

/** The share of a threshold from which the warning is shown, percent. */
export const WARNING_SHARE = 80;

/** The thresholds of a year: the table's own, else the nearest year's (before 2025: none). */
export function thresholdsOf(year: number): YearThresholds | null {
  if (year < TAX_THRESHOLDS[0]!.year) return null;
  let found = TAX_THRESHOLDS[0]!;
  for (const t of TAX_THRESHOLDS) if (t.year <= year) found = t;
  return found.year === year ? found : { ...found, year };
}

export const nextMonth = (month: string): string => {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
};

type ThresholdLevel = 'below' | 'approaching' | 'crossed';

interface ThresholdCrossing {
  /** The month in which the income of the year went above the limit. */
  month: string;
  /** The first day the consequence applies: the 1st of the next month. */
  from: string;
}

export interface ThresholdStatus {
  year: number;
  /** The month up to which the income is counted (the last month with income data asked for). */
  as_of: string;
  /** Income of the calendar year up to `as_of`, kopecks. */
  income: number;
  /** Income of the previous calendar year, when known (kopecks). */
  previous_year_income: number | null;
  thresholds: YearThresholds;
  /** income / exemption · 100. */
  share: number;
  level: ThresholdLevel;
  /** The exemption ended: in which month the limit was passed and from which day VAT applies. */
  vat_from: ThresholdCrossing | null;
  /** The previous year's income was above this year's threshold: no exemption from January 1st. */
  previous_year_over: boolean;
  /** The VAT rate that applies from `vat_from` (5, or 7 once the first band is passed); 0 while exempt. */
  vat_rate: 0 | 5 | 7;
  /** Passed the 5 % band: 7 % from this month. */
  rate7_from: ThresholdCrossing | null;
  /** Passed the USN limit itself. */
  usn_lost_from: ThresholdCrossing | null;
  /** Russian, for the page. */
  message: string;
}

/** Kopecks → «20 млн ₽», «272,5 млн ₽» (a million roubles is 10⁸ kopecks). */
export const millions = (k: number): string =>
  `${(Math.round(k / 10_000_000) / 10).toLocaleString('ru-RU', { maximumFractionDigits: 1 })} млн ₽`;
/** An income in a sentence: «8 220 ₽» below a million, «12,3 млн ₽» above; the thresholds in millions. */
const rub = amountBySize;
const dmy = (d: string): string => `${d.slice(8, 10)}.${d.slice(5, 7)}.${d.slice(0, 4)}`;

/** The first month whose running sum goes above `limit`, and the day after that month. */
function crossing(monthly: ReadonlyArray<[string, number]>, limit: number): ThresholdCrossing | null {
  let sum = 0;
  for (const [month, v] of monthly) {
    sum += v;
    if (sum > limit) return { month, from: `${nextMonth(month)}-01` };
  }
  return null;
}

/**
 * Where the income of `year` up to `asOf` stands. `income` maps months (`YYYY-MM`) to the month's
 * income in kopecks (months of other years are ignored, except the previous year's, summed for the
 * previous-year rule when `previousYearKnown`). Null before 2025 (no thresholds for USN payers then).
 */
export function thresholdStatus(
  income: ReadonlyMap<string, number>,
  year: number,
  asOf: string,
  previousYearKnown = false,
): ThresholdStatus | null {
  const t = thresholdsOf(year);
  if (!t) return null;
  const y = String(year);
  const monthly = [...income.entries()]
    .filter(([m]) => m.startsWith(`${y}-`) && m <= asOf)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const total = monthly.reduce((s, [, v]) => s + v, 0);
  const prev = previousYearKnown
    ? [...income.entries()].filter(([m]) => m.startsWith(`${year - 1}-`)).reduce((s, [, v]) => s + v, 0)
    : null;
  const previousOver = prev !== null && prev > t.exemption;
  const vatFrom: ThresholdCrossing | null = previousOver
    ? { month: `${year - 1}-12`, from: `${y}-01-01` }
    : crossing(monthly, t.exemption);
  const rate7From = crossing(monthly, t.rate5);
  const usnLost = crossing(monthly, t.rate7);
  const share = t.exemption > 0 ? Math.round((total / t.exemption) * 10_000) / 100 : 0;
  const level: ThresholdLevel = vatFrom ? 'crossed' : share >= WARNING_SHARE ? 'approaching' : 'below';
  const vatRate: 0 | 5 | 7 = !vatFrom ? 0 : rate7From ? 7 : 5;

  let message: string;
  if (usnLost)
    message = `Доход ${year} года ${rub(total)} превысил лимит УСН ${rub(t.rate7)} ${inMonth(usnLost.month)}: право на УСН утрачено, нужен переход на общую систему.`;
  else if (rate7From)
    message = `Доход ${year} года ${rub(total)} превысил ${rub(t.rate5)} ${inMonth(rate7From.month)}: НДС по ставке 7 % с ${dmy(rate7From.from)}.`;
  else if (vatFrom && previousOver)
    message = `Доход ${year - 1} года ${rub(prev ?? 0)} больше порога ${rub(t.exemption)}: в ${year} году освобождения от НДС нет, НДС 5 % с ${dmy(vatFrom.from)}.`;
  else if (vatFrom)
    message = `Доход ${year} года превысил порог освобождения от НДС ${rub(t.exemption)} ${inMonth(vatFrom.month)}: НДС 5 % с ${dmy(vatFrom.from)}.`;
  else if (level === 'approaching')
    message = `Доход ${year} года ${rub(total)} — ${share.toLocaleString('ru-RU')} % порога освобождения от НДС ${rub(t.exemption)}. После превышения НДС придётся платить с 1-го числа следующего месяца.`;
  else
    message = `Доход ${year} года ${rub(total)} — ${share.toLocaleString('ru-RU')} % порога освобождения от НДС ${rub(t.exemption)}.`;

  return {
    year,
    as_of: asOf,
    income: total,
    previous_year_income: prev,
    thresholds: t,
    share,
    level,
    vat_from: vatFrom,
    previous_year_over: previousOver,
    vat_rate: vatRate,
    rate7_from: rate7From,
    usn_lost_from: usnLost,
    message,
  };
}

/** A dated tax period to add (the settings' tax periods), proposed once a threshold is passed. */
export interface TaxPeriodProposal {
  valid_from: string;
  tax_system: 'usn_income' | 'usn_income_expenses';
  usn_rate: number;
  vat_rate: 5 | 7;
}

/**
 * The tax periods to add so the reports carry the VAT the law asks for: from `vat_from` the rate 5 %
 * (and from `rate7_from` 7 %), with the seller's USN system and rate — each unless a period with a VAT
 * rate other than 0 is already in force on that day (`vatOn`).
 */
export function proposeTaxPeriods(
  s: ThresholdStatus,
  usn: { tax_system: 'usn_income' | 'usn_income_expenses'; usn_rate: number },
  vatOn: (date: string) => number,
): TaxPeriodProposal[] {
  const out: TaxPeriodProposal[] = [];
  if (s.vat_from && !s.usn_lost_from) {
    const first = s.rate7_from && s.rate7_from.from <= s.vat_from.from ? 7 : 5;
    if (vatOn(s.vat_from.from) === 0) out.push({ valid_from: s.vat_from.from, ...usn, vat_rate: first });
    if (s.rate7_from && first === 5 && vatOn(s.rate7_from.from) !== 7)
      out.push({ valid_from: s.rate7_from.from, ...usn, vat_rate: 7 });
  }
  return out;
}
