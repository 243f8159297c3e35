/**
 * The contract between the file readers (zip/xlsx/xls) and the per-article accumulators.
 * Readers map header text to these canonical keys (docs/WB-REPORT.md) and decode ONLY these columns,
 * handing each data row straight to a sink: nothing holds the whole sheet.
 */

/** The columns the metrics need (WB statistics API field names). Order is the index into `cells`. */
export const METRIC_KEYS = [
  'sa_name',
  'subject_name',
  'nm_id',
  'brand_name',
  'doc_type_name',
  'supplier_oper_name',
  'order_dt',
  'sale_dt',
  'quantity',
  'retail_amount',
  'retail_price_withdisc_rub',
  'commission_percent',
  'ppvz_reward',
  'acquiring_fee',
  'ppvz_vw',
  'ppvz_vw_nds',
  'ppvz_for_pay',
  'delivery_amount',
  'return_amount',
  'delivery_rub',
  'penalty',
  'additional_payment',
  'bonus_type_name',
  'rebill_logistic_cost',
  'storage_fee',
  'deduction',
  'acceptance',
  'cashback_discount',
  'cashback_commission_change',
  'cashback_amount',
  // Read for the row-money check (aggregate.ts): the payment type says whether acquiring is inside for_pay,
  // the row's number (the file's «№», the API's rrdId) names a row the check cannot explain. After the
  // money columns so the content fingerprint (fingerprint.ts, FINGERPRINT_KEY_COUNT) keeps its columns.
  'payment_processing',
  'rrd_no',
] as const;

/** The columns the content fingerprint hashes: the first ones of METRIC_KEYS, up to cashback_amount. */
export const FINGERPRINT_KEY_COUNT = 30;

export type MetricKey = (typeof METRIC_KEYS)[number];

export const KEY_INDEX: Readonly<Record<MetricKey, number>> = Object.fromEntries(
  METRIC_KEYS.map((k, i) => [k, i]),
) as Record<MetricKey, number>;

/** A file without any of these is not a detailed report (docs/WB-REPORT.md, Required keys). */
export const REQUIRED_KEYS: readonly MetricKey[] = [
  'sa_name',
  'doc_type_name',
  'supplier_oper_name',
  'quantity',
  'retail_amount',
  'ppvz_for_pay',
];

/**
 * Receives decoded rows.
 * - `begin` is called once, after the header row, with the keys the file has.
 * - `row` is called once per data row that has at least one non-empty cell (fully empty rows are
 *   skipped by the reader and not counted). `cells[KEY_INDEX[key]]` is the cell's text exactly as
 *   stored (numbers as their decimal text, e.g. "1234.5" or "1E-3"; dates as text "2022-10-03" /
 *   "2022-10-03T12:00:00" or as an Excel serial number's text "44837"), or undefined when the column
 *   is absent or the cell empty. The array may be reused by the reader between calls: copy what you keep.
 */
export interface RowSink {
  begin(present: ReadonlySet<MetricKey>): void;
  row(cells: ReadonlyArray<string | undefined>): void;
}
