/**
 * Reading a purchases file (docs/API.md: POST /api/purchases/import). In: the file's bytes (.csv or
 * .xlsx, read by shared/costs/table-file.ts like the period costs). Out: the good rows as purchase inputs
 * and the per-row errors with the file's own row numbers, so good rows are imported even when others
 * fail. The use case checks each row again (the date's years, the catalog's articles).
 *
 * Columns (found by loose header text among the first rows): «Дата» (or «Дата оплаты», «Дата закупки»),
 * «Сумма» (or «Сумма закупки», «Стоимость»), optional «Артикул», «Количество» (or «Кол-во», «Шт»),
 * «Комментарий» (or «Поставщик», «Примечание»).
 */
import { unprocessable } from '../errors';
import { normalizeImportHeader } from '../catalog/import-file';
import { parseValidFrom } from '../costs/valid-from';
import { HEADER_SEARCH_ROWS, parseAmountCell, readTableFile } from '../costs/table-file';
import { MAX_PURCHASE_COMMENT, MAX_PURCHASES, type PurchaseBody } from '../contract/cashflow-shapes';
import { MAX_PURCHASE_ROUBLES } from './purchases';

export const MAX_PURCHASE_FILE_BYTES = 2 * 1024 * 1024;

export interface PurchaseFile {
  rows: Array<{ row: number; purchase: PurchaseBody }>;
  errors: Array<{ row: number; message: string }>;
}

type Column = 'date' | 'amount' | 'article' | 'quantity' | 'comment';

/** Which column a header names (normalized text), or null. */
function columnOf(h: string): Column | null {
  if (['дата', 'date', 'датаоплаты', 'датазакупки', 'датаплатежа', 'день'].includes(h)) return 'date';
  if (h.startsWith('сумма') || h === 'amount' || h === 'стоимость' || h === 'оплачено') return 'amount';
  if (h.startsWith('артикул') || h === 'article' || h === 'sa' || h === 'saname') return 'article';
  if (['количество', 'колво', 'шт', 'quantity', 'qty', 'штук'].includes(h)) return 'quantity';
  if (['комментарий', 'comment', 'поставщик', 'примечание', 'описание'].includes(h)) return 'comment';
  return null;
}

function findHeader(rows: readonly string[][]): Partial<Record<Column, number>> & { index: number } {
  for (let r = 0; r < Math.min(rows.length, HEADER_SEARCH_ROWS); r++) {
    const cols: Partial<Record<Column, number>> = {};
    (rows[r] ?? []).forEach((cell, i) => {
      const c = columnOf(normalizeImportHeader(cell));
      if (c && cols[c] === undefined) cols[c] = i;
    });
    if (cols.date !== undefined && cols.amount !== undefined) return { index: r, ...cols };
  }
  throw unprocessable('purchase_columns_missing', 'В файле нет столбцов «Дата» и «Сумма»');
}

const tooMany = () =>
  unprocessable('too_many_purchases', `В файле больше ${MAX_PURCHASES} закупок`, { max: MAX_PURCHASES });

function parseQuantity(text: string): number | null | { error: string } {
  const t = text.replace(/\s|шт\.?/gi, '');
  if (t === '') return null;
  const n = Number(t.replace(',', '.'));
  if (!Number.isInteger(n) || n <= 0)
    return { error: `Количество «${text.trim().slice(0, 40)}» — не целое число больше нуля` };
  return n;
}

/** Rows of strings → purchase inputs and per-row errors (row numbers 1-based, as in the file). */
export function rowsToPurchases(rows: readonly string[][]): PurchaseFile {
  const h = findHeader(rows);
  const cell = (cells: readonly string[], c: Column) => (h[c] === undefined ? '' : (cells[h[c]] ?? ''));
  const out: PurchaseFile = { rows: [], errors: [] };
  for (let r = h.index + 1; r < rows.length; r++) {
    const cells = rows[r]!;
    if (cells.every((c) => c.trim() === '')) continue;
    const row = r + 1;
    const date = parseValidFrom(cell(cells, 'date'));
    const amount = parseAmountCell(cell(cells, 'amount'), MAX_PURCHASE_ROUBLES);
    const quantity = parseQuantity(cell(cells, 'quantity'));
    const article = cell(cells, 'article').trim();
    const comment = cell(cells, 'comment').trim();
    if (date === undefined) out.errors.push({ row, message: 'Дата не указана' });
    else if (typeof date === 'object') out.errors.push({ row, message: date.error });
    else if (typeof amount === 'object') out.errors.push({ row, message: amount.error });
    else if (quantity !== null && typeof quantity === 'object') out.errors.push({ row, message: quantity.error });
    else if (article.length > 1000) out.errors.push({ row, message: 'Артикул длиннее 1000 символов' });
    else if (comment.length > MAX_PURCHASE_COMMENT)
      out.errors.push({ row, message: `Комментарий длиннее ${MAX_PURCHASE_COMMENT} символов` });
    else
      out.rows.push({
        row,
        purchase: { date, amount, quantity, article: article || null, comment: comment || null },
      });
  }
  if (out.rows.length + out.errors.length > MAX_PURCHASES) throw tooMany();
  return out;
}

/** Reads a purchases file: see the module comment. */
export async function readPurchaseFile(buf: Buffer): Promise<PurchaseFile> {
  return rowsToPurchases(
    await readTableFile(buf, { maxBytes: MAX_PURCHASE_FILE_BYTES, maxRows: MAX_PURCHASES, tooMany }),
  );
}
