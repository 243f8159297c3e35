/**
 * The emulator's promotion data (WB's «Продвижение» API; docs/WB-API.md «Promotion (ads)»), made from the
 * same demo weeks as the Finance API's reports (weeks.ts), so that what the campaigns spent explains most
 * of each week's «ВБ.Продвижение» deductions:
 *
 * - campaign 7000001 (active) advertises the week's two best-selling cards, 7000002 (paused) the third
 *   and a card that has no rows that week (EXTRA_NM: spend the report cannot put on an article);
 *   7000003 was completed a month before the first week (no statistics in any week);
 * - of each week's deductions D: 40 % on card 1, 25 % on card 2, 20 % on card 3, 5 % on the extra card,
 *   so the campaigns explain 90 % and 10 % stays without an article; each card's week spread over its
 *   days exactly (largest remainder);
 * - the orders put down to the ads (`sum_price`): 4×, 3× and 2× the spend for cards 1–3, none for the extra.
 */
import { largestRemainder } from '../../../shared/engine/allocation';
import { normalizeText } from '../../../shared/engine/classify';
import { moneyToKopecks } from '../../../shared/marketplaces/wb/money';
import type { WbDetailedRow } from '../../../shared/marketplaces/wb/finance/schemas';
import type { EmulatedWeek } from './weeks';

export const CAMPAIGN_A = 7_000_001;
export const CAMPAIGN_B = 7_000_002;
export const CAMPAIGN_DONE = 7_000_003;
/** A card no demo week has rows for. */
export const EXTRA_NM = 99_000_001;

const SHARES = [40, 25, 20, 5] as const; // percent of the week's deductions: cards 1–3, then the extra card
const ORDERS_PER_SPEND = [4, 3, 2, 0] as const;

export interface CardDay {
  nmId: number;
  /** kopecks */
  sum: number;
  sum_price: number;
}

export interface Campaign {
  advertId: number;
  type: number;
  status: number;
  name: string;
  changeTime: string;
  paymentType: string;
  nms: number[];
}

export interface WeekPromotion {
  reportId: number;
  dateFrom: string;
  dateTo: string;
  /** Σ «ВБ.Продвижение» deductions of the week's rows, kopecks. */
  deductions: number;
  /** The week's spend per card (kopecks), the three cards with rows first, then EXTRA_NM. */
  spend: Array<{ nmId: number; advertId: number; kopecks: number; orders: number }>;
}

export interface Promotion {
  campaigns: Campaign[];
  weeks: WeekPromotion[];
  /** advertId → date → cards. */
  daily: Map<number, Map<string, CardDay[]>>;
}

const DAY_MS = 86_400_000;
const addDays = (iso: string, n: number) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

const isAds = (r: WbDetailedRow) => normalizeText(r.bonusTypeName ?? '').includes('продвижен');

function kop(v: unknown): number {
  if (v === undefined || v === null || v === '') return 0;
  return moneyToKopecks(v as string | number);
}

/** The week's cards by rows sold, most first (nmId ≠ 0). */
function bestCards(rows: readonly WbDetailedRow[]): number[] {
  const sold = new Map<number, number>();
  for (const r of rows) {
    const nm = Number(r.nmId ?? 0);
    if (!nm || normalizeText(r.sellerOperName ?? '') !== 'продажа') continue;
    sold.set(nm, (sold.get(nm) ?? 0) + 1);
  }
  return [...sold].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([nm]) => nm);
}

export function promotionOf(weeks: readonly EmulatedWeek[]): Promotion {
  const daily = new Map<number, Map<string, CardDay[]>>([
    [CAMPAIGN_A, new Map()],
    [CAMPAIGN_B, new Map()],
  ]);
  const out: WeekPromotion[] = [];
  const nmsA = new Set<number>();
  const nmsB = new Set<number>([EXTRA_NM]);
  for (const w of weeks) {
    const deductions = w.rows.filter(isAds).reduce((s, r) => s + kop(r.deduction), 0);
    const cards = bestCards(w.rows).slice(0, 3);
    const spend: WeekPromotion['spend'] = [];
    if (deductions > 0 && cards.length === 3) {
      const nms = [...cards, EXTRA_NM];
      nms.forEach((nmId, i) => {
        const advertId = i < 2 ? CAMPAIGN_A : CAMPAIGN_B;
        (advertId === CAMPAIGN_A ? nmsA : nmsB).add(nmId);
        const kopecks = Math.floor((deductions * SHARES[i]!) / 100);
        spend.push({ nmId, advertId, kopecks, orders: kopecks * ORDERS_PER_SPEND[i]! });
        const days = largestRemainder(kopecks, [1, 1, 1, 1, 1, 1, 1]);
        const orders = largestRemainder(kopecks * ORDERS_PER_SPEND[i]!, [1, 1, 1, 1, 1, 1, 1]);
        days.forEach((k, d) => {
          const date = addDays(w.item.dateFrom, d);
          const byDay = daily.get(advertId)!;
          byDay.set(date, [...(byDay.get(date) ?? []), { nmId, sum: k, sum_price: orders[d]! }]);
        });
      });
    }
    out.push({ reportId: w.item.reportId, dateFrom: w.item.dateFrom, dateTo: w.item.dateTo, deductions, spend });
  }
  const first = weeks[0]?.item.dateFrom ?? '2026-01-05';
  const campaigns: Campaign[] = [
    {
      advertId: CAMPAIGN_A,
      type: 9,
      status: 9,
      name: 'Демо: хиты недели',
      changeTime: `${first}T09:00:00+03:00`,
      paymentType: 'Счет',
      nms: [...nmsA],
    },
    {
      advertId: CAMPAIGN_B,
      type: 9,
      status: 11,
      name: 'Демо: новинки',
      changeTime: `${first}T09:00:00+03:00`,
      paymentType: 'Счет',
      nms: [...nmsB],
    },
    {
      advertId: CAMPAIGN_DONE,
      type: 8,
      status: 7,
      name: 'Демо: прошлый сезон',
      changeTime: `${addDays(first, -30)}T18:00:00+03:00`,
      paymentType: 'Баланс',
      nms: [],
    },
  ];
  return { campaigns, weeks: out, daily };
}
