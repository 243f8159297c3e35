/**
 * Rebuilding reports (API.md: POST /api/reports/{id}/rebuild and POST /api/reports/rebuild).
 * Input: the caller and a report id. Output: the rebuilt report and the corrections whose article is
 * gone. Steps: the stored source (409 `source_missing` without one) → re-parse → CURRENT catalog cost
 * prices and tax profile → the old items' manual values re-applied by article → the new items written
 * as the next generation and switched to in one conditional update (reports.repo.ts replaceItems), so
 * a failure leaves the report as it was. Charges no limits.
 */
import { getConfig } from '../config';
import { AppError, conflict, toAppError } from '../errors';
import {
  buildItems,
  commissionByCategory,
  computeTotals,
  readReport,
  type DroppedManualValue,
  type ManualValues,
} from '../report';
import { log } from '../log';
import { countMetric, durationMetric } from '../metrics';
import { ensureProducts } from '../store/products.repo';
import { getReportItems, isReportId, listAllReports, replaceItems, type ReportRecord } from '../store/reports.repo';
import type { StoredItem } from '../store/items.repo';
import type { SellerRecord } from '../store/sellers.repo';
import type { UserRecord } from '../store/users.repo';
import { requireReport, sellerOf } from './queries';
import { resolveReportSettings } from './settings';
import { downloadToTemp } from './storage';
import { missingArticles } from './upload';

const MAX_ATTEMPTS = 3;

export const sourceMissing = () => conflict('source_missing', 'The report has no stored source file to rebuild from');

export interface RebuildResult {
  record: ReportRecord;
  items: StoredItem[];
  seller: SellerRecord | null;
  /** In storage units (kopecks for money). */
  dropped: DroppedManualValue[];
}

function manualByArticle(items: ReadonlyArray<StoredItem>): Record<string, ManualValues> {
  const out: Record<string, ManualValues> = {};
  for (const it of items) if (Object.keys(it.manual_values ?? {}).length > 0) out[it.article] = it.manual_values;
  return out;
}

export async function rebuildReport(user: UserRecord, reportId: string): Promise<RebuildResult> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const record = await requireReport(user.id, reportId);
    if (!record.source_path || record.is_combined) throw sourceMissing();
    const local = await downloadToTemp(record.source_path, record.source_name ?? 'source');
    if (!local) throw sourceMissing();
    let parsed;
    try {
      parsed = await readReport(
        { path: local.path, filename: record.source_name ?? undefined },
        { maxCompressedBytes: getConfig().MAX_UPLOAD_BYTES },
      );
    } finally {
      await local.cleanup();
    }
    const articles = parsed.articles.map((a) => a.article);
    const [seller, oldItems] = await Promise.all([sellerOf(user.id, record), getReportItems(record)]);
    const resolved = await resolveReportSettings(user, seller, parsed, articles);
    const tax = resolved.settings.tax;
    const { items, dropped, allocation, warnings } = buildItems(parsed, resolved.settings, manualByArticle(oldItems));
    const [, replaced] = await Promise.all([
      ensureProducts(user.id, missingArticles(articles, resolved.known)),
      replaceItems(record, items, {
        tax_profile: tax,
        allocation,
        totals: computeTotals(items.map((i) => i.effective)),
        commission_by_category: commissionByCategory(items),
        warnings: [...resolved.warnings, ...warnings, ...parsed.warnings],
        rows: parsed.rows,
        period_from: parsed.period_from,
        period_to: parsed.period_to,
        report_number: parsed.report_number,
        format: parsed.format,
        rebuilt_at: new Date().toISOString(),
      }),
    ]);
    if (replaced) {
      countMetric('RowsProcessed', parsed.rows);
      durationMetric('RebuildDuration', Date.now() - started);
      return { record: replaced.record, items: replaced.items, seller, dropped };
    }
    // A correction or another rebuild changed the report meanwhile: start over from its new state.
    if (attempt >= MAX_ATTEMPTS)
      throw conflict('report_busy', 'The report is being changed by another request; try again');
  }
}

export interface RebuildManyResult {
  rebuilt: string[];
  skipped: Array<{ id: string; reason: string }>;
}

/**
 * How long one rebuild-many request may keep starting rebuilds: API Gateway answers 504 after 29 s, and
 * one big report can take several seconds to rebuild. Reports not reached are skipped as `time_limit`;
 * the caller sends their ids again.
 */
export const REBUILD_MANY_BUDGET_MS = 18_000;

/**
 * Rebuilds the listed reports, or every report of the caller with a stored source when no ids are
 * given. One at a time (each parse may need the whole CPU), at least one, and no new one after
 * `budgetMs`. Unknown, malformed or foreign ids are skipped as `not_found`, reports without a source
 * (combined ones) as `source_missing`, a source the reader now refuses with its error code, reports
 * not reached in time as `time_limit`; anything else as `internal_error` (logged).
 */
export async function rebuildMany(
  user: UserRecord,
  reportIds?: string[],
  budgetMs = REBUILD_MANY_BUDGET_MS,
): Promise<RebuildManyResult> {
  const started = Date.now();
  const ids = reportIds
    ? [...new Set(reportIds)]
    : (await listAllReports(user.id)).filter((r) => r.source_path && !r.is_combined).map((r) => r.id);
  const result: RebuildManyResult = { rebuilt: [], skipped: [] };
  let attempted = 0;
  for (const id of ids) {
    if (attempted > 0 && Date.now() - started >= budgetMs) {
      result.skipped.push({ id, reason: 'time_limit' });
      continue;
    }
    if (!isReportId(id)) {
      result.skipped.push({ id, reason: 'not_found' });
      continue;
    }
    attempted++;
    try {
      await rebuildReport(user, id);
      result.rebuilt.push(id);
    } catch (e) {
      const err = toAppError(e);
      if (err.status === 500)
        log('error', 'rebuild failed', { report_id: id, error: e instanceof Error ? e.stack : String(e) });
      const reason = err.code === 'report_not_found' ? 'not_found' : err.code;
      result.skipped.push({ id, reason: e instanceof AppError || err.status !== 500 ? reason : 'internal_error' });
    }
  }
  return result;
}
