import type { ContentFingerprint } from './fingerprint';
import type { CostField } from '../marketplaces/wb/sources/cost-kinds';
import type { AggregateField, FieldName } from './fields';

/** Per-item values keyed by docs/METRICS.md field name; money in kopecks, percents like 27.5, null where undefined (e.g. margin when realization ≤ 0). */
export type ItemValues = Record<FieldName, number | null>;
export type AggregateValues = Record<AggregateField, number>;
/** Manual corrections of one item (only correctable fields), same units as ItemValues. */
export type ManualValues = Partial<Record<FieldName, number>>;

/**
 * The tax profile's constants, defined once here (docs/METRICS.md: VAT and USN); the API contract
 * (shared/contract/shapes.ts) and the web page's form take them from here.
 */
export const TAX_SYSTEMS = ['usn_income', 'usn_income_expenses', 'none'] as const;
export type TaxSystem = (typeof TAX_SYSTEMS)[number];
/**
 * VAT rates the service knows (0 = not a VAT payer); docs/METRICS.md, tax profile. Each exists only on
 * some dates (5 and 7 from 2025, 22 from 2026, 20 before 2026): a dated period is checked on save (422
 * `vat_rate_not_in_force`), and a report applies the rule of shared/engine/periods.ts.
 */
export const VAT_RATES = [0, 5, 7, 10, 20, 22] as const;
export type VatRate = (typeof VAT_RATES)[number];
/** The USN rate's range, percent. */
export const USN_RATE_MIN = 0;
export const USN_RATE_MAX = 15;
/** The usual USN rate of each system: what a form proposes when the system is switched. */
export const DEFAULT_USN_RATES: Readonly<Record<TaxSystem, number>> = {
  usn_income: 6,
  usn_income_expenses: 15,
  none: 0,
};

export interface TaxProfile {
  tax_system: TaxSystem;
  /** Percent, USN_RATE_MIN–USN_RATE_MAX. */
  usn_rate: number;
  /** One of VAT_RATES (stored profiles are validated on save). */
  vat_rate: number;
}
export const DEFAULT_TAX_PROFILE: TaxProfile = { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 };

/** The container of a portal file. */
export type FileFormat = 'zip' | 'xlsx' | 'xls';
/** The source of a report: a portal file, or WB's Finance API rows (gzip'd JSON lines, shared/reports/worker/read-source.ts). */
export type ReportFormat = FileFormat | 'wb_api';

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
  /** What the rows say, whatever the file (fingerprint.ts); readReport always sets it. */
  content?: ContentFingerprint;
}

export interface RowCount extends FileMeta {
  format: FileFormat;
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

/** How the «Без артикула» costs are spread over the articles (allocation.ts). */
export type AllocationMethod = 'realization' | 'quantity' | 'none';

/** One kind's costs over the report's period: kopecks by nmId (as text), and for ads the orders WB puts down to them. */
export interface KindCosts {
  byNm: Readonly<Record<string, number>>;
  revenueByNm?: Readonly<Record<string, number>>;
  /** Days of the period the source answered for (the summary tells it). */
  days?: number;
  /** Cards' vendor codes («Артикул продавца») WB's answers gave, by nmId: a card's own line names it. */
  names?: Readonly<Record<string, string>>;
}
/** WB's per-article costs of a report's period, by the field each registered cost kind replaces (attribution.ts). */
export type ReportCosts = Partial<Record<CostField, KindCosts>>;

/** What a report is built with: the sum per unit of each article that has lines of its own, and of the others (own-costs.ts). */
export interface OwnCostRates {
  /** Kopecks per unit of the articles with at least one line of their own. */
  byArticle: Record<string, number>;
  /** Kopecks per unit of every other article (the default lines); 0 without any. */
  fallback: number;
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
  /**
   * Per-article costs from WB's APIs over the report's period, by kind (attribution.ts): each article's
   * ads/storage/acceptance become its own cost, the rest of the report's total stays «Без артикула».
   * Absent: the rows' values as they are.
   */
  costs?: ReportCosts;
  /** The seller's own costs per unit as in force for this report (own-costs.ts); none when absent. */
  ownCosts?: OwnCostRates;
}
