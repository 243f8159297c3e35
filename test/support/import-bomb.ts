/**
 * The catalog-import bomb of the attack run (issue 12): an .xlsx of a few hundred KB whose sheet
 * unpacks to ~180 MB (120 numeric columns × 100,000 rows, every row alike, so deflate packs it ~400:1).
 * Written by the fixtures' xlsx writer in its Excel shape (honest sizes in the zip headers), the rows
 * as raw XML without cell references so that they repeat exactly; building it holds only the packed bytes.
 */
import { XlsxWriter } from '../../scripts/fixtures/xlsx-writer';

export interface BombOptions {
  columns?: number;
  rows?: number;
  /** Header text of the first row (the import's columns, so only the size can refuse it). */
  header?: string[];
}

/** The bomb's bytes and its sheet's inflated size. */
export function importBomb(options: BombOptions = {}): { file: Buffer; sheetBytes: number } {
  const columns = options.columns ?? 120;
  const rows = options.rows ?? 100_000;
  const writer = XlsxWriter.toMemory({ style: 'excel', level: 9 });
  writer.addRow(options.header ?? ['Артикул', 'Себестоимость']);
  const row = `<row>${Array.from({ length: columns }, (_, c) => `<c><v>${1000 + c}</v></c>`).join('')}</row>`;
  const block = row.repeat(1000);
  for (let r = 0; r < rows; r += 1000) writer.addRawXml(r + 1000 <= rows ? block : row.repeat(rows - r));
  const file = writer.finishToBuffer();
  return { file, sheetBytes: writer.sheetBytes };
}
