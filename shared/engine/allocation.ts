/**
 * Spreading the costs without an article over the articles (docs/METRICS.md, Allocation of costs without an
 * article). The «Без артикула» item carries account-level storage, acceptance, deductions, penalties and
 * ads; each article gets a share of each of them by the chosen base (its realization, or its net units
 * sold), split exactly with the largest remainder method, and the no-article item gets minus their sum.
 * So Σ allocated_expenses = 0 and every report total is unchanged to the kopeck. Loans are not costs and
 * are never spread.
 */
import type { AllocationMethod, ItemValues } from './types';

export const ALLOCATION_METHODS: readonly AllocationMethod[] = ['realization', 'quantity', 'none'];
export const DEFAULT_ALLOCATION: AllocationMethod = 'realization';

/** The no-article item's fields that are spread, in the order the report shows them. */
export const ALLOCATED_FIELDS = ['storage', 'acceptance', 'deductions', 'penalties', 'ads'] as const;
export type AllocatedField = (typeof ALLOCATED_FIELDS)[number];

/** What a report says about its allocation (money in kopecks). */
export interface AllocationSummary {
  method: AllocationMethod;
  /** Per cost field: the amount taken from «Без артикула» and spread over the articles. */
  spread: Record<AllocatedField, number>;
  /** Σ spread. */
  total: number;
  /** Articles that received a share. */
  articles: number;
  /** Why nothing was spread although the method is not `none`: no «Без артикула» costs, or no article with a positive base. */
  reason?: 'nothing_to_spread' | 'no_base';
}

const zeroSpread = (): Record<AllocatedField, number> => ({
  storage: 0,
  acceptance: 0,
  deductions: 0,
  penalties: 0,
  ads: 0,
});

/**
 * `amount` (integer kopecks, any sign) split over `weights` (non-negative integers, Σ > 0) in proportion,
 * to whole kopecks: each share is the floor of its exact value, and the kopecks left go one each to the
 * largest remainders (ties: the larger weight, then the earlier index). Σ shares = amount exactly.
 */
export function largestRemainder(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((s, w) => s + BigInt(w), 0n);
  if (total <= 0n) throw new Error('largestRemainder: weights must sum to more than 0');
  const sign = amount < 0 ? -1 : 1;
  const abs = BigInt(Math.abs(amount));
  const shares: bigint[] = [];
  const rems: Array<{ i: number; r: bigint; w: number }> = [];
  let given = 0n;
  weights.forEach((w, i) => {
    const exact = abs * BigInt(w);
    const q = exact / total;
    shares.push(q);
    given += q;
    rems.push({ i, r: exact % total, w });
  });
  let left = Number(abs - given);
  rems.sort((a, b) => (a.r === b.r ? (a.w === b.w ? a.i - b.i : b.w - a.w) : a.r > b.r ? -1 : 1));
  for (const { i } of rems) {
    if (left <= 0) break;
    shares[i]! += 1n;
    left--;
  }
  return shares.map((s) => sign * Number(s) + 0);
}

/** The minimal view of an item allocation needs: its article and computed values. */
export interface AllocatableItem {
  article: string;
  computed: ItemValues;
}

/**
 * The allocated_expenses of each item (same order as `items`, kopecks) and the report's summary. Bases
 * and amounts are the COMPUTED values (the file's numbers): a later correction does not re-spread.
 * Articles with a base ≤ 0 (returns only, nothing sold) get no share.
 */
export function allocateUnassigned(
  items: readonly AllocatableItem[],
  method: AllocationMethod,
): { allocated: number[]; summary: AllocationSummary } {
  const allocated = items.map(() => 0);
  const summary: AllocationSummary = { method, spread: zeroSpread(), total: 0, articles: 0 };
  if (method === 'none') return { allocated, summary };
  const unassigned = items.findIndex((it) => it.article === '');
  const amounts = zeroSpread();
  if (unassigned >= 0) for (const f of ALLOCATED_FIELDS) amounts[f] = Number(items[unassigned]!.computed[f] ?? 0);
  if (ALLOCATED_FIELDS.every((f) => amounts[f] === 0))
    return { allocated, summary: { ...summary, reason: 'nothing_to_spread' } };
  const baseOf = (v: ItemValues): number =>
    method === 'quantity' ? Number(v.net_qty ?? 0) : Number(v.realization ?? 0);
  const receivers: number[] = [];
  const weights: number[] = [];
  items.forEach((it, i) => {
    if (it.article === '') return;
    const w = baseOf(it.computed);
    if (w > 0) {
      receivers.push(i);
      weights.push(w);
    }
  });
  if (receivers.length === 0) return { allocated, summary: { ...summary, reason: 'no_base' } };
  let total = 0;
  for (const f of ALLOCATED_FIELDS) {
    if (amounts[f] === 0) continue;
    const shares = largestRemainder(amounts[f], weights);
    shares.forEach((s, k) => (allocated[receivers[k]!]! += s));
    total += amounts[f];
  }
  allocated[unassigned] = -total + 0;
  return {
    allocated,
    summary: { method, spread: amounts, total, articles: receivers.length },
  };
}

/**
 * The allocation of a combined report: the sources' spreads summed per field. The method is the
 * sources' common one; `mixed` is true when they differ (the combined report says so in a warning).
 * Undefined when no source knows its allocation.
 */
export function combineAllocations(
  sources: ReadonlyArray<AllocationSummary | undefined>,
): { summary: AllocationSummary; mixed: boolean } | undefined {
  const known = sources.filter((s): s is AllocationSummary => s !== undefined);
  if (known.length === 0) return undefined;
  const spread = zeroSpread();
  let total = 0;
  for (const s of known) {
    for (const f of ALLOCATED_FIELDS) spread[f] += s.spread[f] ?? 0;
    total += s.total;
  }
  const method = known[0]!.method;
  const mixed = known.length !== sources.length || known.some((s) => s.method !== method);
  return { summary: { method, spread, total, articles: Math.max(...known.map((s) => s.articles)) }, mixed };
}
