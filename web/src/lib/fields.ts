// The per-item field table is shared with the backend (one list, one set of Russian titles).
import {
  FIELD_BY_NAME,
  FIELD_GROUPS,
  FIELDS,
  kopecksToRoubles,
  roublesToKopecks,
  type FieldDef,
  type FieldName,
  type FieldUnit,
} from '../../../shared/engine/fields';

// The engine's money helpers: the page sums integer kopecks as the server does, never float roubles.
export { FIELDS, FIELD_BY_NAME, kopecksToRoubles, roublesToKopecks };
export type { FieldDef, FieldName, FieldUnit };

export function fieldDef(name: string): FieldDef {
  const def = FIELD_BY_NAME.get(name);
  if (!def) throw new Error(`Unknown field ${name}`);
  return def;
}

export function fieldTitle(name: string): string {
  return FIELD_BY_NAME.get(name)?.title ?? name;
}

/**
 * Column groups of the items table: the one column order of the engine (FIELD_GROUPS), which the
 * export's columns follow too.
 */
export const COLUMN_GROUPS: ReadonlyArray<{ id: string; title: string; fields: readonly string[] }> = FIELD_GROUPS;

export const NO_ARTICLE_LABEL = 'Без артикула';
export const displayArticle = (article: string): string => (article === '' ? NO_ARTICLE_LABEL : article);
