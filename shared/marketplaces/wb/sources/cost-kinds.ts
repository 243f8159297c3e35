/**
 * The pure part of WB's per-article cost sources (sources/index.ts `COST_SOURCES` registers the rest): each
 * kind of cost, the report field its costs replace (shared/engine/fields.ts) and its title. The one list of
 * cost kinds: attribution (shared/engine/attribution.ts), the contract's `cost_attribution` keys
 * (shared/contract/shapes.ts) and the stored costs (shared/store/wb-costs.repo.ts) derive from it.
 *
 * No imports: the engine and the contract (which the web bundles) read this module.
 */

/** One kind of per-article cost. */
export interface CostKindInfo {
  /** The kind's stored name (wb-costs.repo.ts keys, the cost jobs). */
  kind: string;
  /** The money field of the report's aggregates the kind's costs replace (shared/engine/fields.ts). */
  field: string;
  /** Russian title, as the report names the field. */
  title: string;
  /** What the data is about, as «данные … от WB ещё загружаются» names it while it is pending. */
  pending: string;
}

export const COST_KINDS = [
  { kind: 'ads', field: 'ads', title: 'Реклама', pending: 'о рекламе' },
  { kind: 'storage', field: 'storage', title: 'Хранение', pending: 'о хранении' },
  { kind: 'acceptance', field: 'acceptance', title: 'Приёмка', pending: 'о приёмке' },
  {
    kind: 'acquiring_billed',
    field: 'acquiring_billed',
    title: 'Эквайринг отдельным счётом',
    pending: 'об эквайринге',
  },
] as const satisfies readonly CostKindInfo[];

export type CostKind = (typeof COST_KINDS)[number]['kind'];
export type CostField = (typeof COST_KINDS)[number]['field'];

/** The kinds' fields, in the list's order (a tuple, for z.enum). */
export const COST_FIELDS = COST_KINDS.map((k) => k.field) as unknown as readonly [CostField, ...CostField[]];

/** The kinds' names, in the list's order (a tuple, for z.enum). */
export const COST_KIND_NAMES = COST_KINDS.map((k) => k.kind) as unknown as readonly [CostKind, ...CostKind[]];

/** The kind's entry. */
export function costKind(kind: CostKind): (typeof COST_KINDS)[number] {
  return COST_KINDS.find((k) => k.kind === kind)!;
}
