/**
 * Stale in the report list (GET /api/reports): which reports of a page a rebuild would change, and why,
 * without reading their items. An uploaded report: the tax profile or the allocation method in force
 * now differs from the one it was built with (analytics.ts settingsChanged), or a cost price of one of
 * its articles in force on its date differs from the one in its analytics summary (cost prices changed
 * since the build), or so does an article's own costs per unit (own cost lines changed since). A combined report: one of its sources was rebuilt, corrected or deleted since it was
 * combined (combined-stale.ts). The report page computes the same from the items (settings.ts isStale).
 */
import type { ReportRecord } from '../store/report-record';
import type { SellerRecord } from '../store/sellers.repo';
import { listCostPrices, listSummaries, type StoredSummary } from '../store/summaries.repo';
import type { CostPricePeriod } from '../engine/periods';
import { ownCostPerUnit, ownCostRates, type OwnCostLine } from '../engine/own-costs';
import { getOwnCosts } from '../store/own-costs.repo';
import type { UserRecord } from '../store/users.repo';
import { priceOn, settingsChanged } from './analytics';
import { combinedStaleness } from './combined-stale';
import { settingsDate } from './settings';

export interface ListStaleness {
  stale: boolean;
  /** In Russian; null when not stale. */
  stale_reason: string | null;
}

export const STALE_TAX = 'Налоговые настройки или способ распределения расходов изменились после сборки отчёта.';
export const STALE_PRICES = 'Себестоимость товаров изменилась после сборки отчёта.';
export const STALE_OWN_COSTS = 'Свои расходы на единицу товара изменились после сборки отчёта.';

const FRESH: ListStaleness = { stale: false, stale_reason: null };

export async function listStaleness(
  user: UserRecord,
  records: ReadonlyArray<ReportRecord>,
  sellers: ReadonlyMap<string, SellerRecord>,
): Promise<Map<string, ListStaleness>> {
  const out = new Map<string, ListStaleness>();
  const ready = records.filter((r) => (r.status ?? 'ready') === 'ready');
  const singles = ready.filter((r) => !r.is_combined);
  const [summaries, prices, ownLines]: [Map<string, StoredSummary>, Map<string, CostPricePeriod[]>, OwnCostLine[]] =
    singles.length > 0
      ? await Promise.all([
          listSummaries(
            user.id,
            singles.map((r) => r.id),
          ),
          listCostPrices(user.id),
          getOwnCosts(user.id).then((b) => b.lines),
        ])
      : [new Map(), new Map(), []];
  await Promise.all(
    ready.map(async (r) => {
      if (r.is_combined) {
        const s = await combinedStaleness(user.id, r);
        out.set(r.id, { stale: s.stale, stale_reason: s.stale ? s.reason : null });
        return;
      }
      const seller = (r.seller_id && sellers.get(r.seller_id)) || null;
      if (settingsChanged(user, seller, r)) return void out.set(r.id, { stale: true, stale_reason: STALE_TAX });
      const summary = summaries.get(r.id);
      if (summary && summary.complete && summary.version === (r.version ?? 1)) {
        const date = settingsDate(r);
        const articles = summary.articles();
        const changed = articles.some((a) => a.article !== '' && priceOn(prices, a.article, date) !== a.cost_price);
        if (changed) return void out.set(r.id, { stale: true, stale_reason: STALE_PRICES });
        const own = ownCostRates(ownLines, date);
        if (articles.some((a) => ownCostPerUnit(own, a.article) !== (a.own_cost_price ?? 0)))
          return void out.set(r.id, { stale: true, stale_reason: STALE_OWN_COSTS });
      }
      out.set(r.id, FRESH);
    }),
  );
  return out;
}
