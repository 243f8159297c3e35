/**
 * The 1-kopeck identity of docs/METRICS.md: on realization rows, realization − for_pay = commission + acquiring +
 * attorney_services, within 1 kopeck per realization row (WB rounds each column on its own). Holds when the
 * file has every column and no pickup or "Корректировка эквайринга" rows (those add to acquiring /
 * attorney_services outside realization). A reusable check for tests of readers and of the engine.
 */
import type { AggregateValues, ItemValues } from './types';

export interface IdentityViolation {
  article: string;
  /** realization − for_pay − (commission + acquiring + attorney_services), kopecks. */
  gap: number;
  allowed: number;
}

/**
 * Items of a ParsedReport (`aggregates`) or ComputedItems (`computed`). The allowance is 1 kopeck per
 * realization row: `rowsByArticle[article]` when given, else sales_qty + returns_qty (a row has quantity ≥ 1).
 * Returns the items that break the identity (empty when it holds).
 */
export function checkIdentity(
  items: ReadonlyArray<{ article: string; aggregates?: AggregateValues; computed?: ItemValues }>,
  rowsByArticle?: Readonly<Record<string, number>>,
): IdentityViolation[] {
  const out: IdentityViolation[] = [];
  for (const it of items) {
    const v = (it.aggregates ?? it.computed) as Record<string, number | null> | undefined;
    if (!v) throw new Error(`item "${it.article}" has neither aggregates nor computed values`);
    const n = (k: string): number => v[k] ?? 0;
    const gap = n('realization') - n('for_pay') - (n('commission') + n('acquiring') + n('attorney_services'));
    const allowed = rowsByArticle?.[it.article] ?? n('sales_qty') + n('returns_qty');
    if (Math.abs(gap) > allowed) out.push({ article: it.article, gap, allowed });
  }
  return out;
}
