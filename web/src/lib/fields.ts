// The per-item field table is shared with the backend (one list, one set of Russian titles).
import { FIELD_BY_NAME, FIELDS, type FieldDef, type FieldUnit } from '../../../shared/report/fields';

export { FIELDS, FIELD_BY_NAME };
export type { FieldDef, FieldUnit };

export function fieldDef(name: string): FieldDef {
  const def = FIELD_BY_NAME.get(name);
  if (!def) throw new Error(`Unknown field ${name}`);
  return def;
}

export function fieldTitle(name: string): string {
  return FIELD_BY_NAME.get(name)?.title ?? name;
}

/**
 * Column groups of the items table, in the order of docs/METRICS.md "The way from the seller's price to
 * profit" (and of the export's columns).
 */
export const COLUMN_GROUPS: ReadonlyArray<{ id: string; title: string; fields: readonly string[] }> = [
  { id: 'sales', title: 'Продажи', fields: ['sales_qty', 'returns_qty', 'net_qty', 'avg_seller_price'] },
  {
    id: 'price',
    title: 'От цены продавца к реализации',
    fields: ['seller_price', 'sales_seller_price', 'wb_discount', 'realization'],
  },
  {
    id: 'wb',
    title: 'Вознаграждение WB',
    fields: ['category_commission_percent', 'commission', 'acquiring', 'attorney_services', 'for_pay'],
  },
  { id: 'extra', title: 'Компенсации и доплаты', fields: ['compensations', 'additional_payments', 'loyalty'] },
  {
    id: 'services',
    title: 'Логистика и услуги WB',
    fields: [
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
    fields: ['cost_price', 'cost_total', 'income', 'vat', 'usn', 'expenses', 'allocated_expenses'],
  },
  { id: 'result', title: 'Результат', fields: ['profit', 'margin', 'roi', 'payout'] },
];

export const NO_ARTICLE_LABEL = 'Без артикула';
export const displayArticle = (article: string): string => (article === '' ? NO_ARTICLE_LABEL : article);
