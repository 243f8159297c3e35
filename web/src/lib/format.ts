// Numbers as a Russian reader expects them: spaces between thousands, a comma before kopecks.
import type { FieldUnit } from './fields';
import { amountBySize } from '../../../shared/engine/months';

const money = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 });
// One rule for every percent on the page: two decimals (4,00 %, 93,70 %, 3,35 %), as stored.
const percent = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Roubles with 2 decimals; "—" when there is no value. */
export function formatMoney(roubles: number | null | undefined): string {
  return isNumber(roubles) ? money.format(roubles) : '—';
}

export function formatRub(roubles: number | null | undefined): string {
  return isNumber(roubles) ? `${money.format(roubles)} ₽` : '—';
}

/** A summarised amount (a banner, a sentence): «8 220 ₽» below a million, «1,2 млн ₽» above; tables keep kopecks. */
export function formatBySize(roubles: number | null | undefined): string {
  return isNumber(roubles) ? amountBySize(Math.round(roubles * 100)) : '—';
}

export function formatInt(n: number | null | undefined): string {
  return isNumber(n) ? integer.format(n) : '—';
}

/** A table's count of articles: «Артикулов: 12», or «Найдено 3 из 12» while a search or filter hides some. */
export function articlesCount(shown: number, total: number): string {
  return shown === total ? `Артикулов: ${formatInt(total)}` : `Найдено ${formatInt(shown)} из ${formatInt(total)}`;
}

export function formatPercent(p: number | null | undefined): string {
  return isNumber(p) ? `${percent.format(p)} %` : '—';
}

export function formatByUnit(unit: FieldUnit, value: number | null | undefined): string {
  if (unit === 'money') return formatMoney(value);
  if (unit === 'qty') return formatInt(value);
  return formatPercent(value);
}

/**
 * What a person types into a number cell: "1 234,56", "1234.56", "−50", "12 %", "100 ₽".
 * Returns null when the text is not a number.
 */
export function parseNumberInput(text: string): number | null {
  const cleaned = text
    .replace(/[\s\u00a0\u202f]/g, '')
    .replace(/[₽%]|руб\.?/gi, '')
    .replace(/[−–]/g, '-')
    .replace(',', '.');
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : null;
}

/** Value as it goes back to the API: money and percents to 2 decimals, counts whole. */
export function normaliseForUnit(unit: FieldUnit, value: number): number {
  if (unit === 'qty') return Math.round(value);
  return Math.round(value * 100) / 100;
}

/** Plain editable text of a value (no grouping), for an input's starting content. */
export function editText(unit: FieldUnit, value: number | null | undefined): string {
  if (!isNumber(value)) return '';
  return unit === 'qty' ? String(Math.round(value)) : value.toFixed(2).replace('.', ',');
}

const date = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric' });
const dateTime = new Intl.DateTimeFormat('ru-RU', {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

function toDate(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  // A bare YYYY-MM-DD is a calendar date, not UTC midnight.
  const d = /^\d{4}-\d{2}-\d{2}$/.test(iso) ? new Date(`${iso}T00:00:00`) : new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function formatDate(iso: string | null | undefined): string {
  const d = toDate(iso);
  return d ? date.format(d) : '—';
}

export function formatDateTime(iso: string | null | undefined): string {
  const d = toDate(iso);
  return d ? dateTime.format(d) : '—';
}

export function formatPeriod(from: string | null | undefined, to: string | null | undefined): string {
  if (!from && !to) return '—';
  if (from === to) return formatDate(from);
  return `${formatDate(from)} — ${formatDate(to)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} Б`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace('.', ',')} КБ`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace('.', ',')} МБ`;
}

/** The Russian plural form of a word for n: pluralForm(3, ['артикул', 'артикула', 'артикулов']) = 'артикула'. */
export function pluralForm(n: number, forms: readonly [string, string, string]): string {
  const abs = Math.abs(n);
  const mod10 = abs % 10;
  const mod100 = abs % 100;
  return mod10 === 1 && mod100 !== 11
    ? forms[0]
    : mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)
      ? forms[1]
      : forms[2];
}

/** The number and its word: plural(3, ['артикул', 'артикула', 'артикулов']) = '3 артикула'. */
export function plural(n: number, forms: readonly [string, string, string]): string {
  return `${n.toLocaleString('ru-RU')} ${pluralForm(n, forms)}`;
}
