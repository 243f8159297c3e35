/**
 * Helpers of the reports integration suites: users with tokens, generated reports sent through the
 * upload route (multipart or presigned PUT), and the engine's own numbers for the same file.
 */
import { randomUUID } from 'node:crypto';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { handler as countRowsHandler } from '../../functions/reports/count-rows.handler';
import { handler as getHandler } from '../../functions/reports/get.handler';
import { handler as uploadHandler } from '../../functions/reports/upload.handler';
import { handler as uploadUrlHandler } from '../../functions/reports/upload-url.handler';
import { signToken } from '../../shared/auth/tokens';
import { bucketName, s3 } from '../../shared/files/client';
import { apiEvent, bodyOf, multipartBody } from './test-event';
import {
  buildItems,
  computeTotals,
  kopecksToRoubles,
  readReport,
  type ComputedItem,
  type TaxProfile,
} from '../../shared/engine';
import type { ApiItem, ApiReport } from '../../shared/reports/present-report';
import { DEFAULT_TAX_PROFILE } from '../../shared/engine/types';
import { putObject, sourceObjectKey } from '../../shared/files/objects';
import { writeItems } from '../../shared/store/items.repo';
import { chargeLimits } from '../../shared/store/limits.repo';
import { newReportId, type ReportRecord } from '../../shared/store/report-record';
import { processingReportPut } from '../../shared/store/report-lifecycle.repo';
import { createUser } from '../../shared/store/users.repo';
import { generateReport, type GenerateOptions, type GeneratedReport } from '../../scripts/fixtures/generate';

export interface TestUser {
  id: string;
  token: string;
}

export async function newUser(limits = 100_000, tag = 'reports'): Promise<TestUser> {
  const u = await createUser({ email: `${tag}-${randomUUID()}@example.com`, confirmed: true, limits });
  return { id: u.id, token: signToken({ user_id: u.id }, 'access') };
}

export function makeReport(opts: Partial<GenerateOptions> = {}): GeneratedReport {
  return generateReport({ rows: 120, layout: '2026', format: 'xlsx', seed: 7, ...opts });
}

/** Multipart upload; `fields` are extra form fields (e.g. `{allow_duplicate: 'true'}`). */
export function uploadMultipart(
  token: string,
  file: { filename: string; file: Buffer },
  fields: Record<string, string> = {},
) {
  const { body, contentType } = multipartBody({ filename: file.filename, content: file.file }, fields);
  return uploadHandler(
    apiEvent({ method: 'POST', path: '/api/reports/upload', token, body, headers: { 'content-type': contentType } }),
  );
}

export function countMultipart(token: string, file: { filename: string; file: Buffer }) {
  const { body, contentType } = multipartBody({ filename: file.filename, content: file.file });
  return countRowsHandler(
    apiEvent({
      method: 'POST',
      path: '/api/reports/count-rows',
      token,
      body,
      headers: { 'content-type': contentType },
    }),
  );
}

/** upload-url → PUT the bytes to the presigned URL (like a browser) → the upload id. */
export async function presignedUpload(token: string, file: { filename: string; file: Buffer }): Promise<string> {
  const r = await uploadUrlHandler(
    apiEvent({
      method: 'POST',
      path: '/api/reports/upload-url',
      token,
      body: { filename: file.filename, size: file.file.length },
    }),
  );
  expect(r.statusCode).toBe(200);
  const target = bodyOf<{ upload_id: string; url: string; method: string; headers: Record<string, string> }>(r);
  const put = await fetch(target.url, { method: target.method, body: file.file, headers: target.headers });
  expect(put.status).toBe(200);
  return target.upload_id;
}

export function uploadById(token: string, uploadId: string, extra: Record<string, unknown> = {}) {
  return uploadHandler(
    apiEvent({ method: 'POST', path: '/api/reports/upload', token, body: { upload_id: uploadId, ...extra } }),
  );
}

/** Uploads a generated report by multipart and returns the API's report (asserting 201). */
export async function uploadOk(
  token: string,
  file: { filename: string; file: Buffer },
  fields: Record<string, string> = {},
): Promise<ApiReport> {
  const r = await uploadMultipart(token, file, fields);
  if (r.statusCode !== 201) throw new Error(`upload answered ${r.statusCode}: ${r.body}`);
  return bodyOf<{ report: ApiReport }>(r).report;
}

/** GET /reports/{id} for its owner (asserting 200): the API's report. */
export async function getReportOk(token: string, id: string): Promise<ApiReport> {
  const r = await getHandler(apiEvent({ method: 'GET', path: `/api/reports/${id}`, token, pathParameters: { id } }));
  expect(r.statusCode).toBe(200);
  return bodyOf<{ report: ApiReport }>(r).report;
}

/** Whether the files bucket holds an object under key. */
export async function objectExists(key: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** The engine's items for a file under given settings (what the API must show). */
export async function engineItems(
  file: { filename: string; file: Buffer },
  tax: TaxProfile,
  costPrices: Record<string, number> = {},
): Promise<ComputedItem[]> {
  const parsed = await readReport({ buffer: file.file, filename: file.filename });
  return buildItems(parsed, { tax, costPrices }).items;
}

export function engineTotals(items: ComputedItem[]) {
  return computeTotals(items.map((i) => i.effective));
}

/** A kopeck value of an aggregate as the API shows it (roubles; counts as is). */
export const rub = (kopecks: number): number => kopecksToRoubles(kopecks);

/** Items of an API report keyed by article. */
export function byArticle(items: ApiItem[]): Map<string, ApiItem> {
  return new Map(items.map((i) => [i.article, i]));
}

export interface ChargedProcessingReport {
  id: string;
  sourceKey: string;
  rows: number;
}

/**
 * An upload its worker is still building: the limits charged together with the `processing` record
 * (its lease running for an hour, so no sweep takes it), the source stored; with `itemsWritten`, the
 * items a worker writes before it finishes.
 */
export async function chargedProcessingReport(
  userId: string,
  g: GeneratedReport,
  itemsWritten = false,
): Promise<ChargedProcessingReport> {
  const parsed = await readReport({ buffer: g.file, filename: g.filename });
  const { items } = buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
  const id = newReportId();
  const sourceKey = sourceObjectKey(userId, id, g.filename);
  await putObject(sourceKey, g.file);
  const record: ReportRecord = {
    id,
    user_id: userId,
    title: 'upload in progress',
    report_number: parsed.report_number,
    seller_id: null,
    period_from: parsed.period_from,
    period_to: parsed.period_to,
    rows: parsed.rows,
    format: parsed.format,
    is_combined: false,
    source_path: sourceKey,
    source_name: g.filename,
    source_size: g.file.length,
    created_at: new Date().toISOString(),
    tax_profile: DEFAULT_TAX_PROFILE,
    totals: computeTotals(items.map((i) => i.effective)),
    commission_by_category: [],
    warnings: [],
    item_count: 0,
  };
  await chargeLimits({
    userId,
    rows: parsed.rows,
    reportId: id,
    extraItems: [processingReportPut(record, randomUUID(), 60 * 60_000)],
  });
  if (itemsWritten) await writeItems(userId, id, 1, items);
  return { id, sourceKey, rows: parsed.rows };
}
