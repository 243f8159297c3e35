/**
 * Every per-item number of docs/METRICS.md, with its unit and role. One table that the engine, the store,
 * the API (kopecks → roubles), the exports and the web page all read, so a field is named once.
 *
 * Units as held in memory and in storage:
 * - money: integer kopecks (roubles with 2 decimals only at the edges)
 * - qty: integer count
 * - percent: number like 27.5, kept to 2 decimals
 */
export type FieldUnit = 'money' | 'qty' | 'percent';

export interface FieldDef {
  readonly name: string;
  readonly unit: FieldUnit;
  /** Accepts a manual value (docs/METRICS.md, Manual values). */
  readonly correctable: boolean;
  /** How a combined report gets it: 'sum' of the sources' effective values, or 'recompute' on the sums. */
  readonly combine: 'sum' | 'recompute';
  /** Russian column title for exports and the web page. */
  readonly title: string;
}

const f = <N extends string>(
  name: N,
  unit: FieldUnit,
  correctable: boolean,
  combine: 'sum' | 'recompute',
  title: string,
) => ({ name, unit, correctable, combine, title }) as const satisfies FieldDef;

/** Aggregates read from the report rows (docs/METRICS.md, Aggregates per article). */
export const AGGREGATE_FIELDS = [
  f('sales_qty', 'qty', true, 'sum', 'Продажи, шт'),
  f('returns_qty', 'qty', true, 'sum', 'Возвраты, шт'),
  f('seller_price', 'money', true, 'sum', 'Цена продавца'),
  f('sales_seller_price', 'money', false, 'sum', 'Цена продавца (продажи)'),
  f('wb_discount', 'money', false, 'sum', 'Скидка WB (СПП)'),
  f('realization', 'money', true, 'sum', 'Реализация'),
  f('commission', 'money', true, 'sum', 'Комиссия WB'),
  f('acquiring', 'money', true, 'sum', 'Эквайринг'),
  // Acquiring of rows whose payment is «Комиссия за организацию платежа с НДС»: not inside for_pay, billed
  // by WB separately: an expense, never a payout line (docs/METRICS.md, Row money).
  f('acquiring_billed', 'money', false, 'sum', 'Эквайринг отдельным счётом'),
  f('attorney_services', 'money', true, 'sum', 'Услуги поверенного'),
  f('for_pay', 'money', true, 'sum', 'К перечислению'),
  f('compensations', 'money', false, 'sum', 'Компенсации'),
  f('additional_payments', 'money', false, 'sum', 'Доплаты'),
  // What the loyalty programme withholds: −(cashback_amount + cashback_commission_change), a payout line.
  f('loyalty', 'money', false, 'sum', 'Лояльность'),
  // Σ cashback_discount: shown «в т. ч.» inside WB's sale, already in for_pay; for reference only.
  f('loyalty_discount', 'money', false, 'sum', 'Компенсация скидки лояльности (в т. ч.)'),
  f('logistics', 'money', true, 'sum', 'Логистика'),
  f('reverse_logistics', 'money', true, 'sum', 'Обратная логистика'),
  // Σ rebill_logistic_cost: WB nets it inside its reward on the same row (vw + vw_nds = −rebill, for_pay = 0),
  // so it moves no money: for reference only, neither an expense nor a payout line (docs/METRICS.md).
  f('rebill_logistics', 'money', false, 'sum', 'Ребилл логистики, зачтён в вознаграждении ВБ'),
  f('storage', 'money', true, 'sum', 'Хранение'),
  f('acceptance', 'money', true, 'sum', 'Приёмка'),
  f('penalties', 'money', true, 'sum', 'Штрафы'),
  f('deductions', 'money', true, 'sum', 'Удержания'),
  f('ads', 'money', true, 'sum', 'Реклама'),
  f('loans', 'money', false, 'sum', 'Займы'),
  f('category_commission_percent', 'percent', false, 'recompute', 'Размер кВВ, %'),
] as const;

/** Snapshot of settings and values derived per item (docs/METRICS.md, Derived values per item), in computation order. */
export const DERIVED_FIELDS = [
  f('cost_price', 'money', true, 'recompute', 'Себестоимость за шт, ₽'),
  f('net_qty', 'qty', false, 'recompute', 'Чистые продажи, шт'),
  f('avg_seller_price', 'money', false, 'recompute', 'Средняя цена продавца'),
  f('income', 'money', false, 'sum', 'Доход (база налога)'),
  f('vat', 'money', true, 'sum', 'НДС'),
  f('cost_total', 'money', false, 'sum', 'Себестоимость'),
  f('expenses', 'money', false, 'sum', 'Расходы'),
  // The item's share of the «Без артикула» costs (allocation.ts); minus their sum on «Без артикула» itself.
  f('allocated_expenses', 'money', false, 'sum', 'Распределённые расходы'),
  f('usn', 'money', true, 'sum', 'УСН'),
  f('profit', 'money', true, 'sum', 'Прибыль'),
  f('margin', 'percent', true, 'recompute', 'Маржа, %'),
  f('roi', 'percent', false, 'recompute', 'ROI, %'),
  f('payout', 'money', false, 'sum', 'К выплате'),
  // Orders WB's promotion API puts down to the article's campaigns (attribution.ts); 0 without that API.
  f('ad_revenue', 'money', false, 'sum', 'Заказы с рекламы'),
  // ads ÷ realization and ad_revenue ÷ ads (docs/METRICS.md, ДРР and ROAS).
  f('drr', 'percent', false, 'recompute', 'ДРР, %'),
  f('roas', 'percent', false, 'recompute', 'ROAS, %'),
  // The seller's own per-unit costs (own-costs.ts): the snapshot per unit and its total, entering
  // expenses and profit like cost_price and cost_total, never the payout.
  f('own_cost_price', 'money', true, 'recompute', 'Свои расходы за шт, ₽'),
  f('own_costs', 'money', false, 'sum', 'Свои расходы'),
] as const;

export const FIELDS: ReadonlyArray<FieldDef & { readonly name: FieldName }> = [...AGGREGATE_FIELDS, ...DERIVED_FIELDS];

export type AggregateField = (typeof AGGREGATE_FIELDS)[number]['name'];

/** Every aggregate at 0: a line with no rows of its own (attribution's remainder), and tests' start. */
export function zeroAggregates(): Record<AggregateField, number> {
  return Object.fromEntries(AGGREGATE_FIELDS.map((d) => [d.name, 0])) as Record<AggregateField, number>;
}
export type DerivedField = (typeof DERIVED_FIELDS)[number]['name'];
export type FieldName = AggregateField | DerivedField;

export const FIELD_BY_NAME: ReadonlyMap<string, FieldDef & { readonly name: FieldName }> = new Map(
  FIELDS.map((d) => [d.name, d]),
);

/**
 * THE column order of every per-item table: the web page's items table (with these group titles) and
 * the XLSX export. It follows docs/METRICS.md "The way from the seller's price to profit": quantities,
 * seller_price − wb_discount = realization; realization − commission − acquiring − attorney_services ≈
 * for_pay; + compensations, additional payments, loyalty; − logistics … ads, loans; the tax base, VAT,
 * USN and cost; profit and its ratios, payout. Every field appears exactly once (a test checks it).
 */
export const FIELD_GROUPS: ReadonlyArray<{ id: string; title: string; fields: readonly FieldName[] }> = [
  { id: 'sales', title: 'Продажи', fields: ['sales_qty', 'returns_qty', 'net_qty', 'avg_seller_price'] },
  {
    id: 'price',
    title: 'От цены продавца к реализации',
    fields: ['seller_price', 'sales_seller_price', 'wb_discount', 'realization'],
  },
  {
    id: 'wb',
    title: 'От реализации к перечислению',
    // The category rate applies to the seller's price; shown beside WB's reward, never in its place.
    fields: ['category_commission_percent', 'commission', 'acquiring', 'attorney_services', 'for_pay'],
  },
  {
    id: 'extra',
    title: 'Компенсации и доплаты',
    fields: ['compensations', 'additional_payments', 'loyalty', 'loyalty_discount'],
  },
  {
    id: 'services',
    title: 'Логистика и услуги WB',
    fields: [
      'acquiring_billed',
      'logistics',
      'reverse_logistics',
      'rebill_logistics',
      'storage',
      'acceptance',
      'penalties',
      'deductions',
      'ads',
      'loans',
    ],
  },
  {
    id: 'tax',
    title: 'Себестоимость и налоги',
    fields: [
      'income',
      'vat',
      'usn',
      'cost_price',
      'cost_total',
      'own_cost_price',
      'own_costs',
      'allocated_expenses',
      'expenses',
    ],
  },
  { id: 'result', title: 'Результат', fields: ['profit', 'margin', 'roi', 'payout'] },
  { id: 'ads', title: 'Реклама', fields: ['ad_revenue', 'drr', 'roas'] },
];

/** FIELD_GROUPS flattened: the order of the columns. */
export const FIELD_ORDER: readonly FieldName[] = FIELD_GROUPS.flatMap((g) => g.fields);

export const CORRECTABLE_FIELDS: readonly FieldName[] = FIELDS.filter((d) => d.correctable).map((d) => d.name);

export function isCorrectable(name: string): name is FieldName {
  return FIELD_BY_NAME.get(name)?.correctable === true;
}

/** Kopecks → roubles with 2 decimals, for the edges (JSON, exports). */
export function kopecksToRoubles(kopecks: number): number {
  return Math.round(kopecks) / 100;
}

/** Roubles (from JSON) → integer kopecks, rounded half away from zero. */
export function roublesToKopecks(roubles: number): number {
  const k = roubles * 100;
  return Math.sign(k) * Math.round(Math.abs(k) + 1e-7);
}

/**
 * The «Размер кВВ, %» of an article without a sale or a return is unknown, not 0 (no row stated a rate;
 * the engine keeps 0): the web table shows «—», the export leaves the cell empty.
 */
export function isUnknownRate(field: string, values: Partial<Record<string, number | null>>): boolean {
  return (
    field === 'category_commission_percent' &&
    !values.category_commission_percent &&
    !values.sales_qty &&
    !values.returns_qty
  );
}

/** The ratios of an item that read «—» with a reason when undefined (docs/METRICS.md, margin and roi). */
export const REASONED_FIELDS = ['margin', 'roi'] as const;
export type ReasonedField = (typeof REASONED_FIELDS)[number];
/** Why margin or ROI is null: no cost price, no positive realization (margin), no net units sold (ROI). */
export const NULL_REASONS = ['no_cost_price', 'no_realization', 'no_net_sales'] as const;
export type NullReason = (typeof NULL_REASONS)[number];

const NULL_REASON_TEXT: Record<ReasonedField, Partial<Record<NullReason, string>>> = {
  margin: {
    no_cost_price: 'Нет себестоимости: маржа не считается — укажите её в каталоге',
    no_realization: 'Нет реализации: маржа не считается',
  },
  roi: {
    no_cost_price: 'Нет себестоимости: ROI не считается — укажите её в каталоге',
    no_net_sales: 'Нет чистых продаж: ROI не считается',
  },
};

type Values = Readonly<Partial<Record<string, number | null>>>;

/** Why an item's margin or ROI is null (derive.ts marginOf, roiOf); null when it has a value. */
export function nullReason(field: ReasonedField, v: Values): NullReason | null {
  if (v[field] !== null && v[field] !== undefined) return null;
  if (field === 'margin') {
    if ((v.realization ?? 0) <= 0) return 'no_realization';
    return 'no_cost_price';
  }
  if ((v.cost_price ?? 0) <= 0) return 'no_cost_price';
  return 'no_net_sales';
}

/** The Russian sentence of a reason (the page's hint, the export's cell note). */
export function nullReasonMessage(field: ReasonedField, reason: NullReason | null | undefined): string | null {
  return reason ? (NULL_REASON_TEXT[field][reason] ?? null) : null;
}

/** The Russian sentence of nullReason; null when the field has a value. */
export function nullReasonText(field: ReasonedField, v: Values): string | null {
  return nullReasonMessage(field, nullReason(field, v));
}

/** Every reason of an item, by field (the API's `null_reasons`). */
export function nullReasons(v: Values): Partial<Record<ReasonedField, NullReason>> {
  const out: Partial<Record<ReasonedField, NullReason>> = {};
  for (const f of REASONED_FIELDS) {
    const r = nullReason(f, v);
    if (r !== null) out[f] = r;
  }
  return out;
}
