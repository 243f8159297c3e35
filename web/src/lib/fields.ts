// The per-item field table is shared with the backend (one list, one set of Russian titles).
import {
  FIELD_BY_NAME,
  FIELD_GROUPS,
  FIELDS,
  kopecksToRoubles,
  roublesToKopecks,
  type FieldName,
  type FieldUnit,
} from '../../../shared/engine/fields';

// The engine's money helpers: the page sums integer kopecks as the server does, never float roubles.
export { FIELDS, FIELD_BY_NAME, kopecksToRoubles, roublesToKopecks };
export type { FieldName, FieldUnit };

export function fieldTitle(name: string): string {
  return FIELD_BY_NAME.get(name)?.title ?? name;
}

/** The result fields in the order a P&L reads them: profit, margin, payout, then ROI. */
const RESULT_ORDER: readonly FieldName[] = ['profit', 'margin', 'payout', 'roi'];

/**
 * Column groups of the items table, read like a P&L: the result (profit, margin, payout) right after the
 * article, then the engine's groups in their order (FIELD_GROUPS, which the export follows) from sales to
 * taxes. Every field once.
 */
export const COLUMN_GROUPS: ReadonlyArray<{ id: string; title: string; fields: readonly string[] }> = (() => {
  const result = FIELD_GROUPS.find((g) => g.id === 'result')!;
  const ordered = [...RESULT_ORDER, ...result.fields.filter((f) => !RESULT_ORDER.includes(f))];
  return [{ ...result, fields: ordered }, ...FIELD_GROUPS.filter((g) => g.id !== 'result')];
})();

/**
 * The compact preset «Главное»: what a seller reads first — realization, the result, quantity and cost
 * (the cost price and the seller's own per-unit costs).
 * On a phone the same preset is a card per article (realization, profit, margin).
 */
export const MAIN_FIELDS: readonly FieldName[] = [
  'realization',
  'profit',
  'margin',
  'payout',
  'net_qty',
  'cost_price',
  'cost_total',
  'own_costs',
];

const NO_ARTICLE_LABEL = 'Без артикула';
export const displayArticle = (article: string): string => (article === '' ? NO_ARTICLE_LABEL : article);
