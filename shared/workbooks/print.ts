/**
 * How the exported workbooks print: A4 landscape, narrow margins, the header row repeated on every printed
 * page (the same row is frozen on screen by each sheet's view).
 *
 * A wide sheet (the report's articles, the analytics) prints at a fixed scale — 11 pt Calibri at 80 %, 8.8 pt,
 * never shrunk to one page across — its first columns (the article) repeated on every page, pages across first:
 * page 1 holds the article and the main figures, the next pages the rest of the columns of the same rows.
 * The P&L's statement, a dozen month columns at most, is fitted to one page across instead (fitToWidthSetup).
 */
import type ExcelJS from 'exceljs';

const MARGINS = { left: 0.4, right: 0.4, top: 0.5, bottom: 0.5, header: 0.3, footer: 0.3 };

/**
 * Print scale of the wide sheets, %: the default 11 pt font prints at 8.8 pt (8 pt is the least readable),
 * so the article and the seven main figures of the report fit one A4 landscape page across.
 */
export const PRINT_SCALE = 80;

/**
 * Page setup of a sheet whose header is row `headerRow` (1-based; no row repeated when undefined) and whose
 * `titleColumns` (e.g. 'A:A') are repeated on every page across.
 */
export function printSetup(headerRow?: number, titleColumns?: string): Partial<ExcelJS.PageSetup> {
  return {
    paperSize: 9, // A4
    orientation: 'landscape',
    fitToPage: false,
    scale: PRINT_SCALE,
    pageOrder: 'overThenDown',
    margins: MARGINS,
    ...(headerRow ? { printTitlesRow: `${headerRow}:${headerRow}` } : {}),
    ...(titleColumns ? { printTitlesColumn: titleColumns } : {}),
  };
}

/** One page wide, as many down as it takes (the P&L). */
export function fitToWidthSetup(headerRow?: number): Partial<ExcelJS.PageSetup> {
  return {
    paperSize: 9,
    orientation: 'landscape',
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0,
    margins: MARGINS,
    ...(headerRow ? { printTitlesRow: `${headerRow}:${headerRow}` } : {}),
  };
}

/** A table's header row: bold, wrapped, on a light fill with a line below (the analytics and cash flow sheets). */
export function styleHeaderRow(row: ExcelJS.Row): void {
  row.font = { bold: true };
  row.alignment = { vertical: 'middle', wrapText: true };
  row.eachCell((cell) => {
    cell.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EEF7' } };
    cell.border = { bottom: { style: 'thin' } };
  });
}
