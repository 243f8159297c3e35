import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { emulatedWeek } from '../../../../scripts/local/wb/weeks';
import { readJsonArray } from './json-rows';
import { createPageWriter, pageBody, readStoredRows, storedRows } from './page-body';
import { checkDetailedRow } from './schemas';

const week = emulatedWeek({ index: 0, rows: 300, seed: 3 });

/** A page as WB sends it (money as numbers, nulls, a field we do not know), in chunks of `size` bytes. */
function wbText(rows: readonly object[]): string {
  return JSON.stringify(rows.map((r, i) => ({ ...r, retailAmount: i % 2 ? 12.5 : '12.50', kiz: null, newField: 1 })));
}
async function* chunked(text: string, size: number) {
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function written(text: string, size: number): Promise<Buffer> {
  const writer = createPageWriter();
  const r = await readJsonArray(chunked(text, size), (_v, raw) => writer.add(raw));
  expect(r.kind).toBe('ok');
  return writer.finish();
}

describe('stored pages', () => {
  it('keep the rows as WB sent them and read back normalized, the check as the client does it', async () => {
    const text = wbText(week.rows);
    const body = await written(text, 1000);
    const expected = (JSON.parse(text) as unknown[]).map((v, i) => checkDetailedRow(v, i));
    expect(await storedRows(body)).toEqual(expected);
    expect(expected[1]).toMatchObject({ retailAmount: '12.5' });
    expect(expected[1]).not.toHaveProperty('kiz');
    expect(expected[1]).not.toHaveProperty('newField');
  });

  it('pages joined one after another read as one report, in order', async () => {
    const a = await written(wbText(week.rows.slice(0, 100)), 777);
    const b = await written(wbText(week.rows.slice(100)), 4096);
    const rows = await storedRows(Buffer.concat([a, b, pageBody([])]));
    expect(rows.map((r) => r.rrdId)).toEqual(week.rows.map((r) => r.rrdId));
  });

  it('imports stored as JSON lines (the older form) read the same', async () => {
    const lines = week.rows.map((r) => `${JSON.stringify(r)}\n`).join('');
    const older = Buffer.concat([
      gzipSync(Buffer.from(lines.slice(0, 5000))),
      gzipSync(Buffer.from(lines.slice(5000))),
    ]);
    expect(await storedRows(older)).toEqual(await storedRows(pageBody(week.rows)));
    expect(await storedRows(older)).toHaveLength(week.rows.length);
  });

  it('a damaged stored row throws instead of building a wrong report', async () => {
    const bad = pageBody([{ rrdId: 1 }, { rrdId: 2, forPay: 'много' } as never]);
    await expect(readStoredRows(bad, () => undefined)).rejects.toThrow(/stored WB row 1\.forPay/);
    await expect(storedRows(gzipSync(Buffer.from('[{"rrdId":1},')))).rejects.toThrow(/stored WB rows/);
  });
});

describe('stored pages read for a build', () => {
  it('with only the fields the engine reads, each row is those fields of the whole check', async () => {
    const { API_ROW_FIELDS } = await import('./row-map');
    const body = pageBody(week.rows);
    const some: Array<Record<string, unknown>> = [];
    await readStoredRows(body, (rows) => some.push(...(rows as Array<Record<string, unknown>>)), {
      fields: API_ROW_FIELDS,
    });
    const whole = (await storedRows(body)) as Array<Record<string, unknown>>;
    expect(some).toEqual(
      whole.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => API_ROW_FIELDS.includes(k as never)))),
    );
    expect(API_ROW_FIELDS.length).toBeLessThan(Object.keys(whole[0]!).length);
  });
});
