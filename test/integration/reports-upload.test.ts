/**
 * upload-url, count-rows and upload in-process against the emulators: the numbers of an uploaded
 * report equal the generator's answer key (aggregates) and the engine's (derived values, totals) on
 * the same file; the source is stored; the seller is linked; products join the catalog; hostile input
 * gets its documented status with nothing stored or charged.
 */
import * as zlib from 'node:zlib';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as countRowsHandler } from '../../functions/reports/count-rows.handler';
import { handler as uploadUrlHandler } from '../../functions/reports/upload-url.handler';
import { ZipWriter } from '../../scripts/fixtures/zip-writer';
import { bucketName, s3 } from '../../shared/files/client';
import { apiEvent, bodyOf } from '../support/test-event';
import { DEFAULT_TAX_PROFILE, kopecksToRoubles } from '../../shared/engine';
import type { ApiReport } from '../../shared/reports/present-report';
import { ddb, tableName } from '../../shared/store/client';
import { getCostPrices, listProducts } from '../../shared/store/products.repo';
import { listSellers, updateSeller } from '../../shared/store/sellers.repo';
import { getUpload, saveUploadCount } from '../../shared/store/uploads.repo';
import { getUserById } from '../../shared/store/users.repo';
import {
  byArticle,
  countMultipart,
  engineItems,
  engineTotals,
  makeReport,
  newUser,
  objectExists,
  presignedUpload,
  rub,
  uploadById,
  uploadMultipart,
  uploadOk,
} from '../support/reports';

async function userRecords(userId: string): Promise<Array<Record<string, unknown>>> {
  const r = await ddb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `USER#${userId}` },
      ConsistentRead: true,
    }),
  );
  return r.Items ?? [];
}

/** Everything a failed upload must not have left: reports, history, sellers, products. */
async function storedState(userId: string) {
  const all = await userRecords(userId);
  const user = await getUserById(userId);
  return {
    limits: user?.limits,
    kinds: all
      .map((i) => String(i.type))
      .filter((t) => t !== 'user' && t !== 'upload')
      .sort(),
  };
}

describe('upload', () => {
  it('stores a report whose numbers equal the answer key and the engine, with source, seller and catalog', async () => {
    const u = await newUser(10_000);
    const g = makeReport({ rows: 150, layout: '2026', format: 'xlsx', seed: 11 });
    const report = await uploadOk(u.token, g);

    expect(report.rows).toBe(g.expected.rows);
    expect(report.report_number).toBe(g.expected.report_number);
    expect(report.period_from).toBe(g.expected.period_from);
    expect(report.period_to).toBe(g.expected.period_to);
    expect(report.is_combined).toBe(false);
    expect(report.stale).toBe(false);
    expect(report.tax_profile).toEqual(DEFAULT_TAX_PROFILE);

    // Aggregates: the generator's independent answer key.
    const items = byArticle(report.items);
    expect([...items.keys()].sort()).toEqual(g.expected.articles.map((a) => a.article).sort());
    for (const exp of g.expected.articles) {
      const got = items.get(exp.article)!;
      expect(got.category).toBe(exp.category);
      for (const [field, v] of Object.entries(exp.aggregates)) {
        const want = field.endsWith('_qty') ? v : rub(v);
        expect(got.computed[field], `${exp.article}.${field}`).toBe(want);
      }
      expect(got.manual_values).toEqual({});
      expect(got.effective).toEqual(got.computed);
    }

    // Derived values and totals: the engine on the same file with the same settings.
    const engine = await engineItems(g, DEFAULT_TAX_PROFILE);
    const totals = engineTotals(engine);
    for (const e of engine) {
      const got = items.get(e.article)!;
      expect(got.computed.profit).toBe(kopecksToRoubles(e.computed.profit!));
      expect(got.computed.usn).toBe(kopecksToRoubles(e.computed.usn!));
      expect(got.computed.payout).toBe(kopecksToRoubles(e.computed.payout!));
      expect(got.computed.margin).toBe(e.computed.margin);
    }
    expect(report.totals.realization).toBe(rub(totals.realization!));
    expect(report.totals.profit).toBe(rub(totals.profit!));
    expect(report.totals.payout).toBe(rub(totals.payout!));
    expect(report.totals.sales_qty).toBe(totals.sales_qty);
    const sumRealization = g.expected.articles.reduce((s, a) => s + a.aggregates.realization, 0);
    expect(report.totals.realization).toBe(rub(sumRealization));
    const catRealization = report.commission_by_category.reduce((s, c) => s + Math.round(c.realization * 100), 0);
    expect(catRealization).toBe(sumRealization);

    // Source kept byte for byte under sources/<user>/<report>/<name>.
    expect(report.source_path).toBe(`sources/${u.id}/${report.id}/${g.filename}`);
    expect(report.source_available).toBe(true);
    const obj = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: report.source_path! }));
    expect(Buffer.from(await obj.Body!.transformToByteArray()).equals(g.file)).toBe(true);

    // Seller auto-linked from the file name; articles joined the catalog with cost price 0.
    const sellers = await listSellers(u.id);
    expect(sellers.map((s) => s.number)).toEqual([g.expected.seller_number]);
    expect(report.seller).toEqual({ id: sellers[0]!.id, number: g.expected.seller_number, name: sellers[0]!.name });
    const named = g.expected.articles.map((a) => a.article).filter((a) => a !== '');
    const prices = await getCostPrices(u.id, named);
    expect(Object.keys(prices).sort()).toEqual(named.sort());
    expect(Object.values(prices).every((p) => p === 0)).toBe(true);
  });

  it('takes the seller’s tax profile when it has one, and the user’s default otherwise', async () => {
    const u = await newUser(10_000);
    const first = makeReport({ rows: 60, seed: 21 });
    await uploadOk(u.token, first);
    const [seller] = await listSellers(u.id);
    const tax = { tax_system: 'usn_income_expenses' as const, usn_rate: 15, vat_rate: 5 as const };
    await updateSeller(u.id, seller!.id, { tax });
    // The same week again, on purpose (a new tax profile): allowed as a duplicate.
    const second = await uploadOk(u.token, makeReport({ rows: 60, seed: 21 }), { allow_duplicate: 'true' });
    expect(second.tax_profile).toEqual(tax);
    const engine = await engineItems(first, tax);
    const t = engineTotals(engine);
    expect(second.totals.vat).toBe(rub(t.vat!));
    expect(second.totals.usn).toBe(rub(t.usn!));
    expect(second.totals.profit).toBe(rub(t.profit!));
  });

  it('accepts a presigned upload (zip) and consumes it; a second use of the upload id answers the same report, charged once', async () => {
    const u = await newUser(10_000);
    const g = makeReport({ rows: 80, format: 'zip', layout: '2025', seed: 5 });
    const uploadId = await presignedUpload(u.token, g);
    const counted = await countRowsHandler(
      apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body: { upload_id: uploadId } }),
    );
    expect(counted.statusCode).toBe(200);
    expect(bodyOf(counted)).toEqual({
      rows: g.expected.rows,
      limits: 10_000,
      limits_after: 10_000 - g.expected.rows,
      enough: true,
      format: 'zip',
      report_number: g.expected.report_number,
      seller_number: g.expected.seller_number,
      duplicate_of: null,
    });
    expect((await getUserById(u.id))?.limits).toBe(10_000);

    const r = await uploadById(u.token, uploadId);
    expect(r.statusCode).toBe(201);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    expect(report.rows).toBe(g.expected.rows);
    expect(report.source_path).toBe(`sources/${u.id}/${report.id}/${g.filename}`);
    expect(await objectExists(report.source_path!)).toBe(true);
    expect(await objectExists(`uploads/${u.id}/${uploadId}/${g.filename}`)).toBe(false);
    const again = await uploadById(u.token, uploadId);
    expect(again.statusCode).toBe(201);
    expect(bodyOf<{ report: ApiReport }>(again).report.id).toBe(report.id);
    expect((await getUserById(u.id))?.limits).toBe(10_000 - g.expected.rows);
  });

  it('an upload after its count-rows charges the counted rows for the same bytes, and recounts new bytes', async () => {
    const u = await newUser(10_000);
    const g = makeReport({ rows: 90, format: 'zip', layout: '2026', seed: 31 });
    const uploadId = await presignedUpload(u.token, g);
    const count = (id: string) =>
      countRowsHandler(
        apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body: { upload_id: id } }),
      );
    expect(bodyOf<{ rows: number }>(await count(uploadId)).rows).toBe(g.expected.rows);
    // The count is kept with the upload, tied to the bytes' ETag.
    const kept = await getUpload(u.id, uploadId);
    expect(kept?.counted).toMatchObject({ rows: g.expected.rows, format: 'zip', etag: expect.any(String) });
    const r = await uploadById(u.token, uploadId);
    expect(r.statusCode).toBe(201);
    expect(bodyOf<{ report: ApiReport }>(r).report.rows).toBe(g.expected.rows);
    expect((await getUserById(u.id))?.limits).toBe(10_000 - g.expected.rows);

    // Other bytes under a counted upload (a second PUT): the ETag differs, so the upload counts them itself.
    const other = makeReport({ rows: 140, format: 'zip', layout: '2026', seed: 32 });
    const second = await presignedUpload(u.token, { filename: other.filename, file: g.file });
    expect((await count(second)).statusCode).toBe(200);
    const upload = await getUpload(u.id, second);
    await s3().send(new PutObjectCommand({ Bucket: bucketName(), Key: upload!.key, Body: other.file }));
    const r2 = await uploadById(u.token, second);
    expect(r2.statusCode).toBe(201);
    expect(bodyOf<{ report: ApiReport }>(r2).report.rows).toBe(other.expected.rows);
    expect((await getUserById(u.id))?.limits).toBe(10_000 - g.expected.rows - other.expected.rows);
  });

  it('a big upload is read once: count-rows keeps its read, the worker builds the same report from it', async () => {
    const u = await newUser(100_000);
    const g = makeReport({ rows: 9000, articles: 300, format: 'zip', layout: '2026', seed: 34 });
    // Bigger than what a request reads whole and fingerprints anyway (duplicates.ts CONTENT_CHECK_MAX_BYTES).
    expect(g.file.length).toBeGreaterThan(2 * 1024 * 1024);
    const uploadId = await presignedUpload(u.token, g);
    const counted = await countRowsHandler(
      apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body: { upload_id: uploadId } }),
    );
    expect(bodyOf<{ rows: number }>(counted).rows).toBe(g.expected.rows);
    const upload = await getUpload(u.id, uploadId);
    const readKey = `${upload!.key}.read.json.gz`;
    expect(upload?.counted).toMatchObject({ read_key: readKey, content: expect.stringMatching(/^r1:9000:/) });
    expect(await objectExists(readKey)).toBe(true);

    const r = await uploadById(u.token, uploadId);
    expect(r.statusCode).toBe(201);
    const report = bodyOf<{ report: ApiReport }>(r).report;
    expect(report.status).toBe('ready');
    // Taken by the worker (used once), and the numbers are the file's.
    expect(await objectExists(readKey)).toBe(false);
    const engine = await engineItems(g, DEFAULT_TAX_PROFILE);
    const t = engineTotals(engine);
    expect(report.totals.profit).toBe(rub(t.profit!));
    expect(report.totals.for_pay).toBe(rub(t.for_pay!));
    expect(report.items).toHaveLength(engine.length);
    expect((await getUserById(u.id))?.limits).toBe(100_000 - g.expected.rows);
  });

  it('a kept count below the rows the worker reads fails the report source_changed, refunded once', async () => {
    const u = await newUser(10_000);
    const g = makeReport({ rows: 120, format: 'zip', layout: '2026', seed: 33 });
    const uploadId = await presignedUpload(u.token, g);
    const upload = await getUpload(u.id, uploadId);
    const head = await s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: upload!.key }));
    // As if the bytes had changed between the count and the copy (S3 refuses that copy on AWS: CopySourceIfMatch).
    await saveUploadCount(u.id, uploadId, {
      etag: head.ETag!,
      rows: 10,
      format: 'zip',
      report_number: null,
      seller_number: null,
      identity: 'test-identity',
    });
    const r = await uploadById(u.token, uploadId);
    const err = bodyOf<{ error: { code: string; details: { report_id: string; refunded_rows: number } } }>(r).error;
    expect(r.statusCode).toBe(409);
    expect(err.code).toBe('source_changed');
    expect(err.details.refunded_rows).toBe(10);
    expect((await getUserById(u.id))?.limits).toBe(10_000);
    // The catalog entries the worker added while reading are taken back with the failed report.
    expect((await listProducts(u.id, {})).items).toEqual([]);
  });

  it('counts rows of an xls by multipart and says when limits are not enough', async () => {
    const u = await newUser(50);
    const g = makeReport({ rows: 70, format: 'xls', layout: '2022', seed: 3 });
    const r = await countMultipart(u.token, g);
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toMatchObject({ rows: 70, limits: 50, limits_after: 0, enough: false, format: 'xls' });
  });
});

describe('upload-url', () => {
  it('signs a PUT under uploads/<user>/<upload>/ and refuses oversized files and other extensions', async () => {
    const u = await newUser();
    const ok = await uploadUrlHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/upload-url',
        token: u.token,
        body: { filename: 'отчёт 123.xlsx', size: 1000 },
      }),
    );
    expect(ok.statusCode).toBe(200);
    const body = bodyOf<{ upload_id: string; url: string; method: string; expires_in: number }>(ok);
    expect(body.method).toBe('PUT');
    expect(decodeURIComponent(new URL(body.url).pathname)).toContain(
      `uploads/${u.id}/${body.upload_id}/отчёт 123.xlsx`,
    );
    expect(body.expires_in).toBeGreaterThan(0);

    const big = await uploadUrlHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/upload-url',
        token: u.token,
        body: { filename: 'a.zip', size: 512 * 1024 * 1024 + 1 },
      }),
    );
    expect(big.statusCode).toBe(413);
    expect(bodyOf<{ error: { code: string } }>(big).error.code).toBe('file_too_large');
    for (const filename of ['a.csv', 'a.xlsx.exe', 'noext']) {
      const r = await uploadUrlHandler(
        apiEvent({ method: 'POST', path: '/api/reports/upload-url', token: u.token, body: { filename, size: 10 } }),
      );
      expect(r.statusCode, filename).toBe(415);
    }
    const bad = await uploadUrlHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/upload-url',
        token: u.token,
        body: { filename: 'a.xlsx', size: -1 },
      }),
    );
    expect(bad.statusCode).toBe(400);
  });

  it('a stored upload bigger than MAX_UPLOAD_BYTES is refused with 413 when used, whatever size was declared', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 40, seed: 4 });
    const ok = await uploadUrlHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/upload-url',
        token: u.token,
        body: { filename: g.filename, size: 100 },
      }),
    );
    const { url, upload_id } = bodyOf<{ url: string; upload_id: string }>(ok);
    // The local S3 emulator does not check the signed Content-Length (AWS does), so the oversized body lands.
    expect((await fetch(url, { method: 'PUT', body: g.file })).status).toBe(200);
    const previous = process.env.MAX_UPLOAD_BYTES;
    process.env.MAX_UPLOAD_BYTES = String(g.file.length - 1);
    try {
      const r = await countRowsHandler(
        apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body: { upload_id } }),
      );
      expect(r.statusCode).toBe(413);
      expect((await uploadById(u.token, upload_id)).statusCode).toBe(413);
    } finally {
      if (previous === undefined) delete process.env.MAX_UPLOAD_BYTES;
      else process.env.MAX_UPLOAD_BYTES = previous;
    }
    expect((await getUserById(u.id))?.limits).toBe(100_000);
  });
});

describe('hostile input through the API: documented status, nothing stored or charged', () => {
  /**
   * A real bomb: an .xlsx whose sheet inflates to 1.6 GB of zeros from ~1.6 MB (stopped by the ratio cap
   * at 256 MB, long before the absolute 4 GB: shared/engine/read/limits.ts). Built fast by repeating
   * one sync-flushed deflate block of 16 MB of zeros (its back-references only ever see zeros) and
   * closing the stream with an empty final block (the zip writer's end); the headers state the true size and CRC.
   */
  function zipBomb(): Buffer {
    const zeros = Buffer.alloc(16 * 1024 * 1024);
    const block = zlib.deflateRawSync(zeros, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const copies = 100;
    let crc = 0;
    for (let i = 0; i < copies; i++) crc = zlib.crc32(zeros, crc);
    const zip = ZipWriter.toMemory();
    zip.add(
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    );
    zip.add(
      'xl/workbook.xml',
      '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    );
    zip.add(
      'xl/_rels/workbook.xml.rels',
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    );
    const sheet = zip.entry('xl/worksheets/sheet1.xml');
    sheet.writeDeflated(Buffer.concat(Array.from({ length: copies }, () => block)), {
      crc,
      size: zeros.length * copies,
    });
    sheet.end();
    return zip.finishToBuffer();
  }

  const cases: Array<{ name: string; file: () => { filename: string; file: Buffer }; status: number; code: string }> = [
    {
      name: 'not a spreadsheet',
      file: () => ({ filename: 'report.xlsx', file: Buffer.from('%PDF-1.7 this is not a spreadsheet') }),
      status: 415,
      code: 'not_a_spreadsheet',
    },
    {
      name: 'wrong extension',
      file: () => ({ filename: 'report.csv', file: Buffer.from('a,b\n1,2\n') }),
      status: 415,
      code: 'unsupported_format',
    },
    {
      name: 'empty file',
      file: () => ({ filename: 'report.xlsx', file: Buffer.alloc(0) }),
      status: 415,
      code: 'not_a_spreadsheet',
    },
  ];

  for (const c of cases) {
    it(`${c.name} → ${c.status} ${c.code}`, async () => {
      const u = await newUser(10_000);
      const before = await storedState(u.id);
      for (const send of [countMultipart, uploadMultipart]) {
        const r = await send(u.token, c.file());
        expect(r.statusCode).toBe(c.status);
        expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe(c.code);
      }
      expect(await storedState(u.id)).toEqual(before);
    });
  }

  it('a zip bomb → 422 zip_bomb', async () => {
    const u = await newUser(10_000);
    const before = await storedState(u.id);
    const uploadId = await presignedUpload(u.token, { filename: 'bomb.xlsx', file: zipBomb() });
    const r = await uploadById(u.token, uploadId);
    expect(r.statusCode).toBe(422);
    expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('zip_bomb');
    expect(await storedState(u.id)).toEqual(before);
  });

  it('missing headers → 422 missing_headers naming them', async () => {
    const u = await newUser(10_000);
    const before = await storedState(u.id);
    const g = makeReport({ rows: 20, format: 'xls', seed: 2 });
    // Re-save the sheet without two required columns.
    const XLSX = await import('@e965/xlsx');
    const wb = XLSX.read(g.file, { type: 'buffer' });
    const ws = wb.Sheets[wb.SheetNames[0]!]!;
    const rows = XLSX.utils.sheet_to_json<unknown[]>(ws, { header: 1 });
    const header = rows[0] as string[];
    const drop = new Set(['Кол-во', 'Вайлдберриз реализовал Товар (Пр)'].filter((h) => header.includes(h)));
    expect(drop.size).toBeGreaterThan(0);
    const keep = header.map((h, i) => (drop.has(h) ? -1 : i)).filter((i) => i >= 0);
    const out = XLSX.utils.aoa_to_sheet(rows.map((row) => keep.map((i) => (row as unknown[])[i])));
    const wb2 = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb2, out, 'Sheet1');
    const file = XLSX.write(wb2, { type: 'buffer', bookType: 'xls' }) as Buffer;
    const r = await uploadMultipart(u.token, { filename: 'broken.xls', file });
    expect(r.statusCode).toBe(422);
    const err = bodyOf<{ error: { code: string; details: Record<string, unknown>; message: string } }>(r).error;
    expect(err.code).toBe('missing_headers');
    expect(JSON.stringify(err)).toContain([...drop][0]);
    expect(await storedState(u.id)).toEqual(before);
  });

  it('upload ids of the wrong shape, unknown or never PUT → 404; neither file nor id → 400', async () => {
    const u = await newUser(10_000);
    for (const id of ['../../etc/passwd', 'x'.repeat(150), '01ARZ3NDEKTSV4RRFFQ69G5FAV']) {
      const r = await uploadById(u.token, id);
      expect(r.statusCode, id).toBe(404);
    }
    const url = await uploadUrlHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/upload-url',
        token: u.token,
        body: { filename: 'a.xlsx', size: 10 },
      }),
    );
    const neverPut = bodyOf<{ upload_id: string }>(url).upload_id;
    expect((await uploadById(u.token, neverPut)).statusCode).toBe(404);
    const none = await countRowsHandler(
      apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body: {} }),
    );
    expect(none.statusCode).toBe(400);
  });

  it('another user’s upload id is a 404 for count-rows and upload, and their file stays', async () => {
    const owner = await newUser(10_000);
    const other = await newUser(10_000);
    const g = makeReport({ rows: 30, seed: 9 });
    const uploadId = await presignedUpload(owner.token, g);
    const count = await countRowsHandler(
      apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: other.token, body: { upload_id: uploadId } }),
    );
    expect(count.statusCode).toBe(404);
    expect((await uploadById(other.token, uploadId)).statusCode).toBe(404);
    expect((await storedState(other.id)).kinds).toEqual([]);
    expect((await getUserById(other.id))?.limits).toBe(10_000);
    expect(await objectExists(`uploads/${owner.id}/${uploadId}/${g.filename}`)).toBe(true);
    // Someone writing straight into another user's prefix does not make it theirs either.
    await s3().send(
      new PutObjectCommand({
        Bucket: bucketName(),
        Key: `uploads/${other.id}/${uploadId}/${g.filename}`,
        Body: g.file,
      }),
    );
    expect((await uploadById(other.token, uploadId)).statusCode).toBe(404);
  });
});
