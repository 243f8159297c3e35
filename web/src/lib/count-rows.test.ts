// The browser's row count against the server's (shared/engine countRows) on the same bytes: the real
// 2022 WB week, generated 2026 weeks as .xlsx in WB's and Excel's shapes (x:-prefixed tags too) and the
// portal .zip holding one, and .xls (BIFF8); what it cannot count (a zip with two workbooks, a broken file) is
// null, left to the server.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateReport, type GenerateOptions } from '../../../scripts/fixtures/generate';
import { countRows } from '../../../shared/engine';
import { countRowsInBrowser, SheetRowCounter, type NamedBlob } from './count-rows';

const named = (bytes: Buffer, name: string): NamedBlob => Object.assign(new Blob([new Uint8Array(bytes)]), { name });

async function serverRows(bytes: Buffer, filename: string): Promise<number> {
  return (await countRows({ buffer: bytes, filename })).rows;
}

describe('countRowsInBrowser', () => {
  it('counts the real 2022 week as the server does', async () => {
    const bytes = readFileSync(path.join(__dirname, '../../../fixtures/wb-detail-2022-49col.xlsx'));
    const counted = await countRowsInBrowser(named(bytes, 'wb-detail-2022-49col.xlsx'));
    expect(counted).toEqual({ rows: await serverRows(bytes, 'wb-detail-2022-49col.xlsx'), format: 'xlsx' });
    expect(counted!.rows).toBeGreaterThan(0);
  });

  it.each<[string, Partial<GenerateOptions>]>([
    ['WB-shaped xlsx', { format: 'xlsx', rows: 1234, seed: 3 }],
    ['Excel re-saved xlsx', { format: 'xlsx', rows: 321, seed: 4, wbStyle: false }],
    ['xlsx with x:-prefixed tags', { format: 'xlsx', rows: 77, seed: 5, wbStyle: false, prefixedTags: true }],
    ['the portal zip holding the xlsx', { format: 'zip', rows: 2500, seed: 6 }],
    ['xls (BIFF8)', { format: 'xls', rows: 1500, seed: 10 }],
  ])(
    '%s: the same rows as the server',
    async (_, opts) => {
      const g = generateReport({ layout: '2026', rows: 10, format: 'xlsx', ...opts });
      const counted = await countRowsInBrowser(named(g.file, g.filename));
      expect(counted?.rows).toBe(await serverRows(g.file, g.filename));
      expect(counted?.rows).toBe(opts.rows);
      expect(counted?.format).toBe(opts.format);
      // Generating and reading a file in jsdom takes seconds, a minute on a machine busy with other runs.
    },
    120_000,
  );

  it('leaves to the server what it cannot count: a zip with two workbooks, a broken file', async () => {
    const extras = generateReport({ layout: '2026', rows: 20, format: 'zip', seed: 8, zipExtras: true });
    expect(await countRowsInBrowser(named(extras.file, extras.filename))).toBeNull();
    expect(await countRowsInBrowser(named(Buffer.from('not a zip at all'), 'week.xlsx'))).toBeNull();
    expect(await countRowsInBrowser(named(Buffer.alloc(4096, 7), 'week.xls'))).toBeNull();
  });
});

describe('SheetRowCounter', () => {
  it('counts rows with content across chunk boundaries, the first being the header', () => {
    const xml =
      '<worksheet><sheetData><row r="1"><c t="inlineStr"><is><t>Артикул</t></is></c></row>' +
      '<row r="2"/><row r="3"><c><v> </v></c></row>' +
      '<row r="4"><c t="s"><v>0</v></c></row><row r="5"><c><v>12.5</v></c><c><v>3</v></c></row>' +
      '</sheetData></worksheet>';
    for (const size of [1, 3, 7, 64, xml.length]) {
      const c = new SheetRowCounter();
      for (let i = 0; i < xml.length; i += size) c.push(xml.slice(i, i + size));
      expect(c.rows).toBe(2);
    }
  });
});
