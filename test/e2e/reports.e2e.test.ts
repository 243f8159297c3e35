/**
 * The reports path over real HTTP: serverless-offline serving the bundled handlers against DynamoDB
 * Local, s3rver and the SES emulator, as a browser would drive it: sign up by mail, upload a generated
 * report by presigned PUT, count its rows, upload it, correct a value, rebuild, combine two reports and
 * poll the job, download the export, the legacy summary and the source file, and keep a catalog price
 * for an article whose name needs URL encoding.
 */
import { randomUUID } from 'node:crypto';
import ExcelJS from 'exceljs';
import * as XLSX from '@e965/xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import { SHEET_ITEMS, TOTALS_LABEL } from '../../shared/workbooks/xlsx-export';
import { DEFAULT_TAX_PROFILE, FIELDS, buildItems, kopecksToRoubles, readReport } from '../../shared/engine';
import type { ApiItem, ApiReport } from '../../shared/reports/present-report';
import type { Emulators } from '../support/emulators';
import { putUpload, startE2eStack, type E2eStack } from '../support/e2e-stack';
import type { Offline } from '../support/offline';
import { signUpByMail, type HttpCall } from '../support/sign-up';

let emulators: Emulators;
let offline: Offline;
let call: HttpCall;
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack();
  ({ emulators, offline, call } = stack);
});

/** A new account signed up by mail; its access token. */
const signUp = async (email: string) => (await signUpByMail(offline.apiUrl, emulators.env.SES_ENDPOINT!, email)).token;

afterAll(async () => {
  await stack?.stop();
});

async function download(
  method: string,
  route: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${offline.apiUrl}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** upload-url → PUT to the presigned URL: the upload id, nothing uploaded yet. */
async function uploadUrlOnly(token: string, file: { filename: string; file: Buffer }): Promise<{ upload_id: string }> {
  return { upload_id: await putUpload(call, token, file) };
}

/** upload-url → PUT to the presigned URL → count-rows → upload, all by upload id. */
async function uploadByUrl(
  token: string,
  file: { filename: string; file: Buffer },
): Promise<{ count: Record<string, unknown>; report: ApiReport }> {
  const uploadId = await putUpload(call, token, file);
  const count = await call('POST', '/reports/count-rows', { token, body: { upload_id: uploadId } });
  expect(count.status).toBe(200);
  const uploaded = await call<{ report: ApiReport }>('POST', '/reports/upload', {
    token,
    body: { upload_id: uploadId },
  });
  expect(uploaded.status, JSON.stringify(uploaded.body).slice(0, 300)).toBe(201);
  return { count: count.body, report: uploaded.body.report };
}

/** The engine's numbers for the same file and settings, in API units. */
async function engineByArticle(file: {
  filename: string;
  file: Buffer;
}): Promise<Map<string, Record<string, number | null>>> {
  const parsed = await readReport({ buffer: file.file, filename: file.filename });
  const { items } = buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
  const unit = new Map<string, string>(FIELDS.map((d) => [d.name, d.unit]));
  return new Map(
    items.map((i) => [
      i.article,
      Object.fromEntries(
        Object.entries(i.effective).map(([k, v]) => [
          k,
          v === null ? null : unit.get(k) === 'money' ? kopecksToRoubles(v) : v,
        ]),
      ),
    ]),
  );
}

describe('reports over HTTP (serverless-offline)', () => {
  it('upload → numbers of the engine → correction survives rebuild → combine and poll → export, summary and source files open', async () => {
    const token = await signUp(`reports-e2e-${randomUUID()}@example.com`);
    const ga = generateReport({ rows: 150, layout: '2026', format: 'xlsx', seed: 101, articles: 6 });
    const gb = generateReport({ rows: 120, layout: '2022', format: 'zip', seed: 102, articles: 5 });

    // 1. Upload by presigned URL; count-rows charges nothing and says what upload will take.
    const { count, report: a } = await uploadByUrl(token, ga);
    expect(count).toMatchObject({
      rows: ga.expected.rows,
      enough: true,
      format: 'xlsx',
      report_number: ga.expected.report_number,
      seller_number: ga.expected.seller_number,
    });
    expect(a).toMatchObject({
      rows: ga.expected.rows,
      report_number: ga.expected.report_number,
      is_combined: false,
      source_available: true,
    });
    const engine = await engineByArticle(ga);
    expect(a.items).toHaveLength(engine.size);
    for (const item of a.items) expect(item.effective, item.article).toEqual(engine.get(item.article));
    const me = await call<{ user: { limits: number } }>('GET', '/auth/me', { token });
    expect(me.body.user.limits).toBe(10_000 - ga.expected.rows);

    // 2. A correction, then a rebuild: the correction is re-applied by article.
    const target = a.items.find((i) => i.article !== '') as ApiItem;
    const corrected = await call<{ item: ApiItem; totals: Record<string, number> }>(
      'PUT',
      `/reports/items/${target.item_id}/manual-value`,
      {
        token,
        body: { field: 'storage', value: 777.77 },
      },
    );
    expect(corrected.status).toBe(200);
    expect(corrected.body.item.effective.storage).toBe(777.77);
    const rebuilt = await call<{ report: ApiReport; dropped_manual_values: unknown[] }>(
      'POST',
      `/reports/${a.id}/rebuild`,
      { token },
    );
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.dropped_manual_values).toEqual([]);
    const after = rebuilt.body.report.items.find((i) => i.article === target.article) as ApiItem;
    expect(after.manual_values).toEqual({ storage: 777.77 });
    expect(after.effective.storage).toBe(777.77);
    const aNow = rebuilt.body.report;

    // 3. A second report (a zip this time), then combine the two and poll the job.
    const { report: b } = await uploadByUrl(token, gb);
    const started = await call<{
      job_id: string;
      status: string;
      progress: { done: number; total: number };
      report_id?: string;
    }>('POST', '/reports/combine', {
      token,
      body: { report_ids: [a.id, b.id] },
    });
    expect(started.status).toBe(202);
    // Steps: reading each of the 2 sources, merging, writing.
    expect(started.body.progress.total).toBe(4);
    let job = started.body;
    for (let i = 0; job.status !== 'done' && job.status !== 'failed' && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const s = await call<typeof job>('GET', `/reports/combine-status/${started.body.job_id}`, { token });
      expect(s.status).toBe(200);
      job = s.body;
    }
    expect(job).toMatchObject({ status: 'done', progress: { done: 4, total: 4 } });
    const combined = await call<{ report: ApiReport }>('GET', `/reports/${job.report_id}`, { token });
    expect(combined.status).toBe(200);
    const c = combined.body.report;
    expect(c).toMatchObject({
      is_combined: true,
      source_report_ids: [a.id, b.id],
      source_available: false,
      rows: a.rows + b.rows,
    });
    for (const f of ['realization', 'for_pay', 'storage', 'profit', 'sales_qty'] as const) {
      expect(c.totals[f], f).toBeCloseTo((aNow.totals[f] ?? 0) + (b.totals[f] ?? 0), 2);
    }
    const cItem = c.items.find((i) => i.article === target.article) as ApiItem;
    const bPart = b.items.find((i) => i.article === target.article)?.effective.storage ?? 0;
    expect(cItem.effective.storage).toBeCloseTo(777.77 + bPart, 2);
    // The same week again is refused before any charge; recombine is routed to the combine function.
    const again = await call<{ error: { code: string; details: { report_id: string } } }>('POST', '/reports/upload', {
      token,
      body: { upload_id: (await uploadUrlOnly(token, ga)).upload_id },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'duplicate_report', details: { report_id: a.id } });
    const recombined = await call<typeof job>('POST', `/reports/${c.id}/recombine`, { token });
    expect(recombined.status).toBe(202);
    let rjob = recombined.body;
    for (let i = 0; rjob.status !== 'done' && rjob.status !== 'failed' && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rjob = (await call<typeof job>('GET', `/reports/combine-status/${recombined.body.job_id}`, { token })).body;
    }
    expect(rjob).toMatchObject({ status: 'done', report_id: c.id });
    const gone = await call<{ error: { code: string } }>('GET', `/reports/combine-status/${randomUUID()}`, { token });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('job_not_found');

    // 4. The export opens in a spreadsheet library: item numbers and the totals row.
    const xlsx = await download('GET', `/reports/${a.id}/export`, token);
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(decodeURIComponent(xlsx.headers.get('content-disposition') ?? '')).toContain(`${a.report_number}.xlsx`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
    const ws = wb.getWorksheet(SHEET_ITEMS)!;
    const header = Array.from(ws.getRow(1).values as unknown[], (v) => String(v ?? ''));
    const storageCol = header.findIndex((h) => h.startsWith('Хранение'));
    const realCol = header.findIndex((h) => h.startsWith('Реализация'));
    let totalsSeen = false;
    ws.eachRow((row) => {
      const label = String(row.getCell(1).value ?? '');
      if (label === target.article) expect(row.getCell(storageCol).value).toBe(777.77);
      if (label === TOTALS_LABEL) {
        totalsSeen = true;
        expect(row.getCell(realCol).value).toBe(aNow.totals.realization);
        expect(row.getCell(storageCol).value).toBe(aNow.totals.storage);
      }
    });
    expect(totalsSeen).toBe(true);

    // 5. The legacy summary opens with SheetJS: one row per report.
    const xls = await download('POST', '/reports/summary-export', token, { report_ids: [a.id, b.id] });
    expect(xls.status).toBe(200);
    expect(xls.headers.get('content-type')).toBe('application/vnd.ms-excel');
    const sbook = XLSX.read(xls.bytes, { type: 'buffer' });
    const rows = XLSX.utils.sheet_to_json<unknown[]>(sbook.Sheets[sbook.SheetNames[0]!]!, {
      header: 1,
      raw: true,
      defval: null,
    });
    const h = rows.findIndex((r) => r.includes('Номер отчёта'));
    const numCol = (rows[h] as string[]).indexOf('Номер отчёта');
    const sumRealCol = (rows[h] as string[]).indexOf('Реализация, руб.');
    expect([rows[h + 1]![numCol], rows[h + 2]![numCol]]).toEqual([a.report_number, b.report_number]);
    expect(rows[h + 1]![sumRealCol]).toBe(aNow.totals.realization);

    // 6. The source comes back byte for byte under its own name.
    const src = await download('GET', `/reports/${a.id}/source`, token);
    expect(src.status).toBe(200);
    expect(src.bytes.equals(ga.file)).toBe(true);
    expect(decodeURIComponent(src.headers.get('content-disposition') ?? '')).toContain(ga.filename);
    const zipSrc = await download('GET', `/reports/${b.id}/source`, token);
    expect(zipSrc.bytes.equals(gb.file)).toBe(true);
    expect((await call('GET', `/reports/${c.id}/source`, { token })).status).toBe(404);

    // 7. Another user reaches none of it.
    const stranger = await signUp(`reports-e2e-${randomUUID()}@example.com`);
    for (const [method, route, body] of [
      ['GET', `/reports/${a.id}/export`, undefined],
      ['GET', `/reports/${a.id}/source`, undefined],
      ['POST', '/reports/summary-export', { report_ids: [a.id] }],
      ['POST', '/reports/combine', { report_ids: [a.id, b.id] }],
      ['GET', `/reports/combine-status/${started.body.job_id}`, undefined],
    ] as const) {
      expect((await call(method, route, { token: stranger, body })).status, route).toBe(404);
    }
  });

  it('catalog prices for articles with "/", "#", "%" and Cyrillic go through the URL path intact', async () => {
    const token = await signUp(`catalog-e2e-${randomUUID()}@example.com`);
    const article = 'Платье/синее #42 100%';
    const put = await call<{ article: string; cost_price: number }>('PUT', `/products/${encodeURIComponent(article)}`, {
      token,
      body: { cost_price: 1234.5 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ article, cost_price: 1234.5 });
    const list = await call<{ items: Array<{ article: string; cost_price: number }> }>(
      'GET',
      `/products?search=${encodeURIComponent('СИНЕЕ')}`,
      { token },
    );
    expect(list.body.items).toEqual([expect.objectContaining({ article, cost_price: 1234.5 })]);
    const form = new FormData();
    form.append('create_missing', 'true');
    form.append('file', new Blob([Buffer.from('Артикул;Себестоимость\nA-1;10,5\nB-2;-1\n', 'utf8')]), 'цены.csv');
    const res = await fetch(`${offline.apiUrl}/products/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      created: 1,
      updated: 0,
      unknown: { count: 0, articles: [] },
      errors: [{ row: 3, message: expect.stringMatching(/отрицательн/) }],
    });
  });
});
