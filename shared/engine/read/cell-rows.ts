/**
 * Any columns of a sheet, row by row, as text (small tables: the catalog import): CellRowScanner on
 * the tag-by-tag sheet reading, and scanXlsxCells, which runs it over an .xlsx package.
 */
import type { ReadLimits } from './limits';
import { SheetTagScanner, T_NUMBER, T_SHARED, rowNumber } from './sheet-tags';
import { readSharedStrings, type SharedStrings } from './shared-strings';
import { locateParts, scanSheet } from './xlsx-parts';
import { RAW_BYTES_PER_CHAR } from './xml-scanner';
import type { ZipArchive } from './zip';

/** What `scanXlsxCells` lets the row callback do. */
interface CellScanControl {
  /** Read only these columns (0-based) from the next row on; cells further right are skipped unread. */
  select(columns: readonly number[]): void;
  /** Stop reading the sheet. */
  stop(): void;
}

/** A row's number (1-based, the `r` of `<row>`) and its non-empty cells by column (0-based). */
export type CellRowCallback = (rowNumber: number, cells: ReadonlyMap<number, string>, control: CellScanControl) => void;

/**
 * The sheet's cells as text, row by row, for tables whose header is found by the caller (not the report
 * header mapping). Until `select` is called every column below `maxColumns` is read; after it only the
 * selected ones are decoded and the rest of each row is jumped over, so a sheet of 120 columns costs
 * little more than one of 2. Numbers come as JavaScript writes them ("1E-3" → "0.001"), shared strings
 * as their text. Memory: one row's cells.
 */
class CellRowScanner extends SheetTagScanner implements CellScanControl {
  private wanted: Uint8Array | null = null;
  private lastWanted: number;
  private cells = new Map<number, string>();
  private rowNumber = 0;

  constructor(
    sst: SharedStrings | null,
    maxCellLength: number,
    private readonly maxColumns: number,
    private readonly onRow: CellRowCallback,
  ) {
    super(sst, maxCellLength, maxCellLength * RAW_BYTES_PER_CHAR);
    this.lastWanted = maxColumns - 1;
  }

  select(columns: readonly number[]): void {
    const max = Math.max(-1, ...columns);
    this.wanted = new Uint8Array(max + 1);
    for (const c of columns) if (c >= 0) this.wanted[c] = 1;
    this.lastWanted = max;
  }

  stop(): void {
    this.done = true;
  }

  protected startRow(buf: Buffer, k: number, stop: number, selfClosing: boolean): void {
    const r = rowNumber(buf, k, stop);
    this.rowNumber = r > 0 ? r : this.rowNumber + 1;
    this.inRow = !selfClosing;
    this.col = -1;
  }

  protected startCell(col: number): boolean {
    const wanted = this.wanted === null ? col < this.maxColumns : col < this.wanted.length && this.wanted[col] === 1;
    if (!wanted) this.skipRest(col < this.lastWanted);
    return wanted;
  }

  protected endCell(): void {
    if (this.closeCell()) this.takeCell();
    if (this.col >= this.lastWanted) this.skipRest(false);
  }

  private takeCell(): void {
    let value: string | undefined;
    if (this.type === T_SHARED) {
      const index = this.textIndex();
      value = this.sharedStrings(index).get(index);
    } else {
      value = this.text();
      if (this.type === T_NUMBER) {
        const n = Number(value);
        if (value.trim() !== '' && Number.isFinite(n)) value = String(n);
      }
    }
    if (value !== undefined && value !== '') this.cells.set(this.col, value);
  }

  protected endRow(): void {
    if (!this.inRow) return;
    this.inRow = false;
    this.inCell = false;
    if (this.cells.size === 0) return;
    const cells = this.cells;
    this.cells = new Map();
    this.onRow(this.rowNumber, cells, this);
  }
}

/**
 * Reads the first sheet of an .xlsx package cell by cell into `onRow` (see CellRowScanner), under the
 * same caps as reports: the archive's inflate budget, the cell length, and the shared strings read
 * through the same byte scanner.
 */
export async function scanXlsxCells(
  zip: ZipArchive,
  limits: ReadLimits,
  maxColumns: number,
  onRow: CellRowCallback,
): Promise<void> {
  const parts = await locateParts(zip);
  const sst = parts.sharedStrings ? await readSharedStrings(zip, parts.sharedStrings, limits, () => true, {}) : null;
  const scanner = new CellRowScanner(sst, limits.maxCellLength, maxColumns, onRow);
  await scanSheet(zip, parts.sheet, scanner);
}
