/**
 * A number no report holds (1E+20, 1E+309 = Infinity, NaN written as text) in a money cell: the upload
 * answers 422 `value_out_of_range` naming the cell in Russian, the report ends `failed` at once (the
 * file's fault: one attempt, no retry) and the limits are as before (charged, then refunded once).
 */
import * as XLSX from '@e965/xlsx';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sheetXml, xlsxPackage, type CellInput } from '../../scripts/fixtures/xlsx-writer';
import { writeZip } from '../../scripts/fixtures/zip-writer';
import { ddb, tableName } from '../../shared/store/client';
import { getUserById } from '../../shared/store/users.repo';
import { BASIC_HEADER } from '../support/read/basic-header';
import { newUser, presignedUpload, uploadById, uploadMultipart } from '../support/reports';
import { bodyOf } from '../support/test-event';
import { randomBytes } from 'node:crypto';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { CONTENT_CHECK_MAX_BYTES } from '../../shared/reports/upload/duplicates';
import { recoverAbandonedUploads } from '../../shared/reports/worker/recover';
import { undo } from '../../shared/reports/worker/recover-deps';
import { reportDeps } from '../../shared/reports/deps';
import { getReportAnyStatus } from '../../shared/store/reports.repo';

const RETAIL = 'Вайлдберриз реализовал Товар (Пр)';
const PLACEHOLDER = 424242;

/** Header and 3 data rows; the retail amount of the last (cell I4) is `PLACEHOLDER`. */
const ROWS: CellInput[][] = [
  [...BASIC_HEADER],
  [1, 'Бумага', 74672028, 'A-1', 'Продажа', 'Продажа', '2026-01-12', 1, 1609, 1557.71, 0],
  [2, 'Бумага', 74672028, 'A-1', 'Продажа', 'Продажа', '2026-01-13', 1, 1609, 1557.71, 0],
  [3, 'Бумага', 74672028, 'A-1', 'Продажа', 'Продажа', '2026-01-14', 1, PLACEHOLDER, 1557.71, 0],
];

/** An .xlsx whose cell I4 holds `raw` as a number cell, exactly as written. */
function xlsx(raw: string): Buffer {
  const { sheet } = sheetXml(ROWS);
  return xlsxPackage({ sheet: sheet.replace(`>${PLACEHOLDER}<`, `>${raw}<`), dataDescriptors: true });
}

function xls(value: number | string): Buffer {
  const wb = XLSX.utils.book_new();
  const rows = ROWS.map((r) => r.map((c) => (c === PLACEHOLDER ? value : (c ?? undefined))));
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Sheet1');
  return XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Buffer;
}

async function reportsOf(userId: string): Promise<Array<Record<string, unknown>>> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `USER#${userId}` },
      ConsistentRead: true,
    }),
  );
  return (r.Items ?? []).filter((i) => i.type === 'report');
}

describe('a money cell out of range → 422 value_out_of_range, limits as before', () => {
  const cases: Array<{ name: string; file: () => { filename: string; file: Buffer } }> = [
    { name: '1E+20 in an .xlsx', file: () => ({ filename: '№900001_1202289.xlsx', file: xlsx('1E+20') }) },
    { name: '1E+309 in an .xlsx', file: () => ({ filename: '№900002_1202289.xlsx', file: xlsx('1E+309') }) },
    { name: '1e20 in an .xls', file: () => ({ filename: '№900003_1202289.xls', file: xls(1e20) }) },
    {
      name: '1E+309 in an .xlsx inside a zip',
      file: () => ({ filename: '№900004_1202289.zip', file: writeZip([{ name: 'r.xlsx', data: xlsx('1E+309') }]) }),
    },
    { name: 'NaN text in an .xlsx', file: () => ({ filename: '№900005_1202289.xlsx', file: xlsx('NaN') }) },
  ];

  for (const c of cases) {
    it(`${c.name}: multipart and presigned uploads`, async () => {
      const u = await newUser(10_000);
      for (const send of [
        () => uploadMultipart(u.token, c.file()),
        async () => uploadById(u.token, await presignedUpload(u.token, c.file())),
      ]) {
        const r = await send();
        const err = bodyOf<{ error: { code: string; message: string; details: Record<string, unknown> } }>(r).error;
        expect(r.statusCode, JSON.stringify(err)).toBe(422);
        expect(err.code).toBe('value_out_of_range');
        expect(err.message).toBe(`Ячейка I4 (${RETAIL}): число вне допустимого диапазона`);
        expect((await getUserById(u.id))?.limits).toBe(10_000);
      }
      // A file up to 2 MB is read whole before the charge (its content fingerprint, the duplicate check),
      // so the bad cell is found at once: no report is stored and nothing was charged. A bigger file is
      // found by the worker on its first attempt and refunded once (shared/reports/worker/worker.ts).
      expect(await reportsOf(u.id)).toHaveLength(0);
    });
  }
});

describe('a bad cell in a file over 2 MB: charged, then refunded exactly once by the worker', () => {
  // Why not before the charge: count-rows and the upload count a big file in count-only mode (the rows,
  // not their values: no shared strings, no money cell decoded), which is what fits a request's budget
  // for a 300k-row week; decoding every money cell is the worker's full read. Files up to
  // CONTENT_CHECK_MAX_BYTES are read whole before the charge anyway (above), so they are refused at once.
  const big = () => ({
    filename: '№900010_1202289.zip',
    // The report and a stored (uncompressed) 2.5 MB attachment: over the 2 MB of the early check.
    file: writeZip([
      { name: 'r.xlsx', data: xlsx('1E+20') },
      { name: 'attachment.bin', data: randomBytes(2.5 * 1024 * 1024), method: 'store' },
    ]),
  });

  it('the upload answers 422 value_out_of_range from the worker; one charge, one refund, whatever runs after', async () => {
    const u = await newUser(10_000);
    const f = big();
    expect(f.file.length).toBeGreaterThan(CONTENT_CHECK_MAX_BYTES);
    const r = await uploadById(u.token, await presignedUpload(u.token, f));
    const err = bodyOf<{ error: { code: string; message: string } }>(r).error;
    expect(r.statusCode, JSON.stringify(err)).toBe(422);
    expect(err.code).toBe('value_out_of_range');
    expect(err.message).toContain('Ячейка I4');
    expect((await getUserById(u.id))?.limits).toBe(10_000);

    const [report] = await reportsOf(u.id);
    expect(report).toMatchObject({ status: 'failed', refunded_rows: 3 });
    const history = async () =>
      (await listLimitHistory(u.id)).items.filter((i) => i.report_id === report!.id).map((i) => [i.operation, i.rows]);
    expect((await history()).sort()).toEqual([
      ['expense', 3],
      ['refund', 3],
    ]);

    // The recovery sweep, a second failure of the same report (a late worker) and the next upload's
    // sweep refund nothing more: a report id is refunded once.
    await recoverAbandonedUploads(reportDeps, u.id);
    const stored = await getReportAnyStatus(u.id, report!.id as string);
    expect(stored?.status).toBe('failed');
    expect(await undo.failUpload(stored!, { code: 'value_out_of_range', message: 'x' })).toBe(0);
    await uploadMultipart(u.token, { filename: '№900011_1202289.xlsx', file: xlsx('1E+20') });
    expect((await history()).sort()).toEqual([
      ['expense', 3],
      ['refund', 3],
    ]);
    expect((await getUserById(u.id))?.limits).toBe(10_000);
  });
});
