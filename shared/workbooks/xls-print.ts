/**
 * Print settings for the BIFF8 .xls SheetJS writes, which has none of its own (its writer emits no
 * SETUP, WSBOOL or PANE record and no defined names): the first sheet is set to A4 landscape, fit to
 * one page wide, with the rows down to the header frozen on screen. The header row cannot be repeated
 * on printed pages: that needs a «Print_Titles» name, whose formula refers to the sheet through
 * EXTERNSHEET records SheetJS does not write. Records are inserted into the sheet's own substream only,
 * so the workbook globals (and the sheet's BOUNDSHEET offset) stay as written.
 */
import * as XLSX from '@e965/xlsx';

const BOF = 0x0809;
const EOF = 0x000a;
const GUTS = 0x0080;
const WSBOOL = 0x0081;
const VCENTER = 0x0084;
const SETUP = 0x00a1;
const WINDOW2 = 0x023e;
const PANE = 0x0041;

export interface XlsRecord {
  type: number;
  data: Buffer;
}

/** The records of a BIFF stream in order. */
export function readRecords(stream: Buffer): XlsRecord[] {
  const out: XlsRecord[] = [];
  for (let p = 0; p + 4 <= stream.length;) {
    const type = stream.readUInt16LE(p);
    const len = stream.readUInt16LE(p + 2);
    out.push({ type, data: stream.subarray(p + 4, p + 4 + len) });
    p += 4 + len;
  }
  return out;
}

function writeRecords(records: readonly XlsRecord[]): Buffer {
  return Buffer.concat(
    records.flatMap((r) => {
      const head = Buffer.alloc(4);
      head.writeUInt16LE(r.type, 0);
      head.writeUInt16LE(r.data.length, 2);
      return [head, r.data];
    }),
  );
}

/** SETUP ([MS-XLS] 2.4.257): A4, 100 %, fit 1 page wide × any down, landscape (fPortrait 0, fNoPls 0). */
function setupRecord(): XlsRecord {
  const d = Buffer.alloc(34);
  d.writeUInt16LE(9, 0); // iPaperSize: A4
  d.writeUInt16LE(100, 2); // iScale
  d.writeUInt16LE(1, 4); // iPageStart
  d.writeUInt16LE(1, 6); // iFitWidth
  d.writeUInt16LE(0, 8); // iFitHeight: as many pages as needed
  d.writeUInt16LE(0, 10); // flags: landscape, settings valid
  d.writeUInt16LE(600, 12); // iRes
  d.writeUInt16LE(600, 14); // iVRes
  d.writeDoubleLE(0.3, 16); // header margin, inches
  d.writeDoubleLE(0.3, 24); // footer margin
  d.writeUInt16LE(1, 32); // iCopies
  return { type: SETUP, data: d };
}

/** WSBOOL (2.4.351): automatic page breaks, outline summaries below/right, fFitToPage. */
const wsBoolRecord = (): XlsRecord => ({ type: WSBOOL, data: Buffer.from([0xc1, 0x01]) });

/** PANE (2.4.189): rows 1..frozenRows frozen (no split of columns), the bottom pane active. */
function paneRecord(frozenRows: number): XlsRecord {
  const d = Buffer.alloc(10);
  d.writeUInt16LE(0, 0); // x: no column split
  d.writeUInt16LE(frozenRows, 2); // y: rows above the split
  d.writeUInt16LE(frozenRows, 4); // rwTop of the bottom pane
  d.writeUInt16LE(0, 6); // colLeft
  d.writeUInt8(2, 8); // pnnAcct: bottom-left pane active
  return { type: PANE, data: d };
}

/**
 * The .xls with its first sheet printing landscape, one page wide, and rows 1..`frozenRows` frozen.
 * Throws when the stream is not laid out as SheetJS writes it (then nothing is changed silently).
 */
export function printableXls(xls: Buffer, frozenRows: number): Buffer {
  const cfb = XLSX.CFB.read(xls, { type: 'buffer' });
  const entry = XLSX.CFB.find(cfb, 'Workbook') as { content: Uint8Array; size: number } | null;
  if (!entry) throw new Error('xls: no Workbook stream');
  const records = readRecords(Buffer.from(entry.content));
  // The globals end with the first EOF; the first sheet's substream follows.
  const globalsEnd = records.findIndex((r) => r.type === EOF);
  const sheetStart = globalsEnd + 1;
  if (globalsEnd < 0 || records[sheetStart]?.type !== BOF) throw new Error('xls: no sheet after the globals');
  const sheetEnd = records.findIndex((r, i) => i > sheetStart && r.type === EOF);
  const sheet = records.slice(sheetStart, sheetEnd + 1);
  if (sheet.some((r) => r.type === SETUP || r.type === WSBOOL || r.type === PANE))
    throw new Error('xls: the sheet has print settings already');
  const out: XlsRecord[] = [];
  for (const r of sheet) {
    if (r.type === WINDOW2) {
      const data = Buffer.from(r.data);
      data.writeUInt16LE(data.readUInt16LE(0) | 0x0008 | 0x0100, 0); // fFrozen, fFrozenNoSplit
      out.push({ type: WINDOW2, data });
      if (frozenRows > 0) out.push(paneRecord(frozenRows));
      continue;
    }
    out.push(r);
    if (r.type === GUTS) out.push(wsBoolRecord());
    if (r.type === VCENTER) out.push(setupRecord());
  }
  const types = new Set(out.map((r) => r.type));
  if (!types.has(WSBOOL) || !types.has(SETUP) || !types.has(WINDOW2))
    throw new Error('xls: the sheet is not laid out as expected');
  const stream = Buffer.concat([
    writeRecords(records.slice(0, sheetStart)),
    writeRecords(out),
    writeRecords(records.slice(sheetEnd + 1)),
  ]);
  entry.content = stream;
  entry.size = stream.length;
  return Buffer.from(XLSX.CFB.write(cfb, { type: 'buffer' }) as Uint8Array);
}
