/**
 * Stored reports and items (kopecks) → API JSON (docs/API.md, Reports): money fields become roubles with
 * 2 decimals, counts and percents stay as they are. The unit of every field comes from fields.ts.
 */
import { ALLOCATED_FIELDS, type AllocationSummary } from '../engine/allocation';
import type { CostAttribution, KindAttribution } from '../engine/attribution';
import { reconcile, reconcileParts, type ReconciledField, type WbPart } from '../marketplaces/wb/finance/reconcile';
import { COST_KIND_NAMES, type CostKind } from '../marketplaces/wb/sources/cost-kinds';
import {
  FIELD_BY_NAME,
  kopecksToRoubles,
  nullReasons,
  roublesToKopecks,
  type FieldName,
  type ReasonedField,
} from '../engine/fields';
import type { AllocationMethod, CategoryCommission, ItemValues, ManualValues, ReportWarning } from '../engine/types';
import type {
  CategoryCommission as ApiCategoryCommission,
  DroppedManualValue,
  Item as ApiItem,
  ItemColumns,
  ReportColumns as ApiReportColumns,
  Report as ApiReport,
  ReportSummary as ApiReportSummary,
  ReportWarning as ApiReportWarning,
  SellerRef,
  Values as ApiValues,
} from '../contract/shapes';
import type { StoredItem } from '../store/items.repo';
import type { ReportRecord } from '../store/report-record';

// The answers' types are the contract's (shared/contract/shapes.ts): a presenter that drifts does not compile.
export type { ApiCategoryCommission, ApiItem, ApiReport, ApiReportColumns, ApiReportSummary, ApiValues, SellerRef };

/** A value of `field` in storage units → API units (money: kopecks → roubles). */
export function valueToApi(field: string, value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return FIELD_BY_NAME.get(field)?.unit === 'money' ? kopecksToRoubles(value) : value;
}

/** A value of `field` in API units → storage units (money: roubles → integer kopecks). */
export function valueFromApi(field: string, value: number): number {
  return FIELD_BY_NAME.get(field)?.unit === 'money' ? roublesToKopecks(value) : value;
}

export function valuesToApi(values: ItemValues | ManualValues): ApiValues {
  const out: ApiValues = {};
  for (const [k, v] of Object.entries(values)) out[k] = valueToApi(k, v as number | null | undefined);
  return out;
}

export function presentItem(item: StoredItem): ApiItem {
  return {
    item_id: item.item_id,
    article: item.article,
    category: item.category,
    nm_id: item.nm_id,
    brand: item.brand,
    computed: valuesToApi(item.computed),
    manual_values: valuesToApi(item.manual_values),
    effective: valuesToApi(item.effective),
    null_reasons: nullReasons(item.effective),
  };
}

/**
 * The items of a report as columns (GET /api/reports/{id}?items=columns): the same numbers as
 * ApiItem[], in API units, ~3× smaller in JSON and far cheaper to build and parse. Row r is item r.
 * `effective[f][r]` is field `fields[f]` of row r; `computed` lists only values that differ from the
 * effective one (a manual value and what follows from it) as {field: {row: value}}; `manual_values`
 * the same way.
 */
export type ApiItemColumns = ItemColumns;

const FIELD_NAMES: string[] = [...FIELD_BY_NAME.keys()];
const MONEY: boolean[] = FIELD_NAMES.map((f) => FIELD_BY_NAME.get(f)?.unit === 'money');

export function presentItemColumns(items: ReadonlyArray<StoredItem>): ApiItemColumns {
  const n = items.length;
  const effective = FIELD_NAMES.map(() => new Array<number | null>(n));
  const computed: ApiItemColumns['computed'] = {};
  const manual: ApiItemColumns['manual_values'] = {};
  const reasons: ApiItemColumns['null_reasons'] = {};
  const out: ApiItemColumns = {
    count: n,
    item_id: new Array<string>(n),
    article: new Array<string>(n),
    category: new Array<string>(n),
    nm_id: new Array<string>(n),
    brand: new Array<string>(n),
    fields: FIELD_NAMES,
    effective,
    computed,
    manual_values: manual,
    null_reasons: reasons,
  };
  for (let r = 0; r < n; r++) {
    const it = items[r]!;
    out.item_id[r] = it.item_id;
    out.article[r] = it.article;
    out.category[r] = it.category;
    out.nm_id[r] = it.nm_id;
    out.brand[r] = it.brand;
    const eff = it.effective as Record<string, number | null | undefined>;
    const comp = it.computed as Record<string, number | null | undefined>;
    for (let f = 0; f < FIELD_NAMES.length; f++) {
      const name = FIELD_NAMES[f]!;
      const e = eff[name] ?? null;
      effective[f]![r] = e === null ? null : MONEY[f] ? kopecksToRoubles(e) : e;
      const c = comp[name] ?? null;
      if (c !== e) (computed[name] ??= {})[r] = c === null ? null : MONEY[f] ? kopecksToRoubles(c) : c;
    }
    for (const [name, v] of Object.entries(it.manual_values ?? {})) (manual[name] ??= {})[r] = valueToApi(name, v);
    for (const [name, why] of Object.entries(nullReasons(it.effective)))
      (reasons[name as ReasonedField] ??= {})[r] = why;
  }
  return out;
}

export function presentCommission(rows: ReadonlyArray<CategoryCommission>): ApiCategoryCommission[] {
  return rows.map((c) => ({
    category: c.category,
    realization: kopecksToRoubles(c.realization),
    commission: kopecksToRoubles(c.commission),
    percent: c.percent,
  }));
}

/** Money amounts inside warning details (aggregate.ts books them in kopecks). */
const MONEY_DETAILS = new Set(['amount', 'realization', 'for_pay']);

export function presentWarnings(warnings: ReadonlyArray<ReportWarning>): ApiReportWarning[] {
  return warnings.map((w) => {
    if (!w.details) return w;
    const details: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(w.details))
      details[k] = MONEY_DETAILS.has(k) && typeof v === 'number' ? kopecksToRoubles(v) : v;
    return { ...w, details };
  });
}

function apiStatus(record: ReportRecord): ApiReportSummary['status'] {
  return record.status === 'failed'
    ? 'failed'
    : record.status === 'ready' || record.status === undefined
      ? 'ready'
      : 'processing';
}

export function presentReportSummary(record: ReportRecord, seller: SellerRef | null): ApiReportSummary {
  return {
    id: record.id,
    title: record.title,
    report_number: record.report_number,
    seller: seller ? { id: seller.id, number: seller.number, name: seller.name } : null,
    period_from: record.period_from,
    period_to: record.period_to,
    rows: record.rows,
    is_combined: record.is_combined,
    source_path: record.source_path,
    source_available: record.source_path !== null && record.source_path !== undefined,
    ...(record.source_report_ids ? { source_report_ids: record.source_report_ids } : {}),
    ...(record.source === 'wb_api' ? presentWbImport(record) : {}),
    ...(record.is_combined && record.wb_parts?.length && (record.status ?? 'ready') === 'ready'
      ? { reconciliation: presentPartsReconciliation(record.wb_parts) }
      : {}),
    created_at: record.created_at,
    ...(record.rebuilt_at ? { rebuilt_at: record.rebuilt_at } : {}),
    totals: valuesToApi(record.totals),
    status: apiStatus(record),
    ...(record.status === 'processing' && record.task ? { task: record.task } : {}),
    ...(record.status === 'processing' && record.progress ? { progress: record.progress } : {}),
    ...(record.status === 'failed' && record.error ? { error: record.error } : {}),
    ...(record.status === 'failed' ? { refunded_rows: record.refunded_rows ?? 0 } : {}),
    ...(record.last_rebuild
      ? {
          last_rebuild: {
            finished_at: record.last_rebuild.finished_at,
            dropped_manual_values: record.last_rebuild.dropped.map(presentDropped),
            ...(record.last_rebuild.error ? { error: record.last_rebuild.error } : {}),
          },
        }
      : {}),
  };
}

/** An imported report's WB side: its source, WB's report id, and the reconciliation once it is built. */
function presentWbImport(
  record: ReportRecord,
): Pick<ApiReportSummary, 'source' | 'wb_report_id' | 'wb_connection_id' | 'reconciliation'> {
  const built = (record.status ?? 'ready') === 'ready';
  const r = built ? reconcile(record.totals, record.wb_sums) : null;
  return {
    source: 'wb_api',
    ...(record.wb_report_id ? { wb_report_id: record.wb_report_id } : {}),
    ...(record.wb_connection_id ? { wb_connection_id: record.wb_connection_id } : {}),
    ...(r
      ? {
          reconciliation: {
            status: r.status,
            fields: r.fields.map((f) => ({
              ...f,
              wb: kopecksToRoubles(f.wb),
              ours: kopecksToRoubles(f.ours),
              diff: kopecksToRoubles(f.diff),
            })),
          },
        }
      : {}),
  };
}

const fieldsInRoubles = (fields: readonly ReconciledField[]) =>
  fields.map((f) => ({
    ...f,
    wb: kopecksToRoubles(f.wb),
    ours: kopecksToRoubles(f.ours),
    diff: kopecksToRoubles(f.diff),
  }));

/** A combined report of WB imports: the reconciliation summed, and per WB report id. */
function presentPartsReconciliation(parts: readonly WbPart[]): NonNullable<ApiReportSummary['reconciliation']> {
  const r = reconcileParts(parts);
  return {
    status: r.status,
    fields: fieldsInRoubles(r.fields),
    reports: r.reports.map((p) => ({
      report_id: p.report_id,
      wb_report_id: p.wb_report_id,
      status: p.status,
      fields: fieldsInRoubles(p.fields),
    })),
  };
}

/** A report's allocation in roubles (docs/API.md): the method and what was spread, per cost field. */
export interface ApiAllocation {
  method: AllocationMethod;
  spread: Record<(typeof ALLOCATED_FIELDS)[number], number>;
  total: number;
  articles: number;
  reason?: AllocationSummary['reason'];
}

export function presentAllocation(a: AllocationSummary | undefined): ApiAllocation | null {
  if (!a) return null;
  const spread = {} as ApiAllocation['spread'];
  for (const f of ALLOCATED_FIELDS) spread[f] = kopecksToRoubles(a.spread[f] ?? 0);
  return {
    method: a.method,
    spread,
    total: kopecksToRoubles(a.total),
    articles: a.articles,
    ...(a.reason ? { reason: a.reason } : {}),
  };
}

/** Which part of ads, storage and acceptance came from WB's APIs, in roubles (docs/API.md). */
export function presentCostAttribution(a: CostAttribution | null | undefined): ApiReport['cost_attribution'] {
  if (!a) return null;
  const out: NonNullable<ApiReport['cost_attribution']> = {};
  for (const [field, k] of Object.entries(a) as Array<[keyof CostAttribution, KindAttribution]>) {
    out[field] = {
      report_total: kopecksToRoubles(k.report),
      from_api: kopecksToRoubles(k.attributed),
      without_article: kopecksToRoubles(k.remainder),
      api_total: kopecksToRoubles(k.api),
      unmatched: kopecksToRoubles(k.unmatched),
      unmatched_cards: k.unmatched_cards.map((c) => ({ nm_id: c.nm_id, amount: kopecksToRoubles(c.kopecks) })),
      articles: k.articles,
      days: k.days,
    };
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** The kinds of WB's per-article costs still to come, in the registry's order (unknown names left out). */
export function presentCostsPending(kinds: readonly string[] | undefined): CostKind[] {
  return COST_KIND_NAMES.filter((k) => kinds?.includes(k));
}

/** Why an uploaded report is stale (settings.ts isStale). */
export const STALE_SETTINGS =
  'Себестоимость, налоговые настройки или способ распределения расходов изменились после построения отчёта.';

export function presentReport(
  record: ReportRecord,
  items: ReadonlyArray<StoredItem>,
  seller: SellerRef | null,
  stale: boolean,
  staleness?: { reason: string | null; changes: NonNullable<ApiReport['stale_sources']> },
): ApiReport {
  return {
    ...presentReportSummary(record, seller),
    tax_profile: record.tax_profile,
    allocation: presentAllocation(record.allocation),
    cost_attribution: presentCostAttribution(record.cost_attribution),
    costs_pending: presentCostsPending(record.costs_pending),
    items: items.map(presentItem),
    commission_by_category: presentCommission(record.commission_by_category),
    warnings: presentWarnings(record.warnings),
    stale,
    stale_reason: staleness?.reason ?? (stale ? STALE_SETTINGS : null),
    ...(record.is_combined ? { stale_sources: staleness?.changes ?? [] } : {}),
  };
}

export function presentReportColumns(
  record: ReportRecord,
  items: ReadonlyArray<StoredItem>,
  seller: SellerRef | null,
  stale: boolean,
  staleness?: Parameters<typeof presentReport>[4],
): ApiReportColumns {
  const { items: _none, ...rest } = presentReport(record, [], seller, stale, staleness);
  return { ...rest, item_columns: presentItemColumns(items) };
}

/** A dropped correction in API units (rebuild's `dropped_manual_values`). */
export function presentDropped(d: { article: string; field: string; value: number }): DroppedManualValue {
  return { article: d.article, field: d.field, value: valueToApi(d.field as FieldName, d.value) };
}
