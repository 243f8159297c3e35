import { FIELD_BY_NAME, FIELD_ORDER, FIELDS, type FieldDef, type FieldName } from '../engine/fields';
import { WB_COSTS_TITLE } from '../engine/payout';
import type { ItemValues, TaxProfile } from '../engine/types';

/**
 * The fields printed beside the article on the first page across (docs/METRICS.md «The XLSX export»): sold,
 * realization, then «Расходы WB» (WB_COSTS_COLUMN, not a field: shared/engine/payout.ts), the cost, profit,
 * margin, payout.
 */
export const MAIN_EXPORT_FIELDS: readonly FieldName[] = [
  'sales_qty',
  'realization',
  'cost_total',
  'profit',
  'margin',
  'payout',
];

/** The column of WB's deductions on the first page, after this many of MAIN_EXPORT_FIELDS. */
export const WB_COSTS_AFTER = 2;
export const WB_COSTS_COLUMN_TITLE = `${WB_COSTS_TITLE}, ₽`;

/** The first printed page's titles across, after the article, in order. */
export const MAIN_EXPORT_TITLES: readonly string[] = [
  ...MAIN_EXPORT_FIELDS.slice(0, WB_COSTS_AFTER).map((f) => columnTitle(fieldDef(f))),
  WB_COSTS_COLUMN_TITLE,
  ...MAIN_EXPORT_FIELDS.slice(WB_COSTS_AFTER).map((f) => columnTitle(fieldDef(f))),
];

/**
 * Item columns of the export: like the web page's items table, the main figures (the result) come right
 * after the article, then every other field in the one order of shared/engine/fields.ts (FIELD_ORDER, the
 * way from the seller's price to profit).
 */
export const EXPORT_FIELD_ORDER: readonly FieldName[] = [
  ...MAIN_EXPORT_FIELDS,
  ...FIELD_ORDER.filter((f) => !MAIN_EXPORT_FIELDS.includes(f)),
];

/**
 * Fields whose total is not the sum of the items: per-unit prices and percentages. docs/METRICS.md: ratios in
 * the totals row are recomputed from the totals, so they are taken from the report's totals.
 */
export const RATIO_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>([
  'avg_seller_price',
  'cost_price',
  'own_cost_price',
  'category_commission_percent',
  'margin',
  'roi',
  'drr',
  'roas',
]);

export function fieldDef(name: FieldName): FieldDef {
  const def = FIELD_BY_NAME.get(name);
  if (!def) throw new Error(`unknown field ${name}`);
  return def;
}

/**
 * Column title with its unit: money titles get ", ₽" unless they name it already («Себестоимость за шт,
 * ₽»); qty and percent titles already say "шт"/"%".
 */
export function columnTitle(def: FieldDef): string {
  return def.unit === 'money' && !def.title.includes('₽') ? `${def.title}, ₽` : def.title;
}

/** Sum of one field over items, in the field's storage unit (kopecks stay integers); null counts as 0. */
export function sumField(rows: ReadonlyArray<ItemValues>, field: FieldName): number {
  let sum = 0;
  for (const r of rows) sum += r[field] ?? 0;
  return sum;
}

/** Every field of FIELDS, for checks that the export misses none. */
export const ALL_FIELD_NAMES: readonly FieldName[] = FIELDS.map((d) => d.name as FieldName);

function groupThousands(intPart: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/** Kopecks as Russian-formatted roubles: 123456 → "1 234,56 ₽", −5 → "−0,05 ₽". */
export function formatRoubles(kopecks: number): string {
  const k = Math.round(kopecks);
  const abs = Math.abs(k);
  const whole = groupThousands(String(Math.floor(abs / 100)));
  const frac = String(abs % 100).padStart(2, '0');
  return `${k < 0 ? '−' : ''}${whole},${frac} ₽`;
}

/** A value of a field for people (notes, summary lines): roubles, "5 шт" or "27,50 %"; "—" when undefined. */
export function formatFieldValue(def: FieldDef, value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (def.unit === 'money') return formatRoubles(value);
  if (def.unit === 'qty') return `${value < 0 ? '−' : ''}${groupThousands(String(Math.abs(value)))} шт`;
  const fixed = Math.abs(value).toFixed(2).replace('.', ',');
  return `${value < 0 ? '−' : ''}${fixed} %`;
}

/** "2022-12-05" → "05.12.2022"; anything else is returned as written. */
export function formatDate(isoDate: string | null): string {
  if (!isoDate) return '—';
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDate);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : isoDate;
}

/** Moscow time: UTC+3 all year (no daylight saving since 2014), so no time-zone database is needed. */
const MOSCOW_OFFSET_MS = 3 * 3600 * 1000;

/**
 * A moment in files, where no browser knows the reader's zone: Moscow time, stated.
 * "2026-11-21T23:44:28.123Z" → "22.11.2026 02:44 (МСК)".
 */
export function formatTimestamp(iso: string): string {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const d = new Date(t + MOSCOW_OFFSET_MS);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}.${p(d.getUTCMonth() + 1)}.${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} (МСК)`;
}

/** The tax profile in words, as an accountant reads it. */
export function describeTaxProfile(tax: TaxProfile): string {
  const system =
    tax.tax_system === 'usn_income'
      ? `УСН «Доходы», ставка ${formatPercentPlain(tax.usn_rate)} %`
      : tax.tax_system === 'usn_income_expenses'
        ? `УСН «Доходы минус расходы», ставка ${formatPercentPlain(tax.usn_rate)} %`
        : 'Налог на доход не рассчитывается';
  const vat = tax.vat_rate > 0 ? `НДС ${formatPercentPlain(tax.vat_rate)} %` : 'без НДС';
  return `${system}; ${vat}`;
}

function formatPercentPlain(n: number): string {
  return String(n).replace('.', ',');
}

/** Excel cells hold at most 32 767 characters; longer text would make Excel "repair" the file. */
const EXCEL_MAX_TEXT = 32_767;

export function safeText(text: string): string {
  return text.length > EXCEL_MAX_TEXT ? text.slice(0, EXCEL_MAX_TEXT) : text;
}
