// Shapes of the HTTP contract (docs/API.md). Money is roubles with 2 decimals here, as in JSON.

export type TaxSystem = 'usn_income' | 'usn_income_expenses' | 'none';

export interface TaxProfile {
  tax_system: TaxSystem;
  usn_rate: number;
  vat_rate: number;
}

/** One period of a dated tax profile: in force from valid_from (YYYY-MM-DD; null = from the beginning). */
export interface TaxPeriod extends TaxProfile {
  valid_from: string | null;
}

/** How «Без артикула» costs are spread over the articles. */
export type AllocationMethod = 'realization' | 'quantity' | 'none';

export interface User {
  id: string;
  email: string;
  role: string;
  confirmed: boolean;
  limits: number;
  initial_limits: number;
  /** The default profile in force today. */
  tax: TaxProfile;
  tax_periods?: TaxPeriod[];
  allocation?: AllocationMethod;
}

export interface LoginResponse {
  token: string;
  user: User;
}

export interface LimitHistoryEntry {
  id: string;
  operation: 'expense' | 'topup' | 'refund';
  rows: number;
  limits_after: number;
  report_id?: string | null;
  /** The report's title now (null without a report or once it is gone). */
  report_title?: string | null;
  /** True when the report this record charged for was deleted. */
  report_deleted?: boolean;
  created_at: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Sums of the whole limit history (first page of GET /auth/limit-history). */
export interface LimitTotals {
  charged: number;
  refunded: number;
  topped_up: number;
}

export interface LimitHistoryPage extends Page<LimitHistoryEntry> {
  totals?: LimitTotals;
}

/** GET /config: what the page shows from the operator's settings. */
export interface AppConfig {
  product_name: string;
  support_contact: string | null;
  demo_email: string | null;
}

/** Per-item (or totals) values keyed by docs/METRICS.md field name; null where undefined (margin with no realization). */
export type Values = Record<string, number | null | undefined>;

export interface SellerRef {
  id: string;
  number: string;
  name: string;
}

export interface Seller extends SellerRef {
  tax: TaxProfile | null;
  tax_periods?: TaxPeriod[] | null;
  /** null: the user's method applies. */
  allocation?: AllocationMethod | null;
}

export interface ReportSummary {
  id: string;
  title: string;
  report_number: string | null;
  seller: SellerRef | null;
  period_from: string | null;
  period_to: string | null;
  rows: number;
  is_combined: boolean;
  source_path: string | null;
  source_available: boolean;
  source_report_ids?: string[];
  created_at: string;
  rebuilt_at?: string | null;
  totals: Values;
  /** `processing`: being built (task upload, no items yet) or rebuilt (task rebuild); `failed`: refunded, see `error`. */
  status?: ReportStatus;
  task?: 'upload' | 'rebuild';
  progress?: ReportProgress;
  error?: { code: string; message: string };
  refunded_rows?: number;
  last_rebuild?: {
    finished_at: string;
    dropped_manual_values: Array<{ article: string; field: string; value: number | null }>;
    error?: { code: string; message: string };
  };
}

export type ReportStatus = 'processing' | 'ready' | 'failed';

export interface ReportProgress {
  step: 'queued' | 'reading' | 'pricing' | 'writing' | 'finishing';
  rows_read: number;
  rows_total: number;
  items_written: number;
  items_total: number;
}

export interface Item {
  item_id: string;
  article: string;
  category: string;
  nm_id: string;
  brand: string;
  computed: Values;
  manual_values: Values;
  effective: Values;
}

export interface ReportWarning {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface CategoryCommission {
  category: string;
  realization: number;
  commission: number;
  percent: number | null;
}

/** What a report spread from «Без артикула» (roubles per cost field). */
export interface ReportAllocation {
  method: AllocationMethod;
  spread: { storage: number; acceptance: number; deductions: number; penalties: number; ads: number };
  total: number;
  articles: number;
  reason?: 'nothing_to_spread' | 'no_base';
}

export interface ReportDetail extends ReportSummary {
  tax_profile: TaxProfile;
  /** Null on reports built before allocation existed. */
  allocation?: ReportAllocation | null;
  items: Item[];
  commission_by_category: CategoryCommission[];
  warnings: ReportWarning[];
  stale: boolean;
  /** Why the report is stale, in Russian; null when it is not. */
  stale_reason?: string | null;
  /** A combined report: its sources that changed since it was combined. */
  stale_sources?: Array<{ id: string; title: string | null; change: 'rebuilt' | 'corrected' | 'deleted' }>;
}

/**
 * Items as columns (GET /api/reports/{id}?items=columns): row r is item r; effective[f][r] is field
 * fields[f]; computed and manual_values list only what differs: {field: {row: value}}.
 */
export interface ItemColumns {
  count: number;
  item_id: string[];
  article: string[];
  category: string[];
  nm_id: string[];
  brand: string[];
  fields: string[];
  effective: Array<Array<number | null>>;
  computed: Record<string, Record<string, number | null>>;
  manual_values: Record<string, Record<string, number | null>>;
}

export type ReportDetailColumns = Omit<ReportDetail, 'items'> & { item_columns: ItemColumns };

export interface UploadUrl {
  upload_id: string;
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expires_in: number;
}

export interface RowCountResult {
  rows: number;
  limits: number;
  limits_after: number;
  enough: boolean;
  format: 'zip' | 'xlsx' | 'xls';
  report_number: string | null;
  seller_number: string | null;
  /** The caller's report with the same identity: uploading again would charge again. */
  duplicate_of?: { id: string; title: string; created_at: string } | null;
}

export interface ManualValueResult {
  item: Item;
  totals: Values;
}

export interface RebuildResult {
  report: ReportDetail;
  dropped_manual_values: Array<{ article: string; field: string; value: number | null }>;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface CombineJob {
  job_id: string;
  status: JobStatus;
  progress: { done: number; total: number; step?: string };
  report_id?: string;
  error?: { code?: string; message?: string } | string;
}

export interface Product {
  article: string;
  cost_price: number;
  /** False: added by a report, never priced by the seller. */
  cost_price_set?: boolean;
  cost_prices?: Array<{ valid_from: string | null; cost_price: number }>;
  updated_at?: string;
}

export interface ImportResult {
  updated: number;
  created: number;
  errors: Array<{ row: number; message: string }>;
}

// Period analytics (GET /api/analytics): money in roubles, margin in %.
export type AbcLetter = 'A' | 'B' | 'C';
export type MarginGroup = 'high' | 'low' | 'loss';

export interface AnalyticsFigures {
  realization: number;
  for_pay: number;
  payout: number;
  profit: number;
  margin: number | null;
  sales_qty: number;
  returns_qty: number;
  expenses: number;
}

export interface AnalyticsWeek extends AnalyticsFigures {
  period_from: string;
  period_to: string;
  report_ids: string[];
}

export interface AnalyticsArticle {
  article: string;
  realization: number;
  profit: number;
  margin: number | null;
  sales_qty: number;
  returns_qty: number;
  abc_revenue: AbcLetter | null;
  abc_profit: AbcLetter | null;
  margin_group: MarginGroup | null;
}

export interface AnalyticsWarning {
  code: 'missing_week' | 'duplicate_report' | 'report_processing' | 'stale_report' | 'summary_unavailable' | string;
  message: string;
  details: Record<string, unknown>;
}

export interface Analytics {
  range: { from: string; to: string };
  previous_range: { from: string; to: string };
  seller_id: string | null;
  available: { report_count: number; first_week: string | null; last_week: string | null };
  weeks: AnalyticsWeek[];
  totals: AnalyticsFigures;
  previous: AnalyticsFigures & { change: Record<keyof AnalyticsFigures, number | null> };
  articles: AnalyticsArticle[];
  margin_groups: Record<MarginGroup, { count: number; realization: number; profit: number }>;
  warnings: AnalyticsWarning[];
  history?: {
    article: string;
    weeks: Array<{
      period_from: string;
      period_to: string;
      realization: number;
      profit: number;
      margin: number | null;
      sales_qty: number;
      returns_qty: number;
    }>;
  };
}

export interface AnalyticsParams {
  from?: string;
  to?: string;
  seller_id?: string | null;
  article?: string;
}
