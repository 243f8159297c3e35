/**
 * The catalog-import bomb of the attack run (issue 12): an .xlsx of a few hundred KB whose sheet
 * unpacks to ~180 MB (120 numeric columns × 100,000 rows, every row alike, so deflate packs it ~400:1).
 * Built here with Node's zlib (streamed, so building it holds only the packed bytes) and a minimal
 * zip container with honest sizes in its headers, as Excel would write them.
 */
import zlib from 'node:zlib';

export interface BombOptions {
  columns?: number;
  rows?: number;
  /** Header text of the first row (the import's columns, so only the size can refuse it). */
  header?: string[];
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>';
const WORKBOOK =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>';
const WORKBOOK_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>';

interface Entry {
  name: string;
  crc: number;
  csize: number;
  usize: number;
  data: Buffer;
}

async function deflated(name: string, pieces: Iterable<Buffer>): Promise<Entry> {
  const z = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise<void>((resolve, reject) => {
    z.on('end', resolve);
    z.on('error', reject);
  });
  let crc = 0;
  let usize = 0;
  for (const piece of pieces) {
    crc = zlib.crc32(piece, crc);
    usize += piece.length;
    if (!z.write(piece)) await new Promise((r) => z.once('drain', r));
  }
  z.end();
  await ended;
  const data = Buffer.concat(out);
  return { name, crc, csize: data.length, usize, data };
}

function zip(entries: Entry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(0x0800, 6);
    h.writeUInt16LE(8, 8);
    h.writeUInt32LE(e.crc >>> 0, 14);
    h.writeUInt32LE(e.csize, 18);
    h.writeUInt32LE(e.usize, 22);
    h.writeUInt16LE(name.length, 26);
    parts.push(h, name, e.data);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(e.crc >>> 0, 16);
    c.writeUInt32LE(e.csize, 20);
    c.writeUInt32LE(e.usize, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

/** The bomb's bytes and its sheet's inflated size. */
export async function importBomb(options: BombOptions = {}): Promise<{ file: Buffer; sheetBytes: number }> {
  const columns = options.columns ?? 120;
  const rows = options.rows ?? 100_000;
  const header = options.header ?? ['Артикул', 'Себестоимость'];
  function* sheet(): Generator<Buffer> {
    yield Buffer.from(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
        `<row>${header.map((h) => `<c t="inlineStr"><is><t>${h}</t></is></c>`).join('')}</row>`,
    );
    const row = `<row>${Array.from({ length: columns }, (_, c) => `<c><v>${1000 + c}</v></c>`).join('')}</row>`;
    const block = Buffer.from(row.repeat(1000));
    for (let r = 0; r < rows; r += 1000) yield r + 1000 <= rows ? block : Buffer.from(row.repeat(rows - r));
    yield Buffer.from('</sheetData></worksheet>');
  }
  const small = (name: string, text: string) => deflated(name, [Buffer.from(text)]);
  const sheetEntry = await deflated('xl/worksheets/sheet1.xml', sheet());
  const file = zip([
    await small('[Content_Types].xml', CONTENT_TYPES),
    await small('_rels/.rels', ROOT_RELS),
    await small('xl/workbook.xml', WORKBOOK),
    await small('xl/_rels/workbook.xml.rels', WORKBOOK_RELS),
    sheetEntry,
  ]);
  return { file, sheetBytes: sheetEntry.usize };
}
