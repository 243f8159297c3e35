/**
 * Typed client of WB's promotion API (category «Продвижение», host advert-api; docs/WB-API.md «Promotion
 * (ads)»). One method per call, one HTTP request, one typed outcome (http.ts): the sync's cost steps
 * (shared/marketplaces/wb/sync/costs-step.ts) decide what happens next.
 *
 * - `GET /adv/v1/promotion/count`: every campaign id by type and status, with its last change time.
 * - `GET /api/advert/v2/adverts?ids=…`: campaigns' settings (name, payment type, cards).
 * - `GET /adv/v3/fullstats?ids=…&beginDate&endDate`: ≤ 50 campaigns, ≤ 31 days a call; per day, per
 *   platform, per card (nmId): spend `sum` and the orders put down to it `sum_price` (roubles).
 * - `GET /adv/v1/upd?from&to`: the actual charges, with the payment type (≤ 31 days).
 *
 * The base URL is the setting WB_ADVERT_API_URL (settings.ts). Unknown fields are dropped; amounts may
 * be numbers or decimal strings.
 */
import { z } from 'zod';
import type { ArticleAdRevenue, ArticleCost } from './costs';
import type { FetchLike, WbOutcome } from '../finance/finance-client';
import { wbRequest, type Check, type HttpOptions } from '../http';
import { moneyToKopecks } from '../money';

export const PROMOTION_COUNT_PATH = '/adv/v1/promotion/count';
export const ADVERTS_PATH = '/api/advert/v2/adverts';
export const FULLSTATS_PATH = '/adv/v3/fullstats';
export const UPD_PATH = '/adv/v1/upd';
/** fullstats: campaigns per call, days per call (WB's limits). */
export const FULLSTATS_MAX_IDS = 50;
export const FULLSTATS_MAX_DAYS = 31;
/** adverts: ids per call. */
export const ADVERTS_MAX_IDS = 50;
export const UPD_MAX_DAYS = 31;
/** Campaign statuses that may have statistics: 7 completed, 9 active, 11 paused (WB: -1 deleted, 4 ready, 8 declined). */
export const STATS_STATUSES: readonly number[] = [7, 9, 11];

const num = z.union([z.number(), z.string().regex(/^[+-]?\d+(\.\d+)?$/)]);
const money = num.transform((v) => moneyToKopecks(v));
const int = z.number().int();

export const promotionCountSchema = z.object({
  adverts: z
    .array(
      z.object({
        type: int,
        status: int,
        count: int.optional(),
        advert_list: z.array(z.object({ advertId: int, changeTime: z.string().optional() })).default([]),
      }),
    )
    .nullable()
    .default([]),
  all: int.optional(),
});
export type PromotionCount = z.output<typeof promotionCountSchema>;

export const advertsSchema = z.object({
  adverts: z
    .array(
      z.object({
        id: int,
        status: int,
        bid_type: z.string().optional(),
        settings: z.object({ name: z.string().optional(), payment_type: z.string().optional() }).partial().optional(),
        nm_settings: z.array(z.object({ nm_id: int })).optional(),
        timestamps: z
          .object({
            created: z.string().optional(),
            updated: z.string().optional(),
            started: z.string().nullable().optional(),
          })
          .optional(),
      }),
    )
    .nullable()
    .default([]),
});
export type AdvertsAnswer = z.output<typeof advertsSchema>;

const nmStat = z.object({ nmId: int, name: z.string().optional(), sum: money, sum_price: money.default(0) });
export const fullstatsSchema = z.array(
  z.object({
    advertId: int,
    sum: money.optional(),
    sum_price: money.optional(),
    days: z
      .array(
        z.object({
          date: z.string(),
          sum: money.optional(),
          apps: z
            .array(z.object({ appType: int.optional(), nms: z.array(nmStat).nullable().default([]) }))
            .nullable()
            .default([]),
        }),
      )
      .nullable()
      .default([]),
  }),
);
export type Fullstats = z.output<typeof fullstatsSchema>;

export const updSchema = z.array(
  z.object({
    updNum: int.optional(),
    updTime: z.string().nullable().optional(),
    updSum: money,
    advertId: int,
    campName: z.string().optional(),
    advertType: int.optional(),
    paymentType: z.string().optional(),
    advertStatus: int.optional(),
  }),
);
export type UpdCharges = z.output<typeof updSchema>;

export interface AdvertClient {
  promotionCount(): Promise<WbOutcome<PromotionCount>>;
  adverts(ids: readonly number[]): Promise<WbOutcome<AdvertsAnswer>>;
  /** ≤ 50 ids, [beginDate, endDate] ≤ 31 days (YYYY-MM-DD); more is refused before any request. */
  fullstats(ids: readonly number[], beginDate: string, endDate: string): Promise<WbOutcome<Fullstats>>;
  upd(from: string, to: string): Promise<WbOutcome<UpdCharges>>;
}

export interface AdvertClientOptions extends HttpOptions {
  fetch?: FetchLike;
}

const zodCheck =
  <S extends z.ZodType>(schema: S) =>
  (json: unknown): Check<z.output<S>> => {
    const parsed = schema.safeParse(json);
    if (parsed.success) return { success: true, data: parsed.data };
    const issue = parsed.error.issues[0];
    return { success: false, path: issue?.path.join('.') ?? '', message: issue?.message ?? 'unexpected shape' };
  };

const DAY_MS = 86_400_000;
/** Days from `from` to `to`, both counted (YYYY-MM-DD); NaN for a bad date. */
export function spanDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

const refused = (message: string): WbOutcome<never> => ({ kind: 'rejected', status: 400, message });

export function createAdvertClient(opts: AdvertClientOptions): AdvertClient {
  const get = <T>(path: string, check: (json: unknown) => Check<T>, isEmpty: (v: T) => boolean) =>
    wbRequest<T>(opts, 'GET', path, undefined, check, isEmpty);
  return {
    promotionCount: () =>
      get(PROMOTION_COUNT_PATH, zodCheck(promotionCountSchema), (v) => (v.adverts ?? []).length === 0),
    adverts: (ids) => {
      if (ids.length === 0 || ids.length > ADVERTS_MAX_IDS)
        return Promise.resolve(refused(`adverts: 1–${ADVERTS_MAX_IDS} ids`));
      return get(
        `${ADVERTS_PATH}?ids=${ids.join(',')}`,
        zodCheck(advertsSchema),
        (v) => (v.adverts ?? []).length === 0,
      );
    },
    fullstats: (ids, beginDate, endDate) => {
      if (ids.length === 0 || ids.length > FULLSTATS_MAX_IDS)
        return Promise.resolve(refused(`fullstats: 1–${FULLSTATS_MAX_IDS} ids`));
      const days = spanDays(beginDate, endDate);
      if (!(days >= 1 && days <= FULLSTATS_MAX_DAYS))
        return Promise.resolve(refused(`fullstats: 1–${FULLSTATS_MAX_DAYS} days`));
      const q = new URLSearchParams({ ids: ids.join(','), beginDate, endDate });
      return get(`${FULLSTATS_PATH}?${q.toString()}`, zodCheck(fullstatsSchema), (v) => v.length === 0);
    },
    upd: (from, to) => {
      const days = spanDays(from, to);
      if (!(days >= 1 && days <= UPD_MAX_DAYS)) return Promise.resolve(refused(`upd: 1–${UPD_MAX_DAYS} days`));
      const q = new URLSearchParams({ from, to });
      return get(`${UPD_PATH}?${q.toString()}`, zodCheck(updSchema), (v) => v.length === 0);
    },
  };
}

/**
 * fullstats → each card's spend and ad orders per day (kopecks), summed over platforms and over the
 * campaigns of the answer. Days outside [from, to] are left out; a day's date is its first ten characters.
 */
export function fullstatsToCosts(
  stats: Fullstats,
  from: string,
  to: string,
): { costs: ArticleCost[]; revenue: ArticleAdRevenue[] } {
  const cost = new Map<string, number>();
  const rev = new Map<string, number>();
  for (const campaign of stats)
    for (const day of campaign.days ?? []) {
      const date = day.date.slice(0, 10);
      if (date < from || date > to) continue;
      for (const app of day.apps ?? [])
        for (const nm of app.nms ?? []) {
          const key = `${date}|${nm.nmId}`;
          cost.set(key, (cost.get(key) ?? 0) + nm.sum);
          rev.set(key, (rev.get(key) ?? 0) + (nm.sum_price ?? 0));
        }
    }
  const split = (m: Map<string, number>) =>
    [...m]
      .filter(([, k]) => k !== 0)
      .map(([key, kopecks]) => {
        const [date, nm] = key.split('|') as [string, string];
        return { date, nmId: Number(nm), kopecks };
      });
  return { costs: split(cost), revenue: split(rev) };
}
