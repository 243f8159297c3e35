/**
 * The messages of the events (Russian; docs/NOTIFICATIONS.md «Events»): each a subject, plain text and
 * HTML, with the page it is about. Pure: the numbers come in (kopecks, percents), the text goes out.
 */
import type { NotificationEvent } from './ports';

/** Kopecks as «1 234 567,89 ₽» (narrow no-break spaces between thousands, as ru-RU writes them). */
export function rub(kopecks: number): string {
  const sign = kopecks < 0 ? '−' : '';
  const abs = Math.abs(Math.round(kopecks));
  const whole = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
  return `${sign}${whole},${String(abs % 100).padStart(2, '0')} ₽`;
}

export const pct = (p: number): string => `${p.toFixed(1).replace('.', ',')} %`;

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The ISO date `YYYY-MM-DD` as «DD.MM.YYYY». */
export const ruDate = (iso: string | null): string => (iso ? iso.slice(0, 10).split('-').reverse().join('.') : '—');

type Message = Pick<NotificationEvent, 'subject' | 'text' | 'html' | 'link'>;

/** Lines of «label: value» into text and HTML, with the link last. */
function compose(
  subject: string,
  intro: string,
  lines: Array<[string, string]>,
  link: string,
  linkText: string,
): Message {
  const text = [intro, '', ...lines.map(([k, v]) => `${k}: ${v}`), '', `${linkText}: ${link}`].join('\n');
  const rows = lines.map(([k, v]) => `<tr><td>${esc(k)}</td><td style="text-align:right"><b>${esc(v)}</b></td></tr>`);
  const html = `<p>${esc(intro)}</p><table>${rows.join('')}</table><p><a href="${esc(link)}">${esc(linkText)}</a></p>`;
  return { subject, text, html, link };
}

export interface ReportFacts {
  reportId: string;
  title: string;
  periodFrom: string | null;
  periodTo: string | null;
  /** Kopecks. */
  realization: number;
  profit: number;
  payout: number;
  /** Percent of realization; null without realization. */
  margin: number | null;
}

const reportLink = (appUrl: string, id: string) => `${appUrl.replace(/\/$/, '')}/reports/${id}`;
const period = (f: Pick<ReportFacts, 'periodFrom' | 'periodTo'>) => `${ruDate(f.periodFrom)}–${ruDate(f.periodTo)}`;

export function reportReadyMessage(appUrl: string, f: ReportFacts): Message {
  return compose(
    `Отчёт готов: ${period(f)}`,
    `Отчёт «${f.title}» посчитан.`,
    [
      ['Неделя', period(f)],
      ['Выручка (реализация)', rub(f.realization)],
      ['Прибыль', rub(f.profit)],
      ['Маржа', f.margin === null ? '—' : pct(f.margin)],
      ['К выплате', rub(f.payout)],
    ],
    reportLink(appUrl, f.reportId),
    'Открыть отчёт',
  );
}

export function penaltiesMessage(appUrl: string, f: ReportFacts, penalties: number, deductions: number): Message {
  const lines: Array<[string, string]> = [['Неделя', period(f)]];
  if (penalties !== 0) lines.push(['Штрафы', rub(Math.abs(penalties))]);
  if (deductions !== 0) lines.push(['Удержания (в т. ч. за самовыкупы)', rub(Math.abs(deductions))]);
  return compose(
    `Штрафы и удержания WB за ${period(f)}`,
    `В отчёте «${f.title}» WB удержал штрафы или удержания.`,
    lines,
    reportLink(appUrl, f.reportId),
    'Открыть отчёт',
  );
}

export function payoutExpectedMessage(
  appUrl: string,
  f: ReportFacts,
  p: { amount: number; approvedDate: string; expectedDate: string },
): Message {
  return compose(
    `Выплата за ${period(f)}: ${rub(p.amount)} ожидается ${ruDate(p.expectedDate)}`,
    `WB проверяет отчёт до ${ruDate(p.approvedDate)} (срок для возражений), затем переводит деньги в ближайший день выплат.`,
    [
      ['Неделя', period(f)],
      ['К выплате', rub(p.amount)],
      ['Отчёт утверждается', ruDate(p.approvedDate)],
      ['Ожидаемая дата выплаты', ruDate(p.expectedDate)],
    ],
    `${appUrl.replace(/\/$/, '')}/cash-flow`,
    'Открыть «Деньги»',
  );
}

export function payoutArrivedMessage(
  appUrl: string,
  f: Pick<ReportFacts, 'periodFrom' | 'periodTo'>,
  p: { amount: number; paidOn: string; expectedDate: string },
): Message {
  return compose(
    `Выплата за ${period(f)} пришла: ${rub(p.amount)}`,
    `Баланс WB «Можно вывести» вырос на выплату за неделю ${ruDate(p.paidOn)}.`,
    [
      ['Неделя', period(f)],
      ['Выплата', rub(p.amount)],
      ['Ожидалась', ruDate(p.expectedDate)],
      ['Пришла на баланс WB', ruDate(p.paidOn)],
    ],
    `${appUrl.replace(/\/$/, '')}/cash-flow`,
    'Открыть «Деньги»',
  );
}

export function limitsLowMessage(appUrl: string, remaining: number, average: number): Message {
  return compose(
    'Лимиты строк заканчиваются',
    'Оставшихся строк меньше, чем в среднем уходит на неделю отчётов: следующий отчёт может не поместиться.',
    [
      ['Осталось строк', remaining.toLocaleString('ru-RU')],
      ['В среднем за неделю (4 недели)', average.toLocaleString('ru-RU')],
    ],
    `${appUrl.replace(/\/$/, '')}/settings`,
    'Открыть настройки',
  );
}

export function profitDropMessage(appUrl: string, f: ReportFacts, average: number, dropPercent: number): Message {
  return compose(
    `Прибыль упала на ${pct(dropPercent)}: ${period(f)}`,
    `Прибыль недели ниже средней за четыре предыдущие недели.`,
    [
      ['Прибыль недели', rub(f.profit)],
      ['Средняя за 4 недели', rub(average)],
      ['Падение', pct(dropPercent)],
    ],
    reportLink(appUrl, f.reportId),
    'Открыть отчёт',
  );
}

export function mismatchMessage(appUrl: string, f: ReportFacts, difference: number): Message {
  return compose(
    `Расхождение с WB: ${period(f)}`,
    `Итоги отчёта «${f.title}» не сходятся с суммами WB.`,
    [
      ['Неделя', period(f)],
      ['Расхождение', rub(difference)],
    ],
    reportLink(appUrl, f.reportId),
    'Открыть отчёт',
  );
}

export function syncProblemMessage(appUrl: string, account: string, problem: string): Message {
  return compose(
    'Проблема синхронизации с WB',
    `Синхронизация кабинета WB ${account} остановилась или не удаётся.`,
    [['Что случилось', problem]],
    `${appUrl.replace(/\/$/, '')}/settings`,
    'Подключения WB',
  );
}
