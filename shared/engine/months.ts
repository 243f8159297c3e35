/** Calendar months as the P&L, its export and its page name them. */
const MONTHS = [
  'Январь',
  'Февраль',
  'Март',
  'Апрель',
  'Май',
  'Июнь',
  'Июль',
  'Август',
  'Сентябрь',
  'Октябрь',
  'Ноябрь',
  'Декабрь',
];

/** «Январь 2026» for `2026-01`. */
export const monthTitle = (m: string): string => `${MONTHS[Number(m.slice(5, 7)) - 1]} ${m.slice(0, 4)}`;

/** Month names by case: «с мая» (genitive), «в мае» (prepositional); «по май» takes the nominative. */
const GENITIVE = [
  'января',
  'февраля',
  'марта',
  'апреля',
  'мая',
  'июня',
  'июля',
  'августа',
  'сентября',
  'октября',
  'ноября',
  'декабря',
];
const PREPOSITIONAL = [
  'январе',
  'феврале',
  'марте',
  'апреле',
  'мае',
  'июне',
  'июле',
  'августе',
  'сентябре',
  'октябре',
  'ноябре',
  'декабре',
];
const index = (m: string): number => Number(m.slice(5, 7)) - 1;

/** «с мая 2026» for `2026-05`. */
export const sinceMonth = (m: string): string => `с ${GENITIVE[index(m)]} ${m.slice(0, 4)}`;
/** «по май 2026» for `2026-05` (through the month: the accusative, which for months is the nominative). */
export const untilMonth = (m: string): string => `по ${MONTHS[index(m)]!.toLowerCase()} ${m.slice(0, 4)}`;
/** «в мае 2026» for `2026-05`. */
export const inMonth = (m: string): string => `в ${PREPOSITIONAL[index(m)]} ${m.slice(0, 4)}`;

/**
 * A summarised amount by its size (a banner, a sentence — tables keep kopecks): whole roubles below a
 * million («8 220 ₽»), millions with one decimal from a million on («1,2 млн ₽», «20 млн ₽»). Kopecks in.
 */
export function amountBySize(kopecks: number): string {
  const roubles = kopecks / 100;
  if (Math.abs(roubles) < 1_000_000) return `${Math.round(roubles).toLocaleString('ru-RU')} ₽`;
  return `${(Math.round(roubles / 100_000) / 10).toLocaleString('ru-RU', { maximumFractionDigits: 1 })} млн ₽`;
}
