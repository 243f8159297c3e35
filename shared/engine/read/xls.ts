import * as XLSX from '@e965/xlsx';
import { ReportError } from '../errors';
import { METRIC_KEYS, type RowSink } from '../row-sink';
import { mapHeaderRow } from './headers';
import type { ReadLimits } from './limits';
import { ValueCheck } from './values';
import { asCorrupt } from './zip';
import type { SheetScanResult } from './xlsx-stream';

/** Empty rows allowed above the header when capping how many rows SheetJS materialises. */
const LEADING_ROWS_ALLOWANCE = 1000;

/** A cell's text as the sink expects it (numbers as decimal text, strings as stored), '' when empty. */
function cellText(cell: XLSX.CellObject | undefined): string {
  if (!cell || cell.v === undefined || cell.v === null) return '';
  switch (cell.t) {
    case 'n':
      return String(cell.v);
    case 's':
      return String(cell.v);
    case 'b':
      return cell.v ? '1' : '0';
    case 'e':
      return cell.w ?? '';
    case 'd':
      return cell.v instanceof Date ? cell.v.toISOString() : String(cell.v);
    default:
      return '';
  }
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}

/**
 * Reads an old .xls (BIFF8) with SheetJS CE 0.20.3 (@e965/xlsx; never the npm `xlsx` 0.18.5):
 * first sheet, same header mapping, empty-row rule and caps as the .xlsx reader.
 */
export function scanXls(buffer: Buffer, sink: RowSink | null, limits: ReadLimits): SheetScanResult {
  let workbook: XLSX.WorkBook;
  try {
    workbook = XLSX.read(buffer, {
      type: 'buffer',
      dense: true,
      cellDates: false,
      raw: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      sheetRows: limits.maxRows + LEADING_ROWS_ALLOWANCE,
    });
  } catch (err) {
    throw asCorrupt(err, 'The .xls file');
  }
  const name = workbook.SheetNames[0];
  const sheet = name === undefined ? undefined : workbook.Sheets[name];
  if (!sheet) throw asCorrupt(new Error('the workbook has no sheet'), 'The .xls file');
  const data: Array<Array<XLSX.CellObject | undefined> | undefined> = sheet['!data'] ?? [];

  const checkLength = (text: string): void => {
    if (text.length > limits.maxCellLength) {
      throw new ReportError(
        'cell_too_long',
        `A cell holds more than ${limits.maxCellLength} characters; such a file is refused.`,
        {
          max_cell_length: limits.maxCellLength,
        },
      );
    }
  };

  let r = 0;
  // Header row = first non-empty row.
  const headers = new Map<number, string>();
  for (; r < data.length && headers.size === 0; r++) {
    const row = data[r];
    if (!row) continue;
    let nonEmpty = false;
    row.forEach((cell, col) => {
      const text = cellText(cell);
      checkLength(text);
      if (text !== '') headers.set(col, text);
      if (!isBlank(text)) nonEmpty = true;
    });
    if (!nonEmpty) headers.clear();
  }
  if (headers.size === 0) return { rows: 0, header: false, columns: null };
  const columns = mapHeaderRow(headers);
  sink?.begin(columns.present);
  const valueCheck = sink === null ? null : new ValueCheck(columns, (col) => headers.get(col) ?? '');

  const wanted: Array<[col: number, index: number]> = [];
  columns.toMetric.forEach((index, col) => {
    if (index >= 0) wanted.push([col, index]);
  });
  const cells = new Array<string | undefined>(METRIC_KEYS.length).fill(undefined);
  let rows = 0;
  for (; r < data.length; r++) {
    const row = data[r];
    if (!row) continue;
    let nonEmpty = false;
    for (const cell of row) {
      const text = cellText(cell);
      checkLength(text);
      if (!isBlank(text)) nonEmpty = true;
    }
    if (!nonEmpty) continue;
    if (++rows > limits.maxRows) {
      throw new ReportError('too_many_rows', `The report has more than ${limits.maxRows} rows.`, {
        max_rows: limits.maxRows,
      });
    }
    if (sink !== null) {
      cells.fill(undefined);
      for (const [col, index] of wanted) {
        const text = cellText(row[col]);
        if (text !== '') cells[index] = text;
      }
      const rowIndex = r;
      valueCheck?.check(cells, () => rowIndex + 1);
      sink.row(cells);
    }
  }
  return { rows, header: true, columns };
}
