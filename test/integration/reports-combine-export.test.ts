/**
 * Combine, export, source and summary-export in-process against the emulators. Reports are made by
 * the upload route from generated files; a correction is set through the manual-value route. A
 * combined report's numbers must equal the sums of its sources' EFFECTIVE values; the files a user
 * takes away are opened again (exceljs for .xlsx, SheetJS for .xls) and their numbers checked; the
 * source comes back byte for byte; nothing of one user is reachable by another.
 */
import ExcelJS from 'exceljs';
import * as XLSX from '@e965/xlsx';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { handler as exportHandler } from '../../functions/reports/export.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as sourceHandler } from '../../functions/reports/source.handler';
import { handler as summaryHandler } from '../../functions/reports/summary-export.handler';
import { SHEET_ITEMS, TOTALS_LABEL } from '../../shared/workbooks/xlsx-export';
import { apiEvent, bodyOf } from '../support/test-event';
import {
  FIELDS,
  buildItems,
  commissionByCategory,
  computeTotals,
  kopecksToRoubles,
  readReport,
  type FieldName,
} from '../../shared/engine';
import type { ApiReport } from '../../shared/reports/present-report';
import { systemClock } from '../../shared/deps';
import { createJobRegistry } from '../../shared/jobs/registry';
import { combineStatus as combineStatusOf, startCombine, type CombineDeps } from '../../shared/reports/combine/combine';
import { jobStore } from '../../shared/store/jobs.repo';
import { createReport, replaceItems } from '../../shared/store/report-numbers.repo';
import { getReport, getReportItems, listAllReports } from '../../shared/store/reports.repo';
import { newReportId, type ReportRecord } from '../../shared/store/report-record';
import { getReportOk, makeReport, newUser, uploadOk, type TestUser } from '../support/reports';

const ENV_KEYS = ['COMBINE_WAIT_MS', 'MAX_INLINE_SOURCE_BYTES'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

type Job = {
  job_id: string;
  status: string;
  progress: { done: number; total: number };
  report_id?: string;
  error?: { code: string };
};

const combine = (token: string, body: unknown) =>
  combineHandler(apiEvent({ method: 'POST', path: '/api/reports/combine', token, body }));
const combineStatus = (token: string, jobId: string) =>
  combineHandler(
    apiEvent({ method: 'GET', path: `/api/reports/combine-status/${jobId}`, token, pathParameters: { job_id: jobId } }),
  );
const exportReport = (token: string, id: string) =>
  exportHandler(apiEvent({ method: 'GET', path: `/api/reports/${id}/export`, token, pathParameters: { id } }));
const source = (token: string, id: string) =>
  sourceHandler(apiEvent({ method: 'GET', path: `/api/reports/${id}/source`, token, pathParameters: { id } }));
const summary = (token: string, ids: string[]) =>
  summaryHandler(apiEvent({ method: 'POST', path: '/api/reports/summary-export', token, body: { report_ids: ids } }));
const fileOf = (r: { body?: string; isBase64Encoded?: boolean }) =>
  Buffer.from(r.body ?? '', r.isBase64Encoded ? 'base64' : 'utf8');

async function pollDone(token: string, jobId: string): Promise<Job> {
  for (let i = 0; i < 200; i++) {
    const r = await combineStatus(token, jobId);
    expect(r.statusCode).toBe(200);
    const job = bodyOf<Job>(r);
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('combine job did not finish');
}

const SUMMED = FIELDS.filter((d) => d.combine === 'sum').map((d) => d.name as FieldName);

describe('combine', () => {
  let owner: TestUser;
  let a: ApiReport;
  let b: ApiReport;
  let c: ApiReport;
  let correctedArticle: string;

  beforeAll(async () => {
    owner = await newUser();
    const ga = makeReport({ rows: 160, seed: 21, articles: 6 });
    const gb = makeReport({ rows: 140, seed: 22, articles: 6, layout: '2025' });
    // The second file of the same seller (the number in the file name links it).
    gb.filename = gb.filename.replace(`_${gb.expected.seller_number}`, `_${ga.expected.seller_number}`);
    a = await uploadOk(owner.token, ga);
    b = await uploadOk(owner.token, gb);
    c = await uploadOk(owner.token, makeReport({ rows: 60, seed: 23, articles: 3 }));
    expect(a.seller?.id).toBeDefined();
    expect(b.seller?.id).toBe(a.seller?.id);
    expect(c.seller?.id).not.toBe(a.seller?.id);
    // A correction on the first report: the combined report must carry it over.
    const item = a.items.find((i) => i.article !== '' && (i.computed.logistics ?? 0) !== 0) ?? a.items[0];
    correctedArticle = item!.article;
    const r = await manualValueHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/reports/items/${item!.item_id}/manual-value`,
        token: owner.token,
        body: { field: 'logistics', value: 4321.09 },
        pathParameters: { item_id: item!.item_id },
      }),
    );
    expect(r.statusCode).toBe(200);
  });

  it('answers done at once with a report whose numbers are the sums of the sources’ effective values', async () => {
    const r = await combine(owner.token, { report_ids: [a.id, b.id] });
    expect(r.statusCode).toBe(202);
    const job = bodyOf<Job>(r);
    expect(job).toMatchObject({ status: 'done', progress: { done: 4, total: 4, step: 'done' } });
    expect(job.report_id).toEqual(expect.any(String));

    const [ra, rb, rc] = await Promise.all([a.id, b.id, job.report_id!].map((id) => getReport(owner.id, id)));
    const [ia, ib, ic] = await Promise.all([ra!, rb!, rc!].map((rec) => getReportItems(rec)));
    expect(rc).toMatchObject({
      is_combined: true,
      source_report_ids: [a.id, b.id],
      source_path: null,
      report_number: null,
      rows: ra!.rows + rb!.rows,
    });
    expect(rc!.period_from).toBe([ra!.period_from!, rb!.period_from!].sort()[0]);
    expect(rc!.period_to).toBe([ra!.period_to!, rb!.period_to!].sort()[1]);
    // Both files are of one seller: the combined report keeps it.
    expect(rc!.seller_id).toBe(a.seller!.id);

    const articles = new Set([...ia!, ...ib!].map((i) => i.article));
    expect(new Set(ic!.map((i) => i.article))).toEqual(articles);
    for (const item of ic!) {
      const parts = [...ia!, ...ib!].filter((i) => i.article === item.article);
      for (const f of SUMMED) {
        expect(item.effective[f], `${item.article}.${f}`).toBe(parts.reduce((s, p) => s + (p.effective[f] ?? 0), 0));
      }
    }
    // The correction (4321.09 ₽ of logistics) is inside the combined number, not the computed one.
    const corrected = ia!.find((i) => i.article === correctedArticle)!;
    expect(corrected.effective.logistics).toBe(432_109);
    const other = ib!.find((i) => i.article === correctedArticle)?.effective.logistics ?? 0;
    expect(ic!.find((i) => i.article === correctedArticle)!.effective.logistics).toBe(432_109 + other);
    expect(rc!.totals).toEqual(computeTotals(ic!.map((i) => i.effective)));
    expect(rc!.commission_by_category).toEqual(commissionByCategory(ic!));

    // Through the API: a report like any other, summary fields as documented.
    const api = await getReportOk(owner.token, job.report_id!);
    expect(api).toMatchObject({
      is_combined: true,
      source_available: false,
      source_path: null,
      source_report_ids: [a.id, b.id],
    });
    expect(api.title).toMatch(/^Сводный отчёт \d{2}\.\d{2}\.\d{4}–\d{2}\.\d{2}\.\d{4}$/);
    expect(api.totals.realization).toBe(kopecksToRoubles(rc!.totals.realization!));

    const status = await combineStatus(owner.token, job.job_id);
    expect(bodyOf<Job>(status)).toEqual({
      job_id: job.job_id,
      status: 'done',
      progress: { done: 4, total: 4, step: 'done' },
      report_id: job.report_id,
    });
  });

  it('with no waiting, answers 202 at once and the status route reports the job until it is done', async () => {
    process.env.COMBINE_WAIT_MS = '0';
    const r = await combine(owner.token, { report_ids: [b.id, a.id, c.id], title: '  Декабрь  ' });
    expect(r.statusCode).toBe(202);
    const started = bodyOf<Job>(r);
    expect(['queued', 'running', 'done']).toContain(started.status);
    expect(started.progress.total).toBe(5);
    const done = await pollDone(owner.token, started.job_id);
    expect(done).toMatchObject({ status: 'done', progress: { done: 5, total: 5, step: 'done' } });
    const rec = await getReport(owner.id, done.report_id!);
    // Sources of different sellers: the combined report has none.
    expect(rec).toMatchObject({ title: 'Декабрь', source_report_ids: [b.id, a.id, c.id], seller_id: null });
  });

  it('refuses fewer than two, duplicate ids and another user’s or unknown reports, starting nothing', async () => {
    const before = (await listAllReports(owner.id)).length;
    for (const body of [
      { report_ids: [a.id] },
      { report_ids: [a.id, a.id] },
      { report_ids: Array.from({ length: 101 }, (_, i) => `X${i}`) },
      {},
    ]) {
      const r = await combine(owner.token, body);
      expect(r.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    const stranger = await newUser();
    const theirs = await uploadOk(stranger.token, makeReport({ rows: 30, seed: 5 }));
    for (const ids of [
      [a.id, theirs.id],
      [a.id, 'NOSUCHREPORT'],
      [a.id, '../../etc'],
    ]) {
      const r = await combine(owner.token, { report_ids: ids });
      expect(r.statusCode).toBe(404);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('report_not_found');
    }
    // The stranger cannot combine my reports either.
    expect((await combine(stranger.token, { report_ids: [a.id, b.id] })).statusCode).toBe(404);
    expect((await listAllReports(owner.id)).length).toBe(before);
  });

  it('status of an unknown job or another user’s job is 404 job_not_found, saying where jobs live', async () => {
    const r = await combine(owner.token, { report_ids: [a.id, b.id] });
    const job = bodyOf<Job>(r);
    const stranger = await newUser();
    for (const [token, id] of [
      [stranger.token, job.job_id],
      [owner.token, '00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const s = await combineStatus(token, id);
      expect(s.statusCode).toBe(404);
      const err = bodyOf<{ error: { code: string; message: string } }>(s).error;
      expect(err.code).toBe('job_not_found');
      expect(err.message).toMatch(/Start the combine again/);
    }
  });

  it('two execution environments: a job started in one is answered by the other from its stored outcome', async () => {
    // Each registry is one Lambda environment's memory; the table (jobStore) is what they share.
    const environment = (): CombineDeps => ({
      reports: { getReport, getReportItems, createReport, replaceItems, newReportId },
      jobs: createJobRegistry({ clock: systemClock, store: jobStore }),
      clock: systemClock,
      waits: { startMs: () => 0, statusMs: () => 0 },
    });
    const first = environment();
    const second = environment();
    const started = await startCombine(first, owner.id, [a.id, b.id], 'Из двух окружений');
    expect(['queued', 'running']).toContain(started.status);
    expect(second.jobs.getJob(owner.id, started.id)).toBeNull();
    const seen = await combineStatusOf(second, owner.id, started.id);
    expect(['queued', 'running', 'done']).toContain(seen?.status);
    // The job runs on in the first environment; the second reads its outcome once it is stored.
    await first.jobs.waitFor(started, 30_000);
    let outcome = await combineStatusOf(second, owner.id, started.id);
    for (let i = 0; i < 50 && outcome?.status !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      outcome = await combineStatusOf(second, owner.id, started.id);
    }
    expect(outcome).toMatchObject({ id: started.id, status: 'done', progress: { done: 4, total: 4, step: 'done' } });
    expect(await getReport(owner.id, outcome!.report_id!)).toMatchObject({
      title: 'Из двух окружений',
      is_combined: true,
      source_report_ids: [a.id, b.id],
    });
    // Another user asking the second environment gets nothing, nor does a job never started.
    expect(await combineStatusOf(second, 'someone-else', started.id)).toBeNull();
    expect(await combineStatusOf(second, owner.id, '00000000-0000-4000-8000-000000000000')).toBeNull();
  });
});

describe('export, source and summary', () => {
  let owner: TestUser;
  let stranger: TestUser;
  let gen: ReturnType<typeof makeReport>;
  let report: ApiReport;
  let second: ApiReport;

  beforeAll(async () => {
    owner = await newUser();
    stranger = await newUser();
    gen = makeReport({ rows: 120, seed: 31, articles: 5 });
    report = await uploadOk(owner.token, gen);
    second = await uploadOk(owner.token, makeReport({ rows: 90, seed: 32, articles: 4 }));
  });

  it('export is an .xlsx attachment named after the report number; its numbers and totals row match the report', async () => {
    const r = await exportReport(owner.token, report.id);
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(r.headers?.['Content-Disposition']).toMatch(/^attachment;/);
    expect(decodeURIComponent(String(r.headers?.['Content-Disposition']))).toContain(`${report.report_number}.xlsx`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(fileOf(r) as unknown as ArrayBuffer);
    const ws = wb.getWorksheet(SHEET_ITEMS)!;
    const header = Array.from(ws.getRow(1).values as unknown[], (v) => String(v ?? ''));
    const col = (title: string) => header.findIndex((h) => h.startsWith(title));
    const realCol = col('Реализация');
    const salesCol = col('Продажи');
    expect(realCol).toBeGreaterThan(0);
    const byArticle = new Map(report.items.map((i) => [i.article === '' ? 'Без артикула' : i.article, i]));
    let totalsRow = -1;
    ws.eachRow((row, n) => {
      if (n === 1) return;
      const label = String(row.getCell(1).value ?? '');
      if (label === TOTALS_LABEL) {
        totalsRow = n;
        return;
      }
      const item = byArticle.get(label);
      expect(item, label).toBeDefined();
      expect(row.getCell(realCol).value).toBe(item!.effective.realization);
      expect(row.getCell(salesCol).value).toBe(item!.effective.sales_qty);
    });
    expect(totalsRow).toBe(report.items.length + 2);
    expect(ws.getRow(totalsRow).getCell(realCol).value).toBe(report.totals.realization);
    expect(ws.getRow(totalsRow).getCell(salesCol).value).toBe(report.totals.sales_qty);
  });

  it('an article starting with "=" is exported as text, not as a formula', async () => {
    const parsed = await readReport({ buffer: gen.file, filename: gen.filename });
    parsed.articles[parsed.articles.length - 1]!.article = '=HYPERLINK("http://evil","x")';
    const { items } = buildItems(parsed, { tax: report.tax_profile, costPrices: {} });
    const record: ReportRecord = {
      id: newReportId(),
      user_id: owner.id,
      title: 'formula',
      report_number: '42',
      seller_id: null,
      period_from: parsed.period_from,
      period_to: parsed.period_to,
      rows: parsed.rows,
      format: 'xlsx',
      is_combined: false,
      source_path: null,
      source_name: null,
      source_size: null,
      created_at: new Date().toISOString(),
      tax_profile: report.tax_profile,
      totals: computeTotals(items.map((i) => i.effective)),
      commission_by_category: commissionByCategory(items),
      warnings: [],
      item_count: items.length,
    };
    await createReport(record, items);
    const r = await exportReport(owner.token, record.id);
    expect(r.statusCode).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(fileOf(r) as unknown as ArrayBuffer);
    const cells: ExcelJS.Cell[] = [];
    wb.getWorksheet(SHEET_ITEMS)!.eachRow((row) => cells.push(row.getCell(1)));
    const evil = cells.find((c) => String(c.value).startsWith('=HYPERLINK'));
    expect(evil?.type).toBe(ExcelJS.ValueType.String);
    expect(evil?.formula).toBeUndefined();
    // No stored source: the source route says so.
    const s = await source(owner.token, record.id);
    expect(s.statusCode).toBe(404);
    expect(bodyOf<{ error: { code: string } }>(s).error.code).toBe('source_missing');
  });

  it('source gives back the uploaded bytes with the original name', async () => {
    const r = await source(owner.token, report.id);
    expect(r.statusCode).toBe(200);
    expect(fileOf(r).equals(gen.file)).toBe(true);
    expect(r.headers?.['Content-Type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(decodeURIComponent(String(r.headers?.['Content-Disposition']))).toContain(gen.filename);
  });

  it('a source over MAX_INLINE_SOURCE_BYTES is a 302 to a short-lived presigned URL with the same bytes', async () => {
    process.env.MAX_INLINE_SOURCE_BYTES = '1000';
    const r = await source(owner.token, report.id);
    expect(r.statusCode).toBe(302);
    const location = String(r.headers?.Location);
    expect(location).toMatch(/X-Amz-Expires=300/);
    const got = await fetch(location);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(gen.file)).toBe(true);
  });

  it('summary-export is the legacy .xls with one row per report and a totals row', async () => {
    const r = await summary(owner.token, [report.id, second.id]);
    expect(r.statusCode).toBe(200);
    expect(r.headers?.['Content-Type']).toBe('application/vnd.ms-excel');
    expect(r.headers?.['Content-Disposition']).toMatch(/^attachment;.*\.xls/);
    const wb = XLSX.read(fileOf(r), { type: 'buffer' });
    const rows = XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets[wb.SheetNames[0]!]!, {
      header: 1,
      raw: true,
      defval: null,
    });
    const h = rows.findIndex((row) => row.includes('Номер отчёта'));
    expect(h).toBeGreaterThanOrEqual(0);
    const header = rows[h] as string[];
    const numCol = header.indexOf('Номер отчёта');
    const realCol = header.indexOf('Реализация, руб.');
    const rowsCol = header.indexOf('Кол-во строк');
    expect(rows[h + 1]![numCol]).toBe(report.report_number);
    expect(rows[h + 1]![realCol]).toBe(report.totals.realization);
    expect(rows[h + 1]![rowsCol]).toBe(report.rows);
    expect(rows[h + 2]![numCol]).toBe(second.report_number);
    expect(rows[h + 2]![realCol]).toBe(second.totals.realization);
    const totals = rows[h + 3]!;
    expect(totals.some((v) => v === 'Итого')).toBe(true);
    expect(totals[realCol]).toBeCloseTo((report.totals.realization ?? 0) + (second.totals.realization ?? 0), 2);
  });

  it('another user gets 404 on export, source and summary-export of my reports', async () => {
    for (const r of [
      await exportReport(stranger.token, report.id),
      await source(stranger.token, report.id),
      await summary(stranger.token, [report.id]),
    ]) {
      expect(r.statusCode).toBe(404);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('report_not_found');
    }
    // One foreign id among mine spoils the whole summary.
    expect((await summary(owner.token, [report.id, 'NOSUCHREPORT'])).statusCode).toBe(404);
  });
});
