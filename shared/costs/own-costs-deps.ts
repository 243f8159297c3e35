/**
 * The composition of the own-costs use cases (own-costs.ts): the real store, the catalog lookup and the
 * clock: a const object the handlers pass (docs/ARCHITECTURE.md, wiring).
 */
import { systemClock } from '../deps';
import { rebuildCovered } from '../reports/rebuild/rebuild-covered';
import { rebuildDeps } from '../reports/rebuild/rebuild-deps';
import { markRebuildAgain } from '../store/report-lifecycle.repo';
import { getOwnCosts, saveOwnCosts } from '../store/own-costs.repo';
import { getProducts } from '../store/products.repo';
import type { OwnCostDeps } from './own-costs';

export const ownCostDeps: OwnCostDeps = {
  store: { getOwnCosts, saveOwnCosts },
  catalog: { knownArticles: async (userId, articles) => new Set((await getProducts(userId, articles)).keys()) },
  clock: systemClock,
  changed: (userId, before, after) =>
    rebuildCovered(
      { ...rebuildDeps, lifecycle: { ...rebuildDeps.lifecycle, markRebuildAgain } },
      userId,
      before,
      after,
    ),
};
