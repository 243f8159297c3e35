// Shapes of the HTTP contract (shared/docs/API.md). Money is roubles with 2 decimals here, as in JSON.

export type TaxSystem = 'usn_income' | 'usn_income_expenses' | 'none';

export interface TaxProfile {
  tax_system: TaxSystem;
  usn_rate: number;
  vat_rate: number;
}

export interface User {
  id: string;
  email: string;
  role: string;
  confirmed: boolean;
  limits: number;
  initial_limits: number;
  tax: TaxProfile;
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
  created_at: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Per-item (or totals) values keyed by METRICS.md field name; null where undefined (margin with no realization). */
export type Values = Record<string, number | null | undefined>;

export interface SellerRef {
  id: string;
  number: string;
  name: string;
}

export interface Seller extends SellerRef {
  tax: TaxProfile | null;
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

export interface ReportDetail extends ReportSummary {
  tax_profile: TaxProfile;
  items: Item[];
  commission_by_category: CategoryCommission[];
  warnings: ReportWarning[];
  stale: boolean;
}

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
  updated_at?: string;
}

export interface ImportResult {
  updated: number;
  created: number;
  errors: Array<{ row: number; message: string }>;
}
