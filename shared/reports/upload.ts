/**
 * Uploading a report (API.md: count-rows, upload) and the upload URL.
 */
import { getConfig } from '../config';
import { badRequest, paymentRequired } from '../errors';
import {
  buildItems,
  commissionByCategory,
  computeTotals,
  countRows,
  readReport,
  type ParsedReport,
  type ReadLimits,
  type RowCount,
} from '../report';
import { log } from '../log';
import { countMetric, durationMetric } from '../metrics';
import { chargeLimits } from '../store/limits.repo';
import { writeItems, type StoredItem } from '../store/items.repo';
import { ensureProducts } from '../store/products.repo';
import { markReportReady, newReportId, reportPutTransactItem, type ReportRecord } from '../store/reports.repo';
import { ensureSellerByNumber, type SellerRecord } from '../store/sellers.repo';
import { createUpload } from '../store/uploads.repo';
import type { UserRecord } from '../store/users.repo';
import {
  assertAcceptedName,
  assertAcceptedSize,
  cleanFilename,
  openInputFile,
  type FileRef,
  type InputFile,
} from './file-input';
import { dropUnusedSeller, recoverAbandonedUploads, undoChargedUpload } from './recover';
import { duplicateReport, findDuplicate, identityOfFile, type DuplicateOf } from './duplicates';
import { identityPutTransactItem } from '../store/identities.repo';
import { periodTitle } from './report-identity';
import { loadReportCostPrices, resolveReportSettings } from './settings';
import { copyObject, deleteObject, presignPut, putObject, sourceObjectKey } from './storage';

export const UPLOAD_URL_TTL_SECONDS = 900;

export interface UploadUrlResult {
  upload_id: string;
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expires_in: number;
}

/**
 * A presigned PUT for `uploads/<user_id>/<upload_id>/<filename>`. Wrong extension → 415; size over
 * MAX_UPLOAD_BYTES → 413. The declared size is part of the signature.
 */
export async function createUploadUrl(
  userId: string,
  input: { filename: string; size: number },
): Promise<UploadUrlResult> {
  const filename = cleanFilename(input.filename);
  if (filename === '') throw badRequest('validation_error', 'filename is empty');
  assertAcceptedName(filename);
  assertAcceptedSize(input.size);
  const upload = await createUpload(userId, filename, input.size);
  const url = await presignPut(upload.key, input.size, UPLOAD_URL_TTL_SECONDS);
  return { upload_id: upload.upload_id, url, method: 'PUT', headers: {}, expires_in: UPLOAD_URL_TTL_SECONDS };
}

function readLimits(): Partial<ReadLimits> {
  return { maxCompressedBytes: getConfig().MAX_UPLOAD_BYTES };
}

export interface CountResult {
  rows: number;
  limits: number;
  limits_after: number;
  enough: boolean;
  format: RowCount['format'];
  report_number: string | null;
  seller_number: string | null;
  /** The caller's report with the same identity (issue 9), or null. */
  duplicate_of: DuplicateOf | null;
}

/** count-rows: the rows the upload would cost against the caller's limits. Charges and stores nothing. */
export async function countReportRows(user: UserRecord, ref: FileRef | null): Promise<CountResult> {
  const file = await openInputFile(user.id, ref);
  try {
    const [c, duplicateOf] = await Promise.all([
      countRows(file.source, readLimits()),
      identityOfFile(file).then((identity) => findDuplicate(user.id, identity)),
    ]);
    return {
      rows: c.rows,
      limits: user.limits,
      limits_after: Math.max(0, user.limits - c.rows),
      enough: c.rows <= user.limits,
      format: c.format,
      report_number: c.report_number,
      seller_number: c.seller_number,
      duplicate_of: duplicateOf,
    };
  } finally {
    await file.cleanup();
  }
}

/** Test seam: runs after the charge and the items are written, before the report is marked ready. */
export interface UploadHooks {
  afterCharge?: (reportId: string) => Promise<void>;
}
export const uploadHooks: UploadHooks = {};

export interface UploadResult {
  record: ReportRecord;
  items: StoredItem[];
  seller: SellerRecord | null;
}

function titleOf(filename: string): string {
  return filename.replace(/\.(zip|xlsx|xls)$/i, '') || filename;
}

/** A report number in the name: the file name; else the period («Отчёт за 18.05–24.05.2026»); else the name. */
function reportTitle(filename: string, parsed: ParsedReport): string {
  if (parsed.report_number) return titleOf(filename);
  return periodTitle(parsed.period_from, parsed.period_to) ?? titleOf(filename);
}

export interface UploadOptions {
  /** Upload even when the user already has a report of the same identity (else 409 `duplicate_report`). */
  allowDuplicate?: boolean;
}

/**
 * upload: recount, 402 when the caller's limits are short (nothing stored or charged); else store
 * the source file, link the seller, build the items with the seller's (or the user's) tax profile and
 * the catalog's cost prices, then charge limits in ONE transaction with the `expense` record and the
 * report record (state `building`), write the items and mark the report ready.
 * Anything failing after the charge: the charge is refunded, the items, the stored source and the
 * record deleted (recover.ts); the original error is answered. First, uploads of this user whose
 * process died mid-way are undone (recover.ts), so their charge counts again for this one.
 */
export async function uploadReport(
  user: UserRecord,
  ref: FileRef | null,
  options: UploadOptions = {},
): Promise<UploadResult> {
  const started = Date.now();
  const swept = await recoverAbandonedUploads(user.id);
  const limits = user.limits + swept.refunded_rows;
  const file = await openInputFile(user.id, ref);
  try {
    // A duplicate is refused before the file is parsed or anything is charged (issue 9).
    const identity = await identityOfFile(file);
    if (!options.allowDuplicate) {
      const dup = await findDuplicate(user.id, identity);
      if (dup) throw duplicateReport(dup);
    }
    const parsed = await readReport(file.source, readLimits());
    // An early answer for the common case; the charge's condition is what holds under concurrency.
    if (parsed.rows > limits) throw paymentRequired(parsed.rows, limits);
    const result = await storeReport(user, file, parsed, identity, options.allowDuplicate === true);
    countMetric('Uploads');
    countMetric('RowsProcessed', parsed.rows);
    durationMetric('UploadDuration', Date.now() - started);
    log('info', 'report uploaded', { report_id: result.record.id, rows: parsed.rows, format: parsed.format });
    return result;
  } finally {
    await file.cleanup();
  }
}

async function storeReport(
  user: UserRecord,
  file: InputFile,
  parsed: ParsedReport,
  identity: string,
  allowDuplicate: boolean,
): Promise<UploadResult> {
  const userId = user.id;
  const reportId = newReportId();
  const sourceKey = sourceObjectKey(userId, reportId, file.filename);
  const articles = parsed.articles.map((a) => a.article);

  const prices = loadReportCostPrices(userId, parsed, articles);
  const [seller] = await Promise.all([
    parsed.seller_number ? ensureSellerByNumber(userId, parsed.seller_number) : Promise.resolve(null),
    prices,
    file.origin.kind === 'upload' ? copyObject(file.origin.key, sourceKey) : putObject(sourceKey, file.origin.buffer),
  ]);
  const resolved = await resolveReportSettings(user, seller, parsed, articles, prices);
  const tax = resolved.settings.tax;
  const { items, allocation, warnings } = buildItems(parsed, resolved.settings);
  const record: ReportRecord = {
    id: reportId,
    user_id: userId,
    title: reportTitle(file.filename, parsed),
    report_number: parsed.report_number,
    seller_id: seller?.id ?? null,
    period_from: parsed.period_from,
    period_to: parsed.period_to,
    rows: parsed.rows,
    format: parsed.format,
    is_combined: false,
    identity,
    source_path: sourceKey,
    source_name: file.filename,
    source_size: file.size,
    created_at: new Date().toISOString(),
    tax_profile: tax,
    allocation,
    totals: computeTotals(items.map((i) => i.effective)),
    commission_by_category: commissionByCategory(items),
    // The settings' warnings first: the record keeps a capped number of them.
    warnings: [...resolved.warnings, ...warnings, ...parsed.warnings],
    item_count: items.length,
  };

  try {
    await chargeLimits({
      userId,
      rows: parsed.rows,
      reportId,
      extraItems: [
        reportPutTransactItem(record),
        identityPutTransactItem(userId, identity, reportId, record.created_at),
      ],
    });
  } catch (e) {
    await deleteObject(sourceKey).catch((err: unknown) =>
      log('error', 'source cleanup failed', { report_id: reportId, error: String(err) }),
    );
    await dropUnusedSeller(userId, seller?.id);
    throw e;
  }

  let stored: StoredItem[];
  try {
    // Missing articles join the catalog with cost price 0 (METRICS.md); after the charge, so a refused upload adds nothing.
    const [, written] = await Promise.all([
      ensureProducts(userId, missingArticles(articles, resolved.known)),
      writeItems(userId, reportId, 1, items),
    ]);
    stored = written;
    if (!allowDuplicate) {
      // Two uploads of one report at once both pass the early check; each wrote its identity record in
      // its charge, so at least one sees the other here and is undone (refunded once) as a duplicate.
      const rival = await findDuplicate(userId, identity, reportId);
      if (rival) throw duplicateReport(rival);
    }
    if (uploadHooks.afterCharge) await uploadHooks.afterCharge(reportId);
    await markReportReady(userId, reportId);
  } catch (e) {
    await undoChargedUpload(userId, reportId);
    throw e;
  }
  if (file.origin.kind === 'upload') {
    // The upload is consumed; its object would otherwise stay in the bucket forever.
    await deleteObject(file.origin.key).catch(() => undefined);
  }
  return { record: { ...record, status: 'ready', items_gen: 1, version: 1 }, items: stored, seller };
}

/** Articles without a catalog entry (the catalog is read once; ensureProducts re-checks each before writing). */
export function missingArticles(articles: readonly string[], known: ReadonlySet<string>): string[] {
  return articles.filter((a) => !known.has(a));
}
