import { readFileSync } from 'node:fs';
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import { containsDays, createFingerprinter, sharedDays } from './fingerprint';
import { fingerprintReport, readReport } from './read-report';
import { METRIC_KEYS } from './row-sink';

const REAL = 'fixtures/wb-detail-2022-49col.xlsx';

function cellsOf(v: Partial<Record<(typeof METRIC_KEYS)[number], string>>): Array<string | undefined> {
  return METRIC_KEYS.map((k) => v[k]);
}

function fp(rows: Array<Array<string | undefined>>) {
  const f = createFingerprinter();
  f.begin(new Set(METRIC_KEYS));
  for (const r of rows) f.row(r);
  return f.finish();
}

describe('content fingerprint', () => {
  const r1 = cellsOf({ sa_name: 'A-1', sale_dt: '2026-05-18', quantity: '1', ppvz_for_pay: '1234.5' });
  const r2 = cellsOf({ sa_name: 'B-2', sale_dt: '2026-05-19', quantity: '2', ppvz_for_pay: '10' });

  it('does not depend on the order of rows, and counts a repeated row twice', () => {
    expect(fp([r1, r2]).value).toBe(fp([r2, r1]).value);
    expect(fp([r1, r1, r2]).value).not.toBe(fp([r1, r2]).value);
    expect(fp([r1, r2]).value).toMatch(/^r1:2:[0-9a-f]{16}$/);
  });

  it('reads numbers and dates by value, not by their text', () => {
    const same = cellsOf({ sa_name: ' A-1 ', sale_dt: '46160', quantity: '1.0', ppvz_for_pay: '1,2345E+3' });
    expect(fp([same]).value).toBe(fp([r1]).value);
    // An empty money cell is 0.
    expect(fp([cellsOf({ sa_name: 'A-1', penalty: '0' })]).value).toBe(fp([cellsOf({ sa_name: 'A-1' })]).value);
    // One kopeck differs.
    const other = cellsOf({ sa_name: 'A-1', sale_dt: '2026-05-18', quantity: '1', ppvz_for_pay: '1234.51' });
    expect(fp([other]).value).not.toBe(fp([r1]).value);
  });

  it('keeps the sums per sale day: a day inside a week is contained, not equal', () => {
    const week = fp([r1, r2]);
    const day = fp([r1]);
    expect(week.days).toEqual({ '2026-05-18': expect.any(String), '2026-05-19': expect.any(String) });
    expect(sharedDays(week.days, day.days)).toEqual(['2026-05-18']);
    expect(containsDays(week.days, day.days)).toBe(true);
    expect(containsDays(day.days, week.days)).toBe(false);
    expect(sharedDays(fp([r2]).days, day.days)).toEqual([]);
  });

  it('is one for the real week as .xlsx, .xls, .zip and under another name', async () => {
    const xlsx = readFileSync(REAL);
    const wb = XLSX.read(xlsx, { type: 'buffer' });
    const xls = XLSX.write(wb, { type: 'buffer', bookType: 'xls' }) as Buffer;
    const resaved = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', bookSST: true }) as Buffer;
    const a = await readReport({ buffer: xlsx, filename: 'wb-detail-2022-49col.xlsx' });
    const b = await fingerprintReport({ buffer: xls, filename: 'week.xls' });
    const c = await fingerprintReport({ buffer: resaved, filename: 'copy (1).xlsx' });
    expect(a.content?.value).toMatch(/^r1:/);
    expect(b.content.value).toBe(a.content?.value);
    expect(c.content.value).toBe(a.content?.value);
    expect(b.content.days).toEqual(a.content?.days);
  });

  it('is one for a generated 2026 week as .xlsx (WB and Excel shapes), .xls and .zip', async () => {
    const base = { rows: 400, layout: '2026' as const, seed: 7, week: 3 };
    const values = await Promise.all(
      [
        generateReport({ ...base, format: 'xlsx' }),
        generateReport({ ...base, format: 'xlsx', wbStyle: false }),
        generateReport({ ...base, format: 'xls' }),
        generateReport({ ...base, format: 'zip', zipExtras: true }),
      ].map(async (g) => (await fingerprintReport({ buffer: g.file, filename: g.filename })).content.value),
    );
    expect(new Set(values).size).toBe(1);
    const next = generateReport({ ...base, format: 'xlsx', week: 4 });
    expect((await fingerprintReport({ buffer: next.file, filename: next.filename })).content.value).not.toBe(values[0]);
  });

  it('keeps WB’s smallest row ids («№»), not hashed: the same rows with an extra one share them', () => {
    const n = (no: string, r: Array<string | undefined>) => {
      const c = [...r];
      c[METRIC_KEYS.indexOf('rrd_no')] = no;
      return c;
    };
    const week = fp([n('3100000007', r1), n('3100000005', r2), n('3100000009', r1)]);
    expect(week.row_ids).toEqual(['3100000005', '3100000007', '3100000009']);
    // Renumbered rows keep their fingerprint: the number is the row's id, not its content.
    expect(fp([n('7', r1), n('5', r2), n('9', r1)]).value).toBe(week.value);
    // WB's copy with one more row (a deduction) than the file: another fingerprint, the same row ids held.
    const extra = cellsOf({ supplier_oper_name: 'Удержание', deduction: '1234', rrd_no: '3100000004' });
    const api = fp([n('3100000007', r1), n('3100000005', r2), n('3100000009', r1), extra]);
    expect(api.value).not.toBe(week.value);
    expect(api.row_ids).toEqual(['3100000004', '3100000005', '3100000007']);
    expect(api.row_ids!.filter((id) => week.row_ids!.includes(id))).toEqual(['3100000005', '3100000007']);
    // Rows without a number: none kept.
    expect(fp([r1, r2]).row_ids).toEqual([]);
  });

  it('a generated week as .xlsx and .xls has the same row ids; another week has others', async () => {
    const base = { rows: 200, layout: '2026' as const, seed: 7, week: 3 };
    const [a, b, c] = await Promise.all(
      [
        generateReport({ ...base, format: 'xlsx' }),
        generateReport({ ...base, format: 'xls' }),
        generateReport({ ...base, format: 'xlsx', week: 4 }),
      ].map(async (g) => (await fingerprintReport({ buffer: g.file, filename: g.filename })).content.row_ids),
    );
    expect(a).toHaveLength(3);
    expect(b).toEqual(a);
    expect(c!.some((id) => a!.includes(id))).toBe(false);
  });
});
