import type { AllocationMethod } from './allocation';
import type { AggregateField, FieldName } from './fields';

/** Per-item values keyed by docs/METRICS.md field name; money in kopecks, percents like 27.5, null where undefined (e.g. margin when realization ≤ 0). */
export type ItemValues = Record<FieldName, number | null>;
export type AggregateValues = Record<AggregateField, number>;
/** Manual corrections of one item (only correctable fields), same units as ItemValues. */
export type ManualValues = Partial<Record<FieldName, number>>;

export type TaxSystem = 'usn_income' | 'usn_income_expenses' | 'none';
export interface TaxProfile {
  tax_system: TaxSystem;
  /** Percent, 0–15. */
  usn_rate: number;
  /** 0 (not a VAT payer), 5, 7, 10 or 22. */
  vat_rate: number;
}
export const DEFAULT_TAX_PROFILE: TaxProfile = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 };

export type ReportFormat = 'zip' | 'xlsx' | 'xls';

export interface ArticleInfo {
  /** sa_name as written (trimmed); "" for rows without an article ("Без артикула"). */
  article: string;
  category: string;
  nm_id: string;
  brand: string;
}

export interface ReportWarning {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface FileMeta {
  report_number: string | null;
  seller_number: string | null;
}

/** What reading a file gives: the aggregates per article, before any settings are applied. */
export interface ParsedReport extends FileMeta {
  format: ReportFormat;
  /** Data rows (header and fully empty rows excluded). */
  rows: number;
  /** YYYY-MM-DD, min/max of sale_dt (fallback order_dt). */
  period_from: string | null;
  period_to: string | null;
  articles: Array<ArticleInfo & { aggregates: AggregateValues }>;
  warnings: ReportWarning[];
}

export interface RowCount extends FileMeta {
  format: ReportFormat;
  rows: number;
}

export interface ComputedItem extends ArticleInfo {
  computed: ItemValues;
  manual_values: ManualValues;
  effective: ItemValues;
}

export interface CategoryCommission {
  category: string;
  realization: number;
  commission: number;
  /** commission / realization · 100, null when realization is 0. */
  percent: number | null;
}

export interface ReportSettings {
  tax: TaxProfile;
  /**
   * Cost price per unit in kopecks by article, as in force for this report; an article missing here has
   * no price set (it counts as 0 and is named in the `missing_cost_price` warning when it sold).
   */
  costPrices: Record<string, number>;
  /** How the «Без артикула» costs are spread over the articles (allocation.ts); default `realization`. */
  allocation?: AllocationMethod;
}
