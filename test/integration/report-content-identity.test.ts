/**
 * One week is one report, whatever the file (docs/METRICS.md), in-process against the emulators: the
 * real-layout week (fixtures/wb-detail-2022-49col.xlsx) and a generated 2026 week as .xlsx, .xls (written
 * by SheetJS), a zip and a renamed re-saved copy are one report with one charge (count-rows names it,
 * upload answers 409 `duplicate_report` without charging); a daily report inside the weekly one is
 * refused by combine and summary-export (422 `overlapping_reports`, shared_rows) and counted once by
 * analytics.
 */
import { readFileSync } from 'node:fs';
import * as XLSX from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { handler as analyticsHandler } from '../../functions/analytics/get.handler';
import { handler as putProductHandler } from '../../functions/products/put.handler';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { handler as summaryHandler } from '../../functions/reports/summary-export.handler';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { listAllReports } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import { ZipWriter } from '../../scripts/fixtures/zip-writer';
import { apiEvent, bodyOf } from '../support/test-event';
import { countMultipart, makeReport, newUser, uploadMultipart, uploadOk, type TestUser } from '../support/reports';

type File = { filename: string; file: Buffer };

const REAL = readFileSync('fixtures/wb-detail-2022-49col.xlsx');

function sheetOf(buf: Buffer): unknown[][] {
  const wb = XLSX.read(buf, { type: 'buffer' });
  return XLSX.utils.sheet_to_json(wb.Sheets[wb.SheetNames[0]!]!, { header: 1, raw: true });
}

function write(rows: unknown[][], bookType: 'xlsx' | 'xls'): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Sheet1');
  return XLSX.write(wb, { type: 'buffer', bookType, bookSST: bookType === 'xlsx' }) as Buffer;
}

function zipOf(name: string, data: Buffer): Buffer {
  const z = ZipWriter.toMemory();
  z.add(name, data);
  return z.finishToBuffer();
}

/** The same week as the other files a seller may have: xls, a zip of the xlsx, a renamed re-saved copy. */
function copiesOf(first: File): File[] {
  const rows = sheetOf(first.file);
  return [
    { filename: 'week.xls', file: write(rows, 'xls') },
    { filename: 'report.zip', file: zipOf(first.filename, first.file) },
    { filename: 'копия отчёта.xlsx', file: write(rows, 'xlsx') },
  ];
}

async function ledger(u: TestUser) {
  const [user, history, reports] = await Promise.all([
    getUserById(u.id),
    listLimitHistory(u.id, null, 100),
    listAllReports(u.id),
  ]);
  return { limits: user?.limits, history: history.items.length, reports: reports.map((r) => r.id).sort() };
}

async function oneReportOneCharge(first: File) {
  const u = await newUser(100_000);
  const report = await uploadOk(u.token, first);
  const before = await ledger(u);
  expect(before.reports).toEqual([report.id]);
  expect(before.limits).toBe(100_000 - report.rows);
  for (const copy of copiesOf(first)) {
    const counted = await countMultipart(u.token, copy);
    expect(counted.statusCode, copy.filename).toBe(200);
    expect(bodyOf(counted).duplicate_of, copy.filename).toMatchObject({ id: report.id });
    const refused = await uploadMultipart(u.token, copy);
    expect(refused.statusCode, `${copy.filename}: ${refused.body}`).toBe(409);
    const err = bodyOf<{ error: { code: string; details: Record<string, unknown> } }>(refused).error;
    expect(err).toMatchObject({ code: 'duplicate_report', details: { report_id: report.id } });
    expect(await ledger(u)).toEqual(before);
  }
  // allow_duplicate still uploads it (charged again), and the report keeps the same fingerprint.
  const again = await uploadOk(u.token, copiesOf(first)[0]!, { allow_duplicate: 'true' });
  const records = await listAllReports(u.id);
  const fps = records.map((r) => r.content_fingerprint);
  expect(fps[0]).toMatch(/^r1:/);
  expect(new Set(fps).size).toBe(1);
  expect((await ledger(u)).limits).toBe(100_000 - report.rows - again.rows);
  return { u, report, again };
}

describe('one week, any file: one report, one charge', () => {
  it('the real 2022 week as xlsx, xls, zip and a renamed re-saved copy', async () => {
    const { u, report, again } = await oneReportOneCharge({ filename: 'wb-detail-2022-49col.xlsx', file: REAL });
    // Analytics counts the allowed copy once.
    const a = await analyticsHandler(
      apiEvent({
        method: 'GET',
        path: '/api/analytics',
        token: u.token,
        query: { from: report.period_from!, to: report.period_to! },
      }),
    );
    const body = bodyOf<{ weeks: Array<{ report_ids: string[] }>; totals: { realization: number } }>(a);
    expect(body.weeks.flatMap((w) => w.report_ids)).toEqual([again.id]);
    expect(body.totals.realization).toBe(report.totals.realization);
  });

  it('a generated 2026 week (WB shape) as xlsx, xls, zip and renamed', async () => {
    const g = makeReport({ rows: 150, seed: 91, week: 2 });
    await oneReportOneCharge({ filename: g.filename, file: g.file });
  });
});

describe('a daily report inside the weekly one', () => {
  it('is refused at upload (the week’s rows); sent anyway, an overlap for combine and summary-export, counted once in analytics', async () => {
    const u = await newUser(100_000);
    const rows = sheetOf(REAL);
    const saleDt = (rows[0] as string[]).indexOf('Дата продажи');
    const day = String((rows[1] as unknown[])[saleDt]);
    const daily = write([rows[0]!, ...rows.slice(1).filter((r) => String(r[saleDt]) === day)], 'xlsx');
    expect(sheetOf(daily).length).toBeLessThan(rows.length);

    const week = await uploadOk(u.token, { filename: 'wb-detail-2022-49col.xlsx', file: REAL });
    // Its rows are the week's (WB's row ids): refused before any charge, naming the week.
    const refused = await uploadMultipart(u.token, { filename: 'день.xlsx', file: daily });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(bodyOf<{ error: { code: string; details: Record<string, unknown> } }>(refused).error).toMatchObject({
      code: 'duplicate_report',
      details: { report_id: week.id, reason: 'shared_rows' },
    });
    expect((await getUserById(u.id))?.limits).toBe(100_000 - week.rows);
    // Sent anyway (allow_duplicate), it is kept apart from the week everywhere it could count twice.
    const one = await uploadOk(u.token, { filename: 'день.xlsx', file: daily }, { allow_duplicate: 'true' });
    expect(one.period_from).toBe(day);

    const combine = await combineHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/combine',
        token: u.token,
        body: { report_ids: [week.id, one.id] },
      }),
    );
    expect(combine.statusCode, combine.body).toBe(422);
    const err = bodyOf<{ error: { code: string; details: { reason: string } } }>(combine).error;
    expect(err).toMatchObject({ code: 'overlapping_reports', details: { reason: 'shared_rows' } });
    const summary = await summaryHandler(
      apiEvent({
        method: 'POST',
        path: '/api/reports/summary-export',
        token: u.token,
        body: { report_ids: [one.id, week.id] },
      }),
    );
    expect(summary.statusCode, summary.body).toBe(422);

    const a = await analyticsHandler(
      apiEvent({
        method: 'GET',
        path: '/api/analytics',
        token: u.token,
        query: { from: week.period_from!, to: week.period_to! },
      }),
    );
    const body = bodyOf<{
      weeks: Array<{ report_ids: string[] }>;
      totals: { realization: number };
      warnings: Array<{ code: string; details: Record<string, unknown> }>;
    }>(a);
    expect(body.weeks.flatMap((w) => w.report_ids)).toEqual([week.id]);
    expect(body.totals.realization).toBe(week.totals.realization);
    expect(body.warnings).toContainEqual(
      expect.objectContaining({ code: 'duplicate_report', details: { report_id: one.id, kept_report_id: week.id } }),
    );
  });
});

type Job = { job_id: string; status: string; report_id?: string };

async function listed(token: string) {
  const r = await listHandler(apiEvent({ method: 'GET', path: '/api/reports', token }));
  expect(r.statusCode, r.body).toBe(200);
  const items = bodyOf<{ items: Array<{ id: string; stale?: boolean; stale_reason?: string | null }> }>(r).items;
  return new Map(items.map((i) => [i.id, i]));
}

/** The summary export's X-Stale-Reports header for these reports. */
async function staleInSummary(token: string, ids: string[]): Promise<string | undefined> {
  const r = await summaryHandler(
    apiEvent({ method: 'POST', path: '/api/reports/summary-export', token, body: { report_ids: ids } }),
  );
  expect(r.statusCode, r.body).toBe(200);
  return (r.headers as Record<string, string> | undefined)?.['X-Stale-Reports'];
}

describe('stale in the list', () => {
  it('an uploaded report after a cost price change; a combined report after a source rebuild; combine and the summary export say so', async () => {
    const u = await newUser(100_000);
    const g = makeReport({ rows: 80, seed: 71 });
    const a = await uploadOk(u.token, { filename: g.filename, file: g.file });
    const b = await uploadOk(u.token, { filename: 'wb-detail-2022-49col.xlsx', file: REAL });
    let r = await combineHandler(
      apiEvent({ method: 'POST', path: '/api/reports/combine', token: u.token, body: { report_ids: [a.id, b.id] } }),
    );
    expect(r.statusCode, r.body).toBe(202);
    let job = bodyOf<Job>(r);
    // Nothing chosen is stale: the combine says so.
    expect(bodyOf<{ stale_sources?: unknown[] }>(r).stale_sources).toEqual([]);
    for (let i = 0; i < 200 && job.status !== 'done' && job.status !== 'failed'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      r = await combineHandler(
        apiEvent({
          method: 'GET',
          path: `/api/reports/combine-status/${job.job_id}`,
          token: u.token,
          pathParameters: { job_id: job.job_id },
        }),
      );
      job = bodyOf<Job>(r);
    }
    const c = job.report_id as string;
    let list = await listed(u.token);
    expect([a.id, b.id, c].map((id) => list.get(id)?.stale)).toEqual([false, false, false]);

    // A cost price of one of a's articles changes: a is stale in the list, b is not.
    const article = g.expected.articles.find((x) => x.article !== '')!.article;
    const put = await putProductHandler(
      apiEvent({
        method: 'PUT',
        path: `/api/products/${encodeURIComponent(article)}`,
        token: u.token,
        body: { cost_price: 777 },
        pathParameters: { article: encodeURIComponent(article) },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);
    list = await listed(u.token);
    expect(list.get(a.id)).toMatchObject({ stale: true, stale_reason: expect.stringContaining('Себестоимость') });
    expect(list.get(b.id)?.stale).toBe(false);
    // The summary export and a combine of a and b say that a is stale (its numbers go in as they are).
    expect(await staleInSummary(u.token, [a.id, b.id])).toBe(a.id);
    const again = await combineHandler(
      apiEvent({ method: 'POST', path: '/api/reports/combine', token: u.token, body: { report_ids: [b.id, a.id] } }),
    );
    expect(again.statusCode, again.body).toBe(202);
    expect(bodyOf<{ stale_sources: unknown[] }>(again).stale_sources).toEqual([
      { id: a.id, title: a.title, reason: expect.stringContaining('Себестоимость') },
    ]);

    // Rebuilding a makes it fresh, and the combined report holding it stale.
    const rebuilt = await rebuildOneHandler(
      apiEvent({ method: 'POST', path: `/api/reports/${a.id}/rebuild`, token: u.token, pathParameters: { id: a.id } }),
    );
    expect(rebuilt.statusCode, rebuilt.body).toBe(200);
    list = await listed(u.token);
    expect(list.get(a.id)?.stale).toBe(false);
    expect(list.get(c)).toMatchObject({ stale: true, stale_reason: expect.stringContaining('пересобран') });
    expect(await staleInSummary(u.token, [a.id, b.id])).toBe('');
    expect(await staleInSummary(u.token, [c])).toBe(c);
  });
});
