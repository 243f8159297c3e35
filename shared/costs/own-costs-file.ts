/**
 * Reading an own-costs file (docs/API.md: POST /api/own-costs/import): a table with the columns
 * «Артикул» (optional; an empty cell = the default line for every article), «Статья» (the cost's name:
 * «Упаковка»), «Сумма за шт» (roubles per unit) and «Действует с» (optional: the first day the amount
 * applies). csv, xlsx or xls, read as the catalog import reads its files (import-file.ts
 * readImportTable: the same caps and codes). Out: the good rows and the per-row errors with the file's
 * own row numbers, in Russian; a file without the name and amount columns → 422
 * `own_cost_columns_missing`.
 */
import { unprocessable } from '../errors';
import { isWholeKopecks, scanScaled } from '../engine/money';
import { MAX_ARTICLE_LENGTH } from '../contract/shapes';
import { MAX_IMPORT_ROWS, normalizeImportHeader, readImportTable } from '../catalog/import-file';
import { parseValidFrom, validFromScore } from './valid-from';

/** The header must be within the first rows (a title block above it is fine). */
const HEADER_SEARCH_ROWS = 30;
/** Roubles per unit; more is certainly a typo. */
export const MAX_OWN_COST_ROUBLES = 100_000_000;
/** Longest name of a cost line. */
export const MAX_OWN_COST_NAME_LENGTH = 100;

export interface OwnCostImportRow {
  /** 1-based row of the file. */
  row: number;
  /** null: the default line for every article. */
  article: string | null;
  name: string;
  /** Kopecks per unit. */
  amount: number;
  /** YYYY-MM-DD from the date column; absent = as a plain PUT (the first amount from the beginning, a change from today). */
  validFrom?: string;
}

export interface OwnCostFile {
  rows: OwnCostImportRow[];
  errors: Array<{ row: number; message: string }>;
}

export const OWN_COST_COLUMNS = [
  'Статья (или «Название», «Расход»)',
  'Сумма за шт (или «Сумма», «Стоимость»)',
] as const;

function articleScore(h: string): number {
  if (['артикулпоставщика', 'артикулпродавца', 'saname', 'vendorcode'].includes(h)) return 3;
  if (h === 'артикул' || h === 'article') return 2;
  if (h.startsWith('артикул') && !/wb|вб|nm|ozon/.test(h.slice(7))) return 1;
  return 0;
}

function nameScore(h: string): number {
  if (['статья', 'статьярасходов', 'названиерасхода', 'name'].includes(h)) return 3;
  if (h === 'название' || h === 'расход' || h === 'наименование') return 2;
  if (h.startsWith('статья') || h.startsWith('названи')) return 1;
  return 0;
}

function amountScore(h: string): number {
  if (['суммазашт', 'суммазаединицу', 'стоимостьзашт', 'amount'].includes(h)) return 3;
  if (h === 'сумма' || h === 'стоимость' || h === 'суммаруб' || h === 'сумма₽') return 2;
  if (h.startsWith('сумма') || h.startsWith('стоимость')) return 1;
  return 0;
}

interface Header {
  index: number;
  article: number;
  name: number;
  amount: number;
  date: number;
}

function findHeader(rows: readonly string[][]): Header | { missing: string[] } {
  let bestMissing: string[] = [...OWN_COST_COLUMNS];
  for (let r = 0; r < Math.min(rows.length, HEADER_SEARCH_ROWS); r++) {
    const best = { article: [0, -1], name: [0, -1], amount: [0, -1], date: [0, -1] };
    rows[r]!.forEach((cell, c) => {
      const h = normalizeImportHeader(cell);
      const scores = { article: articleScore(h), name: nameScore(h), amount: amountScore(h), date: validFromScore(h) };
      for (const k of Object.keys(scores) as Array<keyof typeof scores>)
        if (scores[k] > best[k][0]!) best[k] = [scores[k], c];
    });
    const header = {
      index: r,
      article: best.article[1]!,
      name: best.name[1]!,
      amount: best.amount[1]!,
      date: best.date[1]!,
    };
    if (header.name >= 0 && header.amount >= 0) return header;
    const missing = [
      ...(header.name < 0 ? [OWN_COST_COLUMNS[0]] : []),
      ...(header.amount < 0 ? [OWN_COST_COLUMNS[1]] : []),
    ];
    if (missing.length < bestMissing.length) bestMissing = missing;
  }
  return { missing: bestMissing };
}

/** The columns to decode once the header is among `rows` (readImportTable). */
export function ownCostColumns(rows: readonly string[][]): number[] | null {
  const h = findHeader(rows);
  if ('missing' in h) return null;
  return [h.article, h.name, h.amount, h.date].filter((c) => c >= 0);
}

/**
 * An amount (roubles per unit, decimal comma or dot, spaces between digit groups, «₽»/«руб») → kopecks,
 * or the error in Russian. More than 2 decimals are refused, as PUT refuses them.
 */
export function parseOwnCostAmount(text: string): number | string {
  const t = text.replace(/₽|руб\.?|р\.$/gi, '').trim();
  if (t === '') return 'Сумма не указана';
  const v = scanScaled(t, 2);
  if (v !== v) return `Сумма «${text.slice(0, 40)}» не число`;
  if (!isWholeKopecks(scanScaled(t, 8) / 1e8)) return `Сумма «${text.slice(0, 40)}»: больше 2 знаков после запятой`;
  if (v < 0) return 'Сумма не может быть отрицательной';
  if (v > MAX_OWN_COST_ROUBLES * 100) return 'Сумма слишком велика';
  return v;
}

/** Rows of strings → good rows and per-row errors. */
export function rowsToOwnCosts(rows: readonly string[][]): OwnCostFile {
  const header = findHeader(rows);
  if ('missing' in header)
    throw unprocessable('own_cost_columns_missing', `В файле нет столбцов: ${header.missing.join(', ')}`, {
      missing: header.missing,
    });
  const out: OwnCostFile = { rows: [], errors: [] };
  for (let r = header.index + 1; r < rows.length; r++) {
    const cells = rows[r]!;
    if (cells.every((c) => c.trim() === '')) continue;
    const row = r + 1;
    const article = header.article >= 0 ? (cells[header.article] ?? '').trim() : '';
    const name = (cells[header.name] ?? '').trim();
    const amount = parseOwnCostAmount(cells[header.amount] ?? '');
    const validFrom = header.date >= 0 ? parseValidFrom(cells[header.date] ?? '') : undefined;
    if (article.length > MAX_ARTICLE_LENGTH)
      out.errors.push({ row, message: `Артикул длиннее ${MAX_ARTICLE_LENGTH} символов` });
    else if (name === '') out.errors.push({ row, message: 'Статья расхода не указана' });
    else if (name.length > MAX_OWN_COST_NAME_LENGTH)
      out.errors.push({ row, message: `Статья расхода длиннее ${MAX_OWN_COST_NAME_LENGTH} символов` });
    else if (typeof amount === 'string') out.errors.push({ row, message: amount });
    else if (typeof validFrom === 'object') out.errors.push({ row, message: validFrom.error });
    else
      out.rows.push({
        row,
        article: article === '' ? null : article,
        name,
        amount,
        ...(validFrom ? { validFrom } : {}),
      });
    if (out.rows.length + out.errors.length > MAX_IMPORT_ROWS)
      throw unprocessable('too_many_rows', `В файле больше ${MAX_IMPORT_ROWS} строк`, { max: MAX_IMPORT_ROWS });
  }
  return out;
}

/** Reads an own-costs file: see the module comment. */
export async function readOwnCostFile(buf: Buffer): Promise<OwnCostFile> {
  return rowsToOwnCosts(await readImportTable(buf, ownCostColumns));
}
