/**
 * How the exported workbooks print: A4 landscape, one page wide (as many pages down as it takes), narrow
 * margins, and the header row repeated on every printed page. The same header row is frozen on screen
 * by each sheet's view.
 */
import type ExcelJS from 'exceljs';

const MARGINS = { left: 0.4, right: 0.4, top: 0.5, bottom: 0.5, header: 0.3, footer: 0.3 };

/** Page setup of a sheet whose header is row `headerRow` (1-based); no row repeated when undefined. */
export function printSetup(headerRow?: number): Partial<ExcelJS.PageSetup> {
  return {
    paperSize: 9, // A4
    orientation: 'landscape',
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0, // as many pages down as needed
    margins: MARGINS,
    ...(headerRow ? { printTitlesRow: `${headerRow}:${headerRow}` } : {}),
  };
}
