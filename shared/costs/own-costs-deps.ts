/**
 * The composition of the own-costs use cases (own-costs.ts): the real store, the catalog lookup and the
 * clock: a const object the handlers pass (docs/ARCHITECTURE.md, wiring).
 */
import { systemClock } from '../deps';
import { getOwnCosts, saveOwnCosts } from '../store/own-costs.repo';
import { getProducts } from '../store/products.repo';
import type { OwnCostDeps } from './own-costs';

export const ownCostDeps: OwnCostDeps = {
  store: { getOwnCosts, saveOwnCosts },
  catalog: { knownArticles: async (userId, articles) => new Set((await getProducts(userId, articles)).keys()) },
  clock: systemClock,
};
