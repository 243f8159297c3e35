import type { CategoryCommission, ComputedItem, ItemValues, TaxProfile } from '../engine/types';

/** What the xlsx export needs of a report: its metadata, its items and the engine's report-level values. */
export interface ExportReport {
  id: string;
  title: string;
  report_number: string | null;
  seller: { number: string | null; name: string } | null;
  /** YYYY-MM-DD. */
  period_from: string | null;
  period_to: string | null;
  /** Data rows of the source file (summed over the sources for a combined report). */
  rows: number;
  is_combined: boolean;
  source_report_ids?: string[];
  /** ISO timestamp. */
  created_at: string;
  tax_profile: TaxProfile;
  items: ComputedItem[];
  totals: ItemValues;
  commission_by_category: CategoryCommission[];
  warnings: Array<{ code: string; message: string }>;
}

/** One report's line of the legacy .xls summary. */
export interface SummaryRow {
  report_number: string | null;
  /** Shown where the template has a title column; optional because the summary is keyed by number. */
  title?: string;
  seller: { number: string | null; name: string } | null;
  /** YYYY-MM-DD. */
  period_from: string | null;
  period_to: string | null;
  rows: number;
  totals: ItemValues;
}
