/**
 * Issue 9, items 1, 4 and 6 in-process against the emulators: a report's identity (seller and report
 * number from the name, else the hash of the file) found by count-rows and refused by upload with
 * nothing charged; overlapping selections refused by combine and summary-export; a combined report
 * that goes stale when a source is corrected, rebuilt or deleted, and recombine; titles from the
 * period and PATCH /api/reports/{id}.
 */
import { describe, expect, it } from 'vitest';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { handler as deleteHandler } from '../../functions/reports/delete.handler';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { handler as summaryHandler } from '../../functions/reports/summary-export.handler';
import { handler as updateHandler } from '../../functions/reports/update.handler';
import { apiEvent, bodyOf } from '../support/test-event';
import type { ApiReport, ApiReportSummary } from '../../shared/reports/present-report';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { listAllReports } from '../../shared/store/reports.repo';
import { listSellers } from '../../shared/store/sellers.repo';
import { getUserById } from '../../shared/store/users.repo';
import {
  countMultipart,
  getReportOk,
  makeReport,
  newUser,
  presignedUpload,
  uploadById,
  uploadMultipart,
  uploadOk,
  type TestUser,
} from '../support/reports';

type Job = { job_id: string; status: string; report_id?: string; error?: { code: string } };

async function untilDone(token: string, first: Job): Promise<Job> {
  let job = first;
  for (let i = 0; i < 300 && job.status !== 'done' && job.status !== 'failed'; i++) {
    await new Promise((res) => setTimeout(res, 100));
    const r = await combineHandler(
      apiEvent({
        method: 'GET',
        path: `/api/reports/combine-status/${job.job_id}`,
        token,
        pathParameters: { job_id: job.job_id },
      }),
    );
    job = bodyOf<Job>(r);
  }
  return job;
}

const combine = (token: string, ids: string[]) =>
  combineHandler(apiEvent({ method: 'POST', path: '/api/reports/combine', token, body: { report_ids: ids } }));

async function combineOk(token: string, ids: string[]): Promise<string> {
  const r = await combine(token, ids);
  expect(r.statusCode, r.body).toBe(202);
  const job = await untilDone(token, bodyOf<Job>(r));
  expect(job.status).toBe('done');
  return job.report_id as string;
}

const recombine = (token: string, id: string) =>
  combineHandler(apiEvent({ method: 'POST', path: `/api/reports/${id}/recombine`, token, pathParameters: { id } }));

const summary = (token: string, ids: string[]) =>
  summaryHandler(apiEvent({ method: 'POST', path: '/api/reports/summary-export', token, body: { report_ids: ids } }));

const patch = (token: string, id: string, body: unknown) =>
  updateHandler(apiEvent({ method: 'PATCH', path: `/api/reports/${id}`, token, pathParameters: { id }, body }));

async function correct(token: string, report: ApiReport, value: number) {
  const item = report.items[0]!;
  const r = await manualValueHandler(
    apiEvent({
      method: 'PUT',
      path: `/api/reports/items/${item.item_id}/manual-value`,
      token,
      pathParameters: { item_id: item.item_id },
      body: { field: 'logistics', value },
    }),
  );
  expect(r.statusCode, r.body).toBe(200);
}

async function ledger(u: TestUser) {
  const [user, history, reports] = await Promise.all([
    getUserById(u.id),
    listLimitHistory(u.id, null, 100),
    listAllReports(u.id),
  ]);
  return { limits: user?.limits, history: history.items.length, reports: reports.map((r) => r.id).sort() };
}

/** The numbers a user sees of a report: items by article (effective values) and totals. */
function numbers(r: ApiReport) {
  const items = [...r.items].sort((a, b) => a.article.localeCompare(b.article));
  return { items: items.map((i) => [i.article, i.effective, i.manual_values]), totals: r.totals, rows: r.rows };
}

describe('duplicates: the same report as zip, xlsx and xls', () => {
  it('count-rows names the existing report; upload refuses with 409 and charges nothing; allow_duplicate charges', async () => {
    const u = await newUser(10_000);
    const xlsx = makeReport({ rows: 90, seed: 61, format: 'xlsx' });
    const zip = makeReport({ rows: 90, seed: 61, format: 'zip' });
    const xls = makeReport({ rows: 90, seed: 61, format: 'xls' });
    // One week, three containers: the name carries the same numbers, the bytes differ.
    expect(new Set([xlsx.filename, zip.filename, xls.filename]).size).toBe(3);
    expect(zip.expected.report_number).toBe(xlsx.expected.report_number);
    expect(Buffer.compare(zip.file, xlsx.file)).not.toBe(0);

    const fresh = await countMultipart(u.token, xlsx);
    expect(bodyOf(fresh).duplicate_of).toBeNull();
    const first = await uploadOk(u.token, xlsx);
    const before = await ledger(u);
    expect(before.limits).toBe(10_000 - xlsx.expected.rows);

    for (const copy of [zip, xls]) {
      const counted = await countMultipart(u.token, copy);
      expect(counted.statusCode).toBe(200);
      expect(bodyOf(counted).duplicate_of).toEqual({ id: first.id, title: first.title, created_at: first.created_at });

      const refused = await uploadMultipart(u.token, copy);
      expect(refused.statusCode, refused.body).toBe(409);
      const err = bodyOf<{ error: { code: string; details: Record<string, unknown> } }>(refused).error;
      expect(err.code).toBe('duplicate_report');
      expect(err.details.report_id).toBe(first.id);
      // Limits, their history and the reports are exactly as before.
      expect(await ledger(u)).toEqual(before);
    }

    // By upload id too (JSON body): refused, then allowed with allow_duplicate: true.
    const uploadId = await presignedUpload(u.token, zip);
    const byId = await uploadById(u.token, uploadId);
    expect(byId.statusCode).toBe(409);
    expect(await ledger(u)).toEqual(before);
    const allowed = await uploadById(u.token, uploadId, { allow_duplicate: true });
    expect(allowed.statusCode, allowed.body).toBe(201);
    const second = bodyOf<{ report: ApiReport }>(allowed).report;
    const after = await ledger(u);
    expect(after.limits).toBe((before.limits as number) - zip.expected.rows);
    expect(after.history).toBe(before.history + 1);
    expect(after.reports).toEqual([...before.reports, second.id].sort());

    // The multipart field charges the xls copy as well.
    const third = await uploadOk(u.token, xls, { allow_duplicate: 'true' });
    expect((await ledger(u)).limits).toBe((before.limits as number) - zip.expected.rows - xls.expected.rows);

    // Deleting every copy forgets the identity: the week is new again. A copy of a week an older report
    // holds is refunded its rows when deleted (the copies first); the first one is not.
    const del = async (id: string) => {
      await getReportOk(u.token, id);
      const d = await deleteHandler(
        apiEvent({ method: 'DELETE', path: `/api/reports/${id}`, token: u.token, pathParameters: { id } }),
      );
      expect(d.statusCode).toBe(204);
    };
    await del(third.id);
    await del(second.id);
    expect((await ledger(u)).limits).toBe(before.limits);
    const refunds = (await listLimitHistory(u.id, null, 100)).items.filter((h) => h.operation === 'refund');
    expect(refunds.map((h) => h.rows).sort()).toEqual([xls.expected.rows, zip.expected.rows].sort());
    await del(first.id);
    expect((await ledger(u)).limits).toBe(before.limits);
    expect(bodyOf((await countMultipart(u.token, xls)) as { body?: string }).duplicate_of).toBeNull();
    // Another user's copy is not mine.
    const other = await newUser(10_000);
    await uploadOk(other.token, xlsx);
    expect(bodyOf(await countMultipart(u.token, xlsx)).duplicate_of).toBeNull();
  });

  it('two uploads of one report at once: never both stored, and limits charged once at most', async () => {
    const u = await newUser(10_000);
    const g = makeReport({ rows: 60, seed: 71, format: 'xlsx' });
    const zip = makeReport({ rows: 60, seed: 71, format: 'zip' });
    const answers = await Promise.all([uploadMultipart(u.token, g), uploadMultipart(u.token, zip)]);
    const codes = answers.map((r) => r.statusCode).sort();
    const created = codes.filter((c) => c === 201).length;
    expect(created).toBeLessThanOrEqual(1);
    expect(codes.filter((c) => c === 409).length).toBe(2 - created);
    const after = await ledger(u);
    expect(after.reports).toHaveLength(created);
    // A loser charged before it saw the winner is refunded exactly once: net charge = stored reports only.
    expect(after.limits).toBe(10_000 - created * g.expected.rows);
  });

  it('a file without numbers in its name: titled by its period, found again by its hash', async () => {
    const u = await newUser(10_000);
    const g = makeReport({ rows: 70, seed: 62, format: 'xlsx' });
    const plain = { filename: 'report.xlsx', file: g.file };
    const report = await uploadOk(u.token, plain);
    expect(report.report_number).toBeNull();
    const [from, to] = [g.expected.period_from as string, g.expected.period_to as string];
    const ru = (d: string) => `${d.slice(8, 10)}.${d.slice(5, 7)}`;
    expect(report.title).toBe(`Отчёт за ${ru(from)}–${ru(to)}.${to.slice(0, 4)}`);

    const copy = { filename: 'еще раз.xlsx', file: g.file };
    expect(bodyOf(await countMultipart(u.token, copy)).duplicate_of).toMatchObject({ id: report.id });
    const before = await ledger(u);
    expect((await uploadMultipart(u.token, copy)).statusCode).toBe(409);
    expect(await ledger(u)).toEqual(before);
    // Other bytes without numbers: another report.
    const other = makeReport({ rows: 70, seed: 63, format: 'xlsx' });
    expect(
      bodyOf(await countMultipart(u.token, { filename: 'report.xlsx', file: other.file })).duplicate_of,
    ).toBeNull();
  });
});

describe('overlapping selections', () => {
  it('combine and summary-export refuse the same report twice, and a combined report with its source', async () => {
    const u = await newUser(10_000);
    const a = await uploadOk(u.token, makeReport({ rows: 60, seed: 64 }));
    const aCopy = await uploadOk(u.token, makeReport({ rows: 60, seed: 64, format: 'zip' }), {
      allow_duplicate: 'true',
    });
    const b = await uploadOk(u.token, makeReport({ rows: 60, seed: 65 }));
    const reportsBefore = (await listAllReports(u.id)).length;

    for (const send of [combine, summary]) {
      const r = await send(u.token, [a.id, b.id, aCopy.id]);
      expect(r.statusCode, r.body).toBe(422);
      const err = bodyOf<{ error: { code: string; details: Record<string, unknown> } }>(r).error;
      expect(err.code).toBe('overlapping_reports');
      expect(err.details).toMatchObject({ report_ids: [a.id, aCopy.id], reason: 'same_report' });
    }
    expect((await listAllReports(u.id)).length).toBe(reportsBefore);

    const c = await combineOk(u.token, [a.id, b.id]);
    for (const send of [combine, summary]) {
      const r = await send(u.token, [c, b.id]);
      expect(r.statusCode).toBe(422);
      expect(bodyOf<{ error: { details: Record<string, unknown> } }>(r).error.details).toMatchObject({
        report_ids: [c, b.id],
        reason: 'combined_with_source',
      });
      // The other copy of a source overlaps too (same identity).
      const copy = await send(u.token, [aCopy.id, c]);
      expect(copy.statusCode).toBe(422);
    }
    // A clean selection still works.
    expect((await summary(u.token, [c])).statusCode).toBe(200);
  });
});

describe('combined reports stay honest', () => {
  it('goes stale on a correction, a rebuild and a deletion of a source; recombine equals a fresh combine', async () => {
    const u = await newUser(10_000);
    const a = await uploadOk(u.token, makeReport({ rows: 80, seed: 66 }));
    const b = await uploadOk(u.token, makeReport({ rows: 80, seed: 67, layout: '2025' }));
    const c = await combineOk(u.token, [a.id, b.id]);
    const fresh = await getReportOk(u.token, c);
    expect(fresh.stale).toBe(false);
    expect(fresh.stale_reason).toBeNull();
    expect(fresh.stale_sources).toEqual([]);

    // 1. A correction of a source.
    await correct(u.token, a, 1234.5);
    let got = await getReportOk(u.token, c);
    expect(got.stale).toBe(true);
    expect(got.stale_sources).toEqual([{ id: a.id, title: a.title, change: 'corrected' }]);
    expect(got.stale_reason).toContain(`«${a.title}» исправлен вручную`);

    // A rename of a source changes no numbers: still only the correction.
    expect((await patch(u.token, b.id, { title: 'Неделя B' })).statusCode).toBe(200);
    expect((await getReportOk(u.token, c)).stale_sources).toHaveLength(1);

    // Recombine: the same report, fresh again, with the numbers of a new combine of the current sources.
    const r = await recombine(u.token, c);
    expect(r.statusCode, r.body).toBe(202);
    const job = await untilDone(u.token, bodyOf<Job>(r));
    expect(job).toMatchObject({ status: 'done', report_id: c });
    got = await getReportOk(u.token, c);
    expect(got.stale).toBe(false);
    const control = await getReportOk(u.token, await combineOk(u.token, [a.id, b.id]));
    expect(numbers(got)).toEqual(numbers(control));
    expect(numbers(got)).not.toEqual(numbers(fresh));

    // 2. A rebuild of a source.
    const rebuilt = await rebuildOneHandler(
      apiEvent({ method: 'POST', path: `/api/reports/${b.id}/rebuild`, token: u.token, pathParameters: { id: b.id } }),
    );
    expect(rebuilt.statusCode).toBe(200);
    got = await getReportOk(u.token, c);
    expect(got.stale).toBe(true);
    expect(got.stale_sources).toEqual([{ id: b.id, title: 'Неделя B', change: 'rebuilt' }]);
    expect(got.stale_reason).toContain('«Неделя B» пересобран');

    // 3. A deletion of a source: stale, and recombine is 409 source_missing naming it.
    const d = await deleteHandler(
      apiEvent({ method: 'DELETE', path: `/api/reports/${a.id}`, token: u.token, pathParameters: { id: a.id } }),
    );
    expect(d.statusCode).toBe(204);
    got = await getReportOk(u.token, c);
    expect(got.stale).toBe(true);
    expect(got.stale_sources).toEqual(
      expect.arrayContaining([
        { id: a.id, title: null, change: 'deleted' },
        { id: b.id, title: 'Неделя B', change: 'rebuilt' },
      ]),
    );
    const missing = await recombine(u.token, c);
    expect(missing.statusCode).toBe(409);
    expect(bodyOf<{ error: { code: string; details: unknown } }>(missing).error).toMatchObject({
      code: 'source_missing',
      details: { report_ids: [a.id] },
    });

    // Recombining an uploaded report, or another user's combined report, is refused.
    expect((await recombine(u.token, b.id)).statusCode).toBe(422);
    const other = await newUser(1000);
    expect((await recombine(other.token, c)).statusCode).toBe(404);
  });
});

describe('PATCH /api/reports/{id}', () => {
  it('renames, links to and unlinks from the caller’s seller; a foreign seller or report is a 404', async () => {
    const u = await newUser(10_000);
    const withSeller = await uploadOk(u.token, makeReport({ rows: 50, seed: 68 }));
    const g = makeReport({ rows: 50, seed: 69 });
    const plain = await uploadOk(u.token, { filename: 'отчёт.xlsx', file: g.file });
    expect(plain.seller).toBeNull();
    const [seller] = await listSellers(u.id);
    expect(seller!.id).toBe(withSeller.seller?.id);

    const r = await patch(u.token, plain.id, { title: '  Май, неделя 3 ', seller_id: seller!.id });
    expect(r.statusCode, r.body).toBe(200);
    const summary = bodyOf<{ report: ApiReportSummary }>(r).report;
    expect(summary).toMatchObject({ id: plain.id, title: 'Май, неделя 3', seller: { id: seller!.id } });
    const got = await getReportOk(u.token, plain.id);
    expect(got.title).toBe('Май, неделя 3');
    expect(got.seller?.id).toBe(seller!.id);
    // Listed under the seller now.
    const bySeller = await listHandler(
      apiEvent({ method: 'GET', path: '/api/reports', token: u.token, query: { seller_id: seller!.id } }),
    );
    expect(bodyOf<{ items: ApiReportSummary[] }>(bySeller).items.map((x) => x.id)).toContain(plain.id);

    // Another user's seller → 404, nothing changes.
    const other = await newUser(10_000);
    await uploadOk(other.token, makeReport({ rows: 50, seed: 70 }));
    const [foreign] = await listSellers(other.id);
    const refused = await patch(u.token, plain.id, { seller_id: foreign!.id });
    expect(refused.statusCode).toBe(404);
    expect(bodyOf<{ error: { code: string } }>(refused).error.code).toBe('seller_not_found');
    expect((await getReportOk(u.token, plain.id)).seller?.id).toBe(seller!.id);
    // Another user's report → 404.
    expect((await patch(other.token, plain.id, { title: 'чужой' })).statusCode).toBe(404);
    // Empty patch and empty title → 400.
    expect((await patch(u.token, plain.id, {})).statusCode).toBe(400);
    expect((await patch(u.token, plain.id, { title: '   ' })).statusCode).toBe(400);

    // Unlink.
    const unlinked = await patch(u.token, plain.id, { seller_id: null });
    expect(unlinked.statusCode).toBe(200);
    expect((await getReportOk(u.token, plain.id)).seller).toBeNull();
    const again = await listHandler(
      apiEvent({ method: 'GET', path: '/api/reports', token: u.token, query: { seller_id: seller!.id } }),
    );
    expect(bodyOf<{ items: ApiReportSummary[] }>(again).items.map((x) => x.id)).not.toContain(plain.id);
  });
});
