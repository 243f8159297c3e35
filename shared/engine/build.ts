/**
 * Items of a report from its parsed aggregates and the snapshot settings (docs/METRICS.md, Settings that enter the
 * computation; Manual values). `computed` never carries a correction; `effective` is what the user sees.
 */
import { allocateUnassigned, DEFAULT_ALLOCATION, type AllocationSummary } from './allocation';
import { attributeCosts, type CostAttribution } from './attribution';
import { deriveValues, percentOf, usnMinimumApplies } from './derive';
import { AGGREGATE_FIELDS, FIELD_BY_NAME, isCorrectable, type FieldName } from './fields';
import { roundHalfAway } from './money';
import { ownCostPerUnit } from './own-costs';
import type {
  AggregateValues,
  ComputedItem,
  ManualValues,
  ParsedReport,
  ReportSettings,
  ReportWarning,
  TaxProfile,
} from './types';

/** A manual value on a field that does not accept one (the API answers 422). */
export class FieldNotCorrectableError extends Error {
  readonly code = 'field_not_correctable';
  constructor(readonly field: string) {
    super(`Field "${field}" does not accept a manual value`);
    this.name = 'FieldNotCorrectableError';
  }
}

/** A manual value that is not a finite number (the API answers 422). */
export class InvalidManualValueError extends Error {
  readonly code = 'invalid_manual_value';
  constructor(
    readonly field: string,
    readonly value: unknown,
  ) {
    super(`Manual value of "${field}" must be a finite number`);
    this.name = 'InvalidManualValueError';
  }
}

/**
 * A manual value outside its field's range (the API answers 422 `value_out_of_range`): money within
 * ±10^11 roubles, counts whole and within 0..10^9, percents within ±10^4, cost price not negative.
 * The bounds keep every sum of a report far below 2^53 kopecks, the largest integer a number holds exactly.
 */
export class ManualValueOutOfRangeError extends Error {
  readonly code = 'value_out_of_range';
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly min: number,
    readonly max: number,
  ) {
    super(`Manual value of "${field}" must lie within ${min}..${max}`);
    this.name = 'ManualValueOutOfRangeError';
  }
}

/** Money bound of a manual value in kopecks (10^11 roubles). */
export const MAX_MANUAL_MONEY = 10 ** 13;
export const MAX_MANUAL_QTY = 10 ** 9;
export const MAX_MANUAL_PERCENT = 10 ** 4;

/** The accepted range of a manual value of `field`, in engine units (kopecks for money). */
export function manualValueRange(field: string): { min: number; max: number; integer: boolean } {
  const def = FIELD_BY_NAME.get(field);
  if (!def || !def.correctable) throw new FieldNotCorrectableError(field);
  if (def.unit === 'qty') return { min: 0, max: MAX_MANUAL_QTY, integer: true };
  if (def.unit === 'percent') return { min: -MAX_MANUAL_PERCENT, max: MAX_MANUAL_PERCENT, integer: false };
  const perUnit = field === 'cost_price' || field === 'own_cost_price';
  return { min: perUnit ? 0 : -MAX_MANUAL_MONEY, max: MAX_MANUAL_MONEY, integer: true };
}

export interface DroppedManualValue {
  article: string;
  field: string;
  value: number;
}

/** Manual values in the field's unit: money and counts are integers, percents keep 2 decimals. */
export function normalizeManualValue(field: string, value: number): number {
  const def = FIELD_BY_NAME.get(field);
  if (!def || !def.correctable) throw new FieldNotCorrectableError(field);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidManualValueError(field, value);
  const range = manualValueRange(field);
  if (value < range.min || value > range.max || (def.unit === 'qty' && !Number.isInteger(value))) {
    throw new ManualValueOutOfRangeError(field, value, range.min, range.max);
  }
  return def.unit === 'percent' ? roundHalfAway(value * 100) / 100 + 0 : roundHalfAway(value) + 0;
}

function aggregatesOf(values: Record<string, number | null>): AggregateValues {
  const a = {} as AggregateValues;
  for (const def of AGGREGATE_FIELDS) a[def.name] = values[def.name] ?? 0;
  return a;
}

export interface BuiltItems {
  items: ComputedItem[];
  dropped: DroppedManualValue[];
  /** How the «Без артикула» costs were spread (kopecks). */
  allocation: AllocationSummary;
  /** What the settings leave uncertain: `missing_cost_price`, `usn_minimum_tax`, `cost_attribution_exceeds_report`. */
  warnings: ReportWarning[];
  /** Which part of ads, storage and acceptance came from WB's APIs (set when settings.costs is). */
  attribution?: CostAttribution;
}

export function buildItems(
  parsed: Pick<ParsedReport, 'articles'>,
  settings: ReportSettings,
  manualByArticle: Record<string, ManualValues> = {},
): BuiltItems {
  const dropped: DroppedManualValue[] = [];
  const present = new Set<string>();
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  const costOf = (article: string) => (has(settings.costPrices, article) ? settings.costPrices[article] : 0);
  const ownOf = (article: string) => ownCostPerUnit(settings.ownCosts, article);
  // WB's per-article costs first (attribution.ts): they change which item carries ads, storage, acceptance.
  const attributed = settings.costs ? attributeCosts(parsed.articles, settings.costs) : null;
  const articles = attributed?.articles ?? parsed.articles;
  const adRevenue = (i: number) => attributed?.adRevenue[i] ?? 0;
  // Then the values without any allocation: the bases and the amounts to spread come from them.
  const bare = articles.map((art) => ({
    article: art.article,
    computed: deriveValues(art.aggregates, costOf(art.article)!, settings.tax, {}, 0, ownOf(art.article)),
  }));
  const { allocated, summary } = allocateUnassigned(bare, settings.allocation ?? DEFAULT_ALLOCATION);
  const items: ComputedItem[] = articles.map((art, i) => {
    present.add(art.article);
    const costPrice = costOf(art.article);
    const ownCost = ownOf(art.article);
    const manual: ManualValues = {};
    const given = has(manualByArticle, art.article) ? manualByArticle[art.article] : undefined;
    for (const [field, value] of Object.entries(given ?? {})) {
      if (value === undefined || value === null) continue;
      if (!isCorrectable(field) || typeof value !== 'number' || !Number.isFinite(value)) {
        dropped.push({ article: art.article, field, value: value as number });
        continue;
      }
      manual[field as FieldName] = normalizeManualValue(field, value);
    }
    return {
      article: art.article,
      category: art.category,
      nm_id: art.nm_id,
      brand: art.brand,
      computed: deriveValues(art.aggregates, costPrice!, settings.tax, {}, allocated[i], ownCost, adRevenue(i)),
      manual_values: manual,
      effective: deriveValues(art.aggregates, costPrice!, settings.tax, manual, allocated[i], ownCost, adRevenue(i)),
    };
  });
  for (const [article, values] of Object.entries(manualByArticle)) {
    if (present.has(article)) continue;
    for (const [field, value] of Object.entries(values ?? {})) {
      if (value === undefined || value === null) continue;
      dropped.push({ article, field, value });
    }
  }
  const warnings: ReportWarning[] = [...(attributed?.warnings ?? [])];
  const missing = missingCostPriceWarning(items, settings.costPrices);
  if (missing) warnings.push(missing);
  const minimum = items.filter((it) => usnMinimumApplies(settings.tax, it.computed)).length;
  if (minimum > 0)
    warnings.push({
      code: 'usn_minimum_tax',
      message:
        'УСН «доходы минус расходы»: где налог с разницы меньше 1 % доходов, показан минимальный налог (1 % доходов) — это оценка, минимальный налог считается за год.',
      details: { articles: minimum, estimate: true },
    });
  return {
    items,
    dropped,
    allocation: summary,
    warnings,
    ...(attributed ? { attribution: attributed.summary } : {}),
  };
}

/**
 * `missing_cost_price`: articles that sold (sales_qty > 0) and have no cost price set, and their share of
 * the report's realization (percent to 2 decimals; null when the report's realization is ≤ 0). Their
 * profit, margin and ROI are overstated by the missing cost. Null when there are none.
 */
export function missingCostPriceWarning(
  items: ReadonlyArray<Pick<ComputedItem, 'article' | 'computed'>>,
  costPrices: Record<string, number>,
): ReportWarning | null {
  let count = 0;
  let realization = 0;
  let total = 0;
  const sample: string[] = [];
  for (const it of items) {
    const r = it.computed.realization ?? 0;
    total += r;
    if (it.article === '' || (it.computed.sales_qty ?? 0) <= 0) continue;
    if (Object.prototype.hasOwnProperty.call(costPrices, it.article)) continue;
    count++;
    realization += r;
    if (sample.length < 20) sample.push(it.article);
  }
  if (count === 0) return null;
  return {
    code: 'missing_cost_price',
    message: `Не указана себестоимость у ${count} артикулов с продажами: прибыль, маржа и ROI по ним завышены.`,
    details: {
      articles: count,
      realization_share: total > 0 ? percentOf(realization, total) : null,
      realization,
      sample_articles: sample,
    },
  };
}

/**
 * Set (or with null remove) one manual value and re-derive the effective values. `computed` is untouched;
 * the snapshot cost price is `computed.cost_price`. Throws FieldNotCorrectableError for a field that
 * does not accept a manual value.
 */
export function applyManualValue(
  item: ComputedItem,
  field: string,
  value: number | null,
  tax: TaxProfile,
): ComputedItem {
  if (!isCorrectable(field)) throw new FieldNotCorrectableError(field);
  const manual: ManualValues = { ...item.manual_values };
  if (value === null) delete manual[field];
  else manual[field] = normalizeManualValue(field, value);
  const effective = deriveValues(
    aggregatesOf(item.computed),
    item.computed.cost_price ?? 0,
    tax,
    manual,
    item.computed.allocated_expenses ?? 0,
    item.computed.own_cost_price ?? 0,
    item.computed.ad_revenue ?? 0,
  );
  return { ...item, manual_values: manual, effective };
}

/** Re-derive every item's values under another tax profile (a rebuild with new settings keeps the aggregates). */
export function rederiveItem(
  item: ComputedItem,
  tax: TaxProfile,
  costPrice: number = item.computed.cost_price ?? 0,
  ownCostPrice: number = item.computed.own_cost_price ?? 0,
): ComputedItem {
  const aggregates = aggregatesOf(item.computed);
  const allocated = item.computed.allocated_expenses ?? 0;
  const adRevenue = item.computed.ad_revenue ?? 0;
  return {
    ...item,
    computed: deriveValues(aggregates, costPrice, tax, {}, allocated, ownCostPrice, adRevenue),
    effective: deriveValues(aggregates, costPrice, tax, item.manual_values, allocated, ownCostPrice, adRevenue),
  };
}
