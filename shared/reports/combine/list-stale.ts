/**
 * Stale in the report list (GET /api/reports): which reports of a page a rebuild would change, and why,
 * without reading their items. An uploaded report: the tax profile or the allocation method in force
 * now differs from the one it was built with (analytics.ts settingsChanged), or a cost price of one of
 * its articles in force on its date differs from the one in its analytics summary (cost prices changed
 * since the build), or so does an article's own costs per unit (own cost lines changed since). A combined report: one of its sources was rebuilt, corrected or deleted since it was
 * combined (combined-stale.ts). The report page computes the same from the items (settings.ts isStale).
 */
import type { ReportRecord } from '../../store/report-record';
import type { SellerRecord } from '../../store/sellers.repo';
import type { StoredSummary } from '../../store/summaries.repo';
import type { CostPricePeriod } from '../../engine/periods';
import { ownCostPerUnit, ownCostRates, type OwnCostLine } from '../../engine/own-costs';
import type { UserRecord } from '../../store/users.repo';
import { priceOn, settingsChanged, type SellerReader, type SummaryReader } from '../analytics/analytics';
import { combinedStaleness, type CombinedStaleDeps } from './combined-stale';
import { settingsDate, type SettingsDeps } from '../worker/report-settings';

export interface ListStaleness {
  stale: boolean;
  /** In Russian; null when not stale. */
  stale_reason: string | null;
}

export const STALE_TAX = 'Налоговые настройки или способ распределения расходов изменились после сборки отчёта.';
export const STALE_PRICES = 'Себестоимость товаров изменилась после сборки отчёта.';
export const STALE_OWN_COSTS = 'Свои расходы на единицу товара изменились после сборки отчёта.';

const FRESH: ListStaleness = { stale: false, stale_reason: null };

/** What the list's staleness reads: the page's summaries, the catalog's prices, combined reports' sources. */
export interface ListStaleDeps extends CombinedStaleDeps {
  summaries: SummaryReader;
  ownCosts: SettingsDeps['ownCosts'];
}

export async function listStaleness(
  deps: ListStaleDeps,
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
          deps.summaries.listSummaries(
            user.id,
            singles.map((r) => r.id),
          ),
          deps.summaries.listCostPrices(user.id),
          deps.ownCosts.getOwnCosts(user.id).then((b) => b.lines),
        ])
      : [new Map(), new Map(), []];
  await Promise.all(
    ready.map(async (r) => {
      if (r.is_combined) {
        const s = await combinedStaleness(deps, user.id, r);
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

/** A chosen report whose numbers a rebuild would change (combine, summary export). */
export interface StaleSource {
  id: string;
  title: string;
  /** In Russian. */
  reason: string;
}

/**
 * Which of `records` are stale, by the list's rules (listStaleness), in their order: what combine and
 * the summary export tell the caller they used as it is. Reads the user's sellers only when a record
 * names one.
 */
export async function staleSources(
  deps: ListStaleDeps & { sellers: Pick<SellerReader, 'listSellers'> },
  user: UserRecord,
  records: ReadonlyArray<ReportRecord>,
): Promise<StaleSource[]> {
  const sellers = new Map<string, SellerRecord>();
  if (records.some((r) => r.seller_id)) for (const s of await deps.sellers.listSellers(user.id)) sellers.set(s.id, s);
  const staleness = await listStaleness(deps, user, records, sellers);
  return records.flatMap((r) => {
    const s = staleness.get(r.id);
    return s?.stale ? [{ id: r.id, title: r.title, reason: s.stale_reason ?? STALE_PRICES }] : [];
  });
}
