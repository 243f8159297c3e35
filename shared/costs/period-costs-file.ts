/**
 * Reading a period-costs file (docs/API.md: POST /api/period-costs/import). In: the file's bytes (.csv
 * or .xlsx, told apart by content). Out: the good rows as cost inputs and the per-row errors with the
 * file's own row numbers, so good rows are imported even when others fail.
 *
 * Columns (found by loose header text among the first rows): «Название» (or «Статья», «Наименование»),
 * «Категория» (зарплаты / аренда / услуги / прочее, or the keys), «Сумма», «Месяц» (or «С месяца»,
 * «Период»), «По месяц» (optional: the last month), «Дата» (a one-off's day), «Тип» (ежемесячный /
 * разовый; without it a row with a date and no month is one-off, else monthly). A month is written
 * 2026-01, 01.2026, «январь 2026» or as any day of it.
 */
import { unprocessable } from '../errors';
import { normalizeImportHeader } from '../catalog/import-file';
import { parseValidFrom } from './valid-from';
import { HEADER_SEARCH_ROWS, parseAmountCell, readTableFile } from './table-file';
import { MAX_PERIOD_COST_NAME, MAX_PERIOD_COSTS, type PeriodCostBody } from '../contract/pnl-shapes';

export const MAX_COST_FILE_BYTES = 1024 * 1024;
const MAX_AMOUNT_ROUBLES = 10_000_000_000;

export interface CostFile {
  rows: Array<{ row: number; cost: PeriodCostBody }>;
  errors: Array<{ row: number; message: string }>;
}

type Column = 'name' | 'category' | 'amount' | 'from' | 'to' | 'date' | 'kind';

/** Which column a header names (normalized text), or null. */
function columnOf(h: string): Column | null {
  if (['название', 'наименование', 'статья', 'статьярасходов', 'name', 'расход'].includes(h)) return 'name';
  if (h.startsWith('категория') || h === 'category') return 'category';
  if (h.startsWith('сумма') || h === 'amount') return 'amount';
  if (['месяц', 'смесяца', 'период', 'месяцначала', 'начало', 'from', 'frommonth'].includes(h)) return 'from';
  if (['помесяц', 'по', 'месяцокончания', 'конец', 'окончание', 'to', 'tomonth', 'домесяца'].includes(h)) return 'to';
  if (h === 'дата' || h === 'date' || h === 'датарасхода') return 'date';
  if (h === 'тип' || h === 'kind' || h === 'вид' || h === 'периодичность') return 'kind';
  return null;
}

function findHeader(rows: readonly string[][]): { index: number; cols: Partial<Record<Column, number>> } | null {
  for (let r = 0; r < Math.min(rows.length, HEADER_SEARCH_ROWS); r++) {
    const cols: Partial<Record<Column, number>> = {};
    (rows[r] ?? []).forEach((cell, i) => {
      const c = columnOf(normalizeImportHeader(cell));
      if (c && cols[c] === undefined) cols[c] = i;
    });
    if (cols.name !== undefined && cols.amount !== undefined && (cols.from !== undefined || cols.date !== undefined))
      return { index: r, cols };
  }
  return null;
}

const MONTHS = [
  'январ',
  'феврал',
  'март',
  'апрел',
  'ма',
  'июн',
  'июл',
  'август',
  'сентябр',
  'октябр',
  'ноябр',
  'декабр',
];

/** A month cell → YYYY-MM, undefined when empty, or an error text. */
export function parseMonth(text: string): string | undefined | { error: string } {
  const t = text.trim().toLowerCase();
  if (t === '') return undefined;
  let m: RegExpExecArray | null;
  const ok = (y: string, mm: number) =>
    mm >= 1 && mm <= 12 && y.length === 4 ? `${y}-${String(mm).padStart(2, '0')}` : undefined;
  let out: string | undefined;
  if ((m = /^(\d{4})-(\d{1,2})$/.exec(t))) out = ok(m[1]!, Number(m[2]));
  else if ((m = /^(\d{1,2})[./](\d{4})$/.exec(t))) out = ok(m[2]!, Number(m[1]));
  else if ((m = /^([а-яё]+)\s+(\d{4})/.exec(t))) {
    const i = MONTHS.findIndex((p) => (p === 'ма' ? /^ма[йяе]$/.test(m![1]!) : m![1]!.startsWith(p)));
    if (i >= 0) out = ok(m[2]!, i + 1);
  } else {
    const d = parseValidFrom(text);
    if (typeof d === 'string') out = d.slice(0, 7);
  }
  return out ?? { error: `Месяц «${text.trim().slice(0, 40)}» не распознан (нужно 2026-01 или 01.2026)` };
}

const CATEGORY_WORDS: Array<[RegExp, PeriodCostBody['category']]> = [
  [/^(salaries|зарплат|зп|оплататруда|фот)/, 'salaries'],
  [/^(rent|аренд)/, 'rent'],
  [/^(services|услуг)/, 'services'],
  [/^(other|проч|другое|иное)/, 'other'],
];

function parseCategory(text: string): PeriodCostBody['category'] | { error: string } {
  const h = normalizeImportHeader(text);
  if (h === '') return 'other';
  for (const [re, c] of CATEGORY_WORDS) if (re.test(h)) return c;
  return { error: `Категория «${text.trim().slice(0, 40)}» не известна (зарплаты, аренда, услуги, прочее)` };
}

const parseAmount = (text: string) => parseAmountCell(text, MAX_AMOUNT_ROUBLES);

function parseKind(text: string): 'monthly' | 'one_off' | undefined | { error: string } {
  const h = normalizeImportHeader(text);
  if (h === '') return undefined;
  if (/^(monthly|ежемес|месяч|регуляр|постоян)/.test(h)) return 'monthly';
  if (/^(oneoff|once|разов|единоврем)/.test(h)) return 'one_off';
  return { error: `Тип «${text.trim().slice(0, 40)}» не известен (ежемесячный или разовый)` };
}

const isError = (v: unknown): v is { error: string } => typeof v === 'object' && v !== null && 'error' in v;

/** Rows of strings → cost inputs and per-row errors (row numbers 1-based, as in the file). */
export function rowsToCosts(rows: readonly string[][]): CostFile {
  const header = findHeader(rows);
  if (!header)
    throw unprocessable('period_cost_columns_missing', 'В файле нет столбцов «Название», «Сумма» и «Месяц» или «Дата»');
  const { cols } = header;
  const cell = (cells: readonly string[], c: Column) => (cols[c] === undefined ? '' : (cells[cols[c]] ?? ''));
  const out: CostFile = { rows: [], errors: [] };
  for (let r = header.index + 1; r < rows.length; r++) {
    const cells = rows[r]!;
    if (cells.every((c) => c.trim() === '')) continue;
    const row = r + 1;
    const fail = (message: string) => out.errors.push({ row, message });
    const name = cell(cells, 'name').trim();
    if (name === '') {
      fail('Название не указано');
      continue;
    }
    if (name.length > MAX_PERIOD_COST_NAME) {
      fail(`Название длиннее ${MAX_PERIOD_COST_NAME} символов`);
      continue;
    }
    const category = parseCategory(cell(cells, 'category'));
    const amount = parseAmount(cell(cells, 'amount'));
    const from = parseMonth(cell(cells, 'from'));
    const to = parseMonth(cell(cells, 'to'));
    const date = parseValidFrom(cell(cells, 'date'));
    const kind = parseKind(cell(cells, 'kind'));
    const firstError = [category, amount, from, to, date, kind].find(isError);
    if (firstError) {
      fail(firstError.error);
      continue;
    }
    const rowKind: 'monthly' | 'one_off' =
      (kind as 'monthly' | 'one_off' | undefined) ?? (date !== undefined && from === undefined ? 'one_off' : 'monthly');
    const base = { name, category: category as PeriodCostBody['category'], amount: amount as number };
    if (rowKind === 'one_off') {
      const day = (date as string | undefined) ?? (from ? `${from as string}-01` : undefined);
      if (!day) fail('Для разового расхода нужна дата');
      else out.rows.push({ row, cost: { ...base, kind: rowKind, date: day } });
    } else {
      const first = (from as string | undefined) ?? (date as string | undefined)?.slice(0, 7);
      if (!first) fail('Для ежемесячного расхода нужен месяц начала');
      else if (to !== undefined && (to as string) < first) fail('Месяц окончания раньше месяца начала');
      else
        out.rows.push({
          row,
          cost: { ...base, kind: rowKind, from_month: first, to_month: (to as string | undefined) ?? null },
        });
    }
  }
  if (out.rows.length + out.errors.length > MAX_PERIOD_COSTS)
    throw unprocessable('too_many_period_costs', `В файле больше ${MAX_PERIOD_COSTS} расходов`, {
      max: MAX_PERIOD_COSTS,
    });
  return out;
}

const tooMany = () =>
  unprocessable('too_many_period_costs', `В файле больше ${MAX_PERIOD_COSTS} расходов`, { max: MAX_PERIOD_COSTS });

/** Reads a period-costs file: see the module comment. */
export async function readCostFile(buf: Buffer): Promise<CostFile> {
  return rowsToCosts(await readTableFile(buf, { maxBytes: MAX_COST_FILE_BYTES, maxRows: MAX_PERIOD_COSTS, tooMany }));
}
