/**
 * Reading a small table file a seller fills in by hand (period costs, purchases): .xlsx or .csv told
 * apart by content, into rows of cell text (row 0 = the file's first row). The xlsx is read with the
 * report reader's streaming parts under tight limits; a csv's delimiter (; tab ,) is guessed from its
 * first line. Plus the amount cell every such file has.
 */
import { payloadTooLarge, unprocessable, unsupportedMediaType } from '../errors';
import { ReportError } from '../engine/errors';
import { isWholeKopecks, scanScaled } from '../engine/money';
import { resolveLimits } from '../engine/read/limits';
import { scanXlsxCells } from '../engine/read/cell-rows';
import { ZipArchive } from '../engine/read/zip';
import { decodeText, splitCsv } from '../catalog/import-file';

/** Rows searched for a header line. */
export const HEADER_SEARCH_ROWS = 30;

export interface TableFileLimits {
  maxBytes: number;
  /** Data rows allowed (the header search rows come on top). */
  maxRows: number;
  /** The error for a file with more rows than that. */
  tooMany: () => Error;
}

async function xlsxRows(buf: Buffer, limits: TableFileLimits): Promise<string[][]> {
  const LIMITS = resolveLimits({
    maxCompressedBytes: limits.maxBytes,
    maxInflatedBytes: 16 * 1024 * 1024,
    maxEntries: 200,
    maxRows: limits.maxRows + HEADER_SEARCH_ROWS,
    maxCellLength: 1024,
  });
  const rows: string[][] = [];
  try {
    const archive = await ZipArchive.open({ buffer: buf }, LIMITS, { used: 0, max: LIMITS.maxInflatedBytes });
    try {
      await scanXlsxCells(archive, LIMITS, 64, (rowNumber, cells) => {
        while (rows.length < rowNumber - 1) rows.push([]);
        if (rows.length >= rowNumber) return;
        const row: string[] = [];
        for (const [c, v] of cells) row[c] = v;
        rows.push(Array.from(row, (v) => v ?? ''));
      });
    } finally {
      archive.close();
    }
  } catch (e) {
    if (!(e instanceof ReportError)) throw e;
    if (e.code === 'too_many_rows') throw limits.tooMany();
    throw unprocessable('corrupt_file', 'Файл повреждён и не читается');
  }
  return rows;
}

const isZip = (b: Buffer) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** The file's rows of cell text: 413 over maxBytes, 422 empty_file / corrupt_file, 415 neither xlsx nor text. */
export async function readTableFile(buf: Buffer, limits: TableFileLimits): Promise<string[][]> {
  if (buf.length > limits.maxBytes)
    throw payloadTooLarge(`Файл больше ${Math.round(limits.maxBytes / 1024 / 1024)} МБ`, {
      max_bytes: limits.maxBytes,
    });
  if (buf.length === 0) throw unprocessable('empty_file', 'Файл пуст');
  if (isZip(buf)) return xlsxRows(buf, limits);
  if (!buf.subarray(0, 4096).includes(0)) {
    const text = decodeText(buf);
    const first = text.split(/\r?\n/, 1)[0] ?? '';
    const delimiter = [';', '\t', ','].sort((a, b) => first.split(b).length - first.split(a).length)[0]!;
    return splitCsv(text, delimiter);
  }
  throw unsupportedMediaType('Нужен файл .xlsx или .csv');
}

/** An amount cell («12 345,67 ₽») → roubles, or a Russian error: more than zero, at most `maxRoubles`, kopecks. */
export function parseAmountCell(text: string, maxRoubles: number): number | { error: string } {
  const t = text.replace(/₽|руб\.?|р\.$/gi, '').trim();
  if (t === '') return { error: 'Сумма не указана' };
  const kop = scanScaled(t, 2);
  if (kop !== kop) return { error: `Сумма «${t.slice(0, 40)}» не число` };
  if (!isWholeKopecks(scanScaled(t, 8) / 1e8))
    return { error: `Сумма «${t.slice(0, 40)}»: больше 2 знаков после запятой` };
  if (kop <= 0) return { error: 'Сумма должна быть больше нуля' };
  if (kop > maxRoubles * 100) return { error: 'Сумма слишком велика' };
  return kop / 100;
}
