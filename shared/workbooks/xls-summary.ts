/**
 * The legacy .xls summary (docs/API.md: POST /api/reports/summary-export).
 * In: one SummaryRow per report (number, seller, period, rows, the report's totals) and the template's
 * bytes (the project's fixtures/templates/summary-template.xls by default).
 * Out: the template filled with one row per report below its header and an "Итого" row, as BIFF8 .xls.
 * Steps: find the header row by its text, map each header cell to a value by its text (never by
 * position), write the rows, move anything the template had below its header (signatures) down below the
 * totals. Columns whose header the product does not compute ("Комментарий", "Себестоимость по 1С"…) stay
 * empty. Text is written as string cells (no formulas are ever written).
 */
import * as XLSX from '@e965/xlsx';
import { FIELDS, kopecksToRoubles, type FieldDef, type FieldName } from '../engine/fields';
import type { ItemValues } from '../engine/types';
import { columnTitle, fieldDef, safeText } from './columns';
import { loadSummaryTemplate } from './summary-template';
import { printableXls } from './xls-print';
import type { SummaryRow } from './types';
import { computeTotals } from '../engine/totals';

const SUMMARY_TOTALS_LABEL = 'Итого';

type MetaKey =
  'index' | 'report_number' | 'title' | 'seller_name' | 'seller_number' | 'period_from' | 'period_to' | 'rows';
type SummaryColumn = { kind: 'meta'; key: MetaKey } | { kind: 'field'; field: FieldName };

/** Header text as an accountant may write it: case, "ё", spaces, trailing dots and "₽"/"руб." do not matter. */
function normalizeHeader(text: string): string {
  return text
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/₽/g, 'руб')
    .replace(/\s+/g, ' ')
    .replace(/\s+,/g, ',')
    .trim()
    .replace(/\.+$/, '');
}

const META_HEADERS: Array<[string, MetaKey]> = [
  ['№ п/п', 'index'],
  ['№', 'index'],
  ['Номер отчёта', 'report_number'],
  ['№ отчёта', 'report_number'],
  ['Наименование', 'title'],
  ['Наименование отчёта', 'title'],
  ['Продавец', 'seller_name'],
  ['Код продавца WB', 'seller_number'],
  ['Номер продавца', 'seller_number'],
  ['Период с', 'period_from'],
  ['Период по', 'period_to'],
  ['Кол-во строк', 'rows'],
  ['Строк', 'rows'],
];

/** Legacy wording that differs from the field titles of fields.ts. */
const FIELD_ALIASES: Array<[string, FieldName]> = [
  ['Продано, шт.', 'sales_qty'],
  ['Продажи, шт.', 'sales_qty'],
  ['Возвраты, шт.', 'returns_qty'],
  ['Скидка WB, руб.', 'wb_discount'],
  ['Комиссия, руб.', 'commission'],
  ['Итого к оплате, руб.', 'payout'],
];

/** Header text → what goes in the column: field titles with their unit (", руб."/", ₽"), aliases, metadata. */
const SUMMARY_COLUMNS: ReadonlyMap<string, SummaryColumn> = (() => {
  const m = new Map<string, SummaryColumn>();
  for (const [h, key] of META_HEADERS) m.set(normalizeHeader(h), { kind: 'meta', key });
  for (const d of FIELDS) {
    const field = d.name as FieldName;
    m.set(normalizeHeader(columnTitle(d)), { kind: 'field', field });
    m.set(normalizeHeader(d.title), { kind: 'field', field });
  }
  for (const [h, field] of FIELD_ALIASES) m.set(normalizeHeader(h), { kind: 'field', field });
  return m;
})();

const MONEY_FMT = '#,##0.00';
const PERCENT_FMT = '0.00';
const DATE_FMT = 'dd.mm.yyyy';

/** "2022-12-05" → Excel's day serial (days since 1899-12-30), so the cell is a real date. */
function excelDate(iso: string | null): number | null {
  const m = iso ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso) : null;
  if (!m) return null;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000 + 25_569;
}

type Cell = { t: 's'; v: string } | { t: 'n'; v: number; z?: string } | null;

const text = (v: string | null | undefined): Cell => (v ? { t: 's', v: safeText(v) } : null);
const num = (v: number | null | undefined, z?: string): Cell =>
  v === null || v === undefined ? null : { t: 'n', v, ...(z ? { z } : {}) };

function fieldCell(def: FieldDef, value: number | null | undefined): Cell {
  if (value === null || value === undefined) return null;
  if (def.unit === 'money') return num(kopecksToRoubles(value), MONEY_FMT);
  return num(value, def.unit === 'percent' ? PERCENT_FMT : undefined);
}

/**
 * Totals over the reports: the engine's report-level rule (shared/engine/totals.ts) over the reports'
 * totals, as if each report were one item: additive fields summed, ratios recomputed from the sums
 * (average price, unit costs, margin, ROI, ДРР, ROAS; the commission percent weighted by realization), so
 * the summary's totals row and a combined report of the same weeks agree.
 */
export function summaryTotals(reports: readonly SummaryRow[]): ItemValues {
  return computeTotals(reports.map((r) => r.totals));
}

function cellText(ws: XLSX.WorkSheet, r: number, c: number): string {
  const cell = ws[XLSX.utils.encode_cell({ r, c })] as XLSX.CellObject | undefined;
  return cell && cell.v !== undefined && cell.v !== null ? String(cell.v) : '';
}

const LABEL_KEYS: ReadonlySet<MetaKey> = new Set<MetaKey>([
  'index',
  'report_number',
  'title',
  'seller_name',
  'seller_number',
]);

/** The header row: the first row (of the first 50) where a cell reads "Номер отчёта" or "№ отчёта". */
function findHeader(ws: XLSX.WorkSheet): { row: number; columns: Map<number, SummaryColumn>; labelCol: number } {
  const range = XLSX.utils.decode_range(ws['!ref'] ?? 'A1:A1');
  for (let r = range.s.r; r <= Math.min(range.e.r, range.s.r + 50); r++) {
    const columns = new Map<number, SummaryColumn>();
    let firstCol = -1;
    for (let c = range.s.c; c <= range.e.c; c++) {
      const h = cellText(ws, r, c);
      if (!h) continue;
      if (firstCol < 0) firstCol = c;
      const col = SUMMARY_COLUMNS.get(normalizeHeader(h));
      if (col) columns.set(c, col);
    }
    if ([...columns.values()].some((col) => col.kind === 'meta' && col.key === 'report_number')) {
      // "Итого" goes in the leftmost column that has no total of its own (№, number, title, seller).
      const labelCol = [...columns]
        .filter(([, col]) => col.kind === 'meta' && LABEL_KEYS.has(col.key))
        .map(([c]) => c)
        .sort((a, b) => a - b)[0];
      return { row: r, columns, labelCol: labelCol ?? firstCol };
    }
  }
  throw new Error('summary template: no header row with "Номер отчёта"');
}

function metaCell(key: MetaKey, row: SummaryRow, index: number): Cell {
  switch (key) {
    case 'index':
      return num(index);
    case 'report_number':
      return text(row.report_number);
    case 'title':
      return text(row.title);
    case 'seller_name':
      return text(row.seller?.name);
    case 'seller_number':
      return text(row.seller?.number);
    case 'period_from':
      return num(excelDate(row.period_from), DATE_FMT);
    case 'period_to':
      return num(excelDate(row.period_to), DATE_FMT);
    case 'rows':
      return num(row.rows);
  }
}

function totalsMetaCell(key: MetaKey, reports: readonly SummaryRow[]): Cell {
  const dates = (pick: (r: SummaryRow) => string | null) =>
    reports
      .map(pick)
      .filter((d): d is string => !!d && excelDate(d) !== null)
      .sort();
  switch (key) {
    case 'period_from':
      return num(excelDate(dates((r) => r.period_from)[0] ?? null), DATE_FMT);
    case 'period_to':
      return num(excelDate(dates((r) => r.period_to).at(-1) ?? null), DATE_FMT);
    case 'rows':
      return num(reports.reduce((s, r) => s + r.rows, 0));
    default:
      return null;
  }
}

function put(ws: XLSX.WorkSheet, r: number, c: number, cell: Cell): void {
  const addr = XLSX.utils.encode_cell({ r, c });
  if (cell) ws[addr] = cell as XLSX.CellObject;
  else delete ws[addr];
}

/** Moves every cell and merge below `afterRow` down by `by` rows (the template's footer). */
function shiftFooter(ws: XLSX.WorkSheet, afterRow: number, by: number): void {
  const moved: Array<[number, number, XLSX.CellObject]> = [];
  for (const addr of Object.keys(ws)) {
    if (addr.startsWith('!')) continue;
    const { r, c } = XLSX.utils.decode_cell(addr);
    if (r > afterRow) {
      moved.push([r, c, ws[addr] as XLSX.CellObject]);
      delete ws[addr];
    }
  }
  for (const [r, c, cell] of moved) ws[XLSX.utils.encode_cell({ r: r + by, c })] = cell;
  for (const m of ws['!merges'] ?? []) {
    if (m.s.r > afterRow) {
      m.s.r += by;
      m.e.r += by;
    }
  }
}

/**
 * Fills the summary template. `template` defaults to the project's fixtures/templates/summary-template.xls.
 * Reports are written in the order given.
 */
export function exportSummaryXls(reports: readonly SummaryRow[], template: Buffer = loadSummaryTemplate()): Buffer {
  const wb = XLSX.read(template, { type: 'buffer', cellStyles: true, cellNF: true });
  const ws = wb.Sheets[wb.SheetNames[0]!];
  if (!ws) throw new Error('summary template has no sheet');
  const { row: headerRow, columns, labelCol } = findHeader(ws);
  const range = XLSX.utils.decode_range(ws['!ref'] ?? 'A1:A1');

  // Below the data: the totals row, then one empty row before whatever the template had there.
  const hasFooter = range.e.r > headerRow;
  if (hasFooter) shiftFooter(ws, headerRow, reports.length + 2);

  reports.forEach((report, i) => {
    const r = headerRow + 1 + i;
    for (const [c, col] of columns) {
      put(
        ws,
        r,
        c,
        col.kind === 'meta'
          ? metaCell(col.key, report, i + 1)
          : fieldCell(fieldDef(col.field), report.totals[col.field]),
      );
    }
  });

  const totalsRow = headerRow + 1 + reports.length;
  const totals = summaryTotals(reports);
  for (const [c, col] of columns) {
    put(
      ws,
      totalsRow,
      c,
      col.kind === 'meta' ? totalsMetaCell(col.key, reports) : fieldCell(fieldDef(col.field), totals[col.field]),
    );
  }
  put(ws, totalsRow, labelCol, { t: 's', v: SUMMARY_TOTALS_LABEL });

  range.e.r = Math.max(hasFooter ? range.e.r + reports.length + 2 : 0, totalsRow);
  ws['!ref'] = XLSX.utils.encode_range(range);
  // The template's column widths are kept (SheetJS reads and writes them); print settings are added.
  return printableXls(XLSX.write(wb, { bookType: 'xls', type: 'buffer' }) as Buffer, headerRow + 1);
}
