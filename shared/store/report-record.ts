/**
 * The stored shape of a report record (keys.ts: pk `USER#<userId>`, sk `REPORT#<reportId>`, gsi1 by
 * seller) and its conversion to and from a DynamoDB item. A record holds the report's metadata,
 * snapshot settings and its report-level numbers (totals, commission by category, warnings: kopecks);
 * its items live in their own partition (items.repo.ts). Its life (states, tasks, leases) is
 * shared/reports/domain/lifecycle.ts; the writes are split by concern: reports.repo.ts (reads, metadata,
 * delete), report-numbers.repo.ts (versioned changes of numbers and items), report-lifecycle.repo.ts
 * (the conditional transitions).
 */
import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AllocationSummary } from '../engine/allocation';
import type { CostAttribution } from '../engine/attribution';
import type { CategoryCommission, ItemValues, ReportFormat, ReportWarning, TaxProfile } from '../engine/types';
import type { LastRebuild, ReportFailure, ReportProgress, ReportStatus, ReportTask } from '../reports/domain/lifecycle';
import type { CatalogTask } from '../reports/domain/lifecycle';
import type { WbPart } from '../marketplaces/wb/finance/reconcile';
import { ddb, tableName } from './client';
import { isConditionFailed } from './dynamo-errors';
import { newId, reportKey, reportSellerIndex } from './keys';
import { parseStored, RECORD_VERSIONS, storedReport } from './records';

/** A stored report (money in kopecks). */
export interface ReportRecord {
  id: string;
  user_id: string;
  title: string;
  report_number: string | null;
  seller_id: string | null;
  period_from: string | null;
  period_to: string | null;
  rows: number;
  /** null for a combined report (no file). */
  format: ReportFormat | null;
  is_combined: boolean;
  source_report_ids?: string[];
  /** An uploaded report's identity (shared/reports/upload/report-identity.ts); absent on combined and older reports. */
  identity?: string | null;
  /** The upload was sent with allow_duplicate: its worker builds it even when its rows are another report's. */
  allow_duplicate?: boolean;
  /** The preview's read of the uploaded bytes, which the worker builds from (shared/reports/upload/read-handover.ts). */
  read_key?: string;
  /** WB's own id of the report (its number, from the file name; later from WB's API); null when unknown. */
  wb_report_id?: string | null;
  /**
   * What the report's rows say, whatever the file (engine/fingerprint.ts): `r1:<rows>:<hash>`; equal for
   * the same week as .xlsx, .xls or zip. Set by the worker and by every rebuild; absent on older reports
   * until their next rebuild.
   */
  content_fingerprint?: string | null;
  /** The same per sale day (day → `<rows>:<hash>`): which rows two reports share (report-identity.ts). */
  content_days?: Record<string, string> | null;
  /** A combined report: each source as it was combined (its `version` and `rebuilt_at` then). */
  sources?: CombinedSource[];
  /** A combined report: what it covers, nested combined reports flattened (report-identity.ts coverOf). */
  covers?: string[];
  /** S3 key of the stored source file (`sources/<user_id>/<report_id>/<name>`), null without one. */
  source_path: string | null;
  source_name: string | null;
  source_size: number | null;
  created_at: string;
  rebuilt_at?: string;
  tax_profile: TaxProfile;
  /** How the «Без артикула» costs were spread (kopecks); absent on reports built before allocation existed. */
  allocation?: AllocationSummary;
  /** Which part of ads, storage and acceptance came from WB's per-article APIs (engine attribution.ts); null or absent: none. */
  cost_attribution?: CostAttribution | null;
  totals: ItemValues;
  commission_by_category: CategoryCommission[];
  warnings: ReportWarning[];
  item_count: number;
  /** Current item generation (items.repo.ts); set by this repository. */
  items_gen?: number;
  /** Bumped by every change of items or totals; set by this repository. */
  version?: number;
  status?: ReportStatus;
  /** While `processing`: what the worker does, its progress, its lease (epoch ms) and attempts so far. */
  task?: ReportTask;
  task_id?: string;
  progress?: ReportProgress;
  lease_owner?: string;
  lease_until?: number;
  attempts?: number;
  /**
   * While set (a `ready` upload whose new articles' catalog entries are still to be written): the
   * follow-up task, its lease (epoch ms) and attempts (lifecycle.ts "catalog follow-up"). The report
   * stays in gsi2 meanwhile, so recovery finds a follow-up whose worker died.
   */
  catalog_task?: CatalogTask;
  /** When `failed`: why (code and Russian message), and the rows given back. */
  error?: ReportFailure;
  refunded_rows?: number;
  last_rebuild?: LastRebuild;
  /** `wb_api`: imported through a WB connection (shared/reports/worker/wb-import.ts); absent: a file or combined. */
  source?: 'wb_api';
  wb_connection_id?: string;
  /** WB's own sums of the report from its report list, kopecks by list field: the reconciliation's WB side. */
  wb_sums?: Record<string, number>;
  /**
   * A WB import whose per-article costs (ads, storage, acceptance: cost-kinds.ts) WB's other APIs have not
   * answered yet for the report's week (shared/marketplaces/wb/sync/costs-step.ts): those kinds, set at the
   * import and removed once the costs' rebuild starts (or WB gave them up); absent or empty: none pending.
   */
  costs_pending?: string[];
  /**
   * A setting the report reads (own per-unit costs) changed while it was being built or rebuilt: it is
   * rebuilt again once that task ends (shared/reports/rebuild/rebuild-covered.ts); removed when that starts.
   */
  rebuild_again?: boolean;
  /**
   * A combined report of WB imports: each WB report's own reconciled totals and list sums
   * (shared/marketplaces/wb/finance/reconcile.ts `WbPart`), for its reconciliation per WB report id.
   */
  wb_parts?: WbPart[];
}

/** A source of a combined report as it was read when the combined report was (re)built. */
export interface CombinedSource {
  id: string;
  version: number;
  rebuilt_at: string | null;
}

/** Every field of ReportRecord is parsed by the stored schema (records.ts): a field added above and not there fails to compile. */
const _everyFieldParsed: [Exclude<keyof ReportRecord, keyof typeof storedReport.shape>] extends [never] ? true : false =
  true;

/** Warnings kept on the record: a hostile file must not push the record past DynamoDB's 400 KB. */
export const MAX_WARNINGS = 50;

/** Categories kept on the record, biggest realization first (the list arrives sorted). */
export const MAX_CATEGORIES = 500;

/** Report ids are newId() strings; anything else is not a report of anyone (→ 404 at the route). */
export function isReportId(id: unknown): id is string {
  return typeof id === 'string' && /^[0-9A-Za-z]{1,64}$/.test(id);
}

export const newReportId = (): string => newId();

export function capped(record: ReportRecord): ReportRecord {
  return {
    ...record,
    warnings: record.warnings.slice(0, MAX_WARNINGS),
    commission_by_category: record.commission_by_category.slice(0, MAX_CATEGORIES),
  };
}

/** The stored item of a report record, in the current version of its shape (records.ts). */
export function toItem(record: ReportRecord): Record<string, unknown> {
  const r = capped(record);
  return {
    ...reportKey(r.user_id, r.id),
    ...(r.seller_id ? reportSellerIndex(r.user_id, r.seller_id, r.id) : {}),
    type: 'report',
    v: RECORD_VERSIONS.report,
    ...r,
    items_gen: r.items_gen ?? 1,
    version: r.version ?? 1,
    status: r.status ?? 'ready',
  };
}

/** The report record of a stored item; StoredRecordError (naming the key) when it is not of the current shape. */
export function fromItem(item: Record<string, unknown>): ReportRecord {
  return parseStored('report', storedReport, item);
}

/** A conditional update of one report record: the record after it, or null when its condition failed. */
export async function updateReportIf(
  input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>,
): Promise<ReportRecord | null> {
  try {
    const r = await ddb().send(new UpdateCommand({ TableName: tableName(), ...input, ReturnValues: 'ALL_NEW' }));
    return r.Attributes ? fromItem(r.Attributes) : null;
  } catch (e) {
    if (isConditionFailed(e)) return null;
    throw e;
  }
}

/** Fields of a report that may change after it is created. */
export type ReportPatch = Partial<
  Pick<
    ReportRecord,
    | 'title'
    | 'totals'
    | 'commission_by_category'
    | 'warnings'
    | 'tax_profile'
    | 'allocation'
    | 'cost_attribution'
    | 'rebuilt_at'
    | 'item_count'
    | 'rows'
    | 'period_from'
    | 'period_to'
    | 'report_number'
    | 'format'
    | 'source_report_ids'
    | 'sources'
    | 'covers'
    | 'content_fingerprint'
    | 'content_days'
    | 'wb_parts'
  >
>;
