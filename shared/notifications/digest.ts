/**
 * The weekly digest (docs/NOTIFICATIONS.md «Digest»): Monday 07:00 UTC (10:00 Moscow), one mail per
 * seller account with something new since the last Monday's run.
 *
 * Input: the run's moment (the clock), optionally one user (the operator's `--email`) and `force` (a
 * new key variant, to send again after an outage).
 * Output: how many digests were recorded, and how many users had nothing new.
 * Steps: the roster of the run's week (users an event was recorded for since the last run: report_ready
 * and the others, recorded by record.ts) → per user: the reports that became ready in the window, their
 * P&L lines (shared/engine/pnl.ts reportLines) summed, the five best and worst articles by profit, the
 * stale reports, what is missing (cost prices, WB's costs still loading) → a `digest` event, keyed
 * `digest:<user>:<ISO week>` so a run repeated records nothing new; the delivery tick mails it with
 * `List-Unsubscribe` (RFC 8058 one-click). A user whose reports are none: no mail.
 */
import { PNL_LINE_ORDER, reportLines } from '../engine/pnl';
import type { Clock } from '../deps';
import type { ReportRecord } from '../store/report-record';
import type { EventKind } from './channel';
import { pct, rub, ruDate } from './messages';
import type { NotificationEvent, NotificationStore } from './ports';
import { isoWeek, lastDigestRun } from './rules';
import { withDefaults } from './settings';
import { signUnsubscribe } from './unsubscribe-token';

const WEEK_MS = 7 * 86_400_000;

export interface ArticleProfit {
  article: string;
  /** Kopecks. */
  profit: number;
}

export interface DigestDeps {
  store: Pick<NotificationStore, 'digestUsers' | 'getSettings' | 'putEvent'>;
  users: { get(userId: string): Promise<{ id: string; email: string } | null> };
  /** The user's ready single (not combined) reports created in [fromMs, toMs). */
  reportsIn(userId: string, fromMs: number, toMs: number): Promise<ReportRecord[]>;
  /** Per-article profit of the reports, summed by article (kopecks). */
  articleProfits(reports: ReportRecord[]): Promise<ArticleProfit[]>;
  /** The titles of the user's stale reports (their numbers older than the catalog or settings). */
  staleReports(userId: string, reports: ReportRecord[]): Promise<string[]>;
  clock: Clock;
  appUrl(): string;
  unsubscribeKey(): string;
  /** The mailto: part of List-Unsubscribe. */
  mailFrom(): string;
}

export interface DigestContent {
  weekFrom: string | null;
  weekTo: string | null;
  reports: number;
  lines: Array<{ title: string; value: number }>;
  profit: number;
  realization: number;
  margin: number | null;
  best: ArticleProfit[];
  worst: ArticleProfit[];
  stale: string[];
  /** Articles without a cost price (their margin is not counted). */
  noCostPrice: number;
  /** WB's per-article costs still loading (ads, storage, acceptance), by report title. */
  costsPending: string[];
}

/** What a week's reports say (pure). */
export function digestContent(
  reports: ReportRecord[],
  articles: ArticleProfit[],
  stale: string[],
  noCostPrice: number,
): DigestContent {
  const sum: Record<string, number> = {};
  for (const r of reports)
    for (const [k, v] of Object.entries(r.totals)) if (typeof v === 'number') sum[k] = (sum[k] ?? 0) + v;
  const lines = reportLines(sum);
  const titled = PNL_LINE_ORDER.filter((l) => l.sign !== 0 && lines[l.key] !== undefined && lines[l.key] !== 0).map(
    (l) => ({ title: l.title, value: lines[l.key]! }),
  );
  const sorted = [...articles].filter((a) => a.article !== '').sort((a, b) => b.profit - a.profit);
  const froms = reports
    .map((r) => r.period_from)
    .filter((d): d is string => !!d)
    .sort();
  const tos = reports
    .map((r) => r.period_to)
    .filter((d): d is string => !!d)
    .sort();
  const realization = sum.realization ?? 0;
  const profit = sum.profit ?? 0;
  return {
    weekFrom: froms[0] ?? null,
    weekTo: tos[tos.length - 1] ?? null,
    reports: reports.length,
    lines: titled,
    profit,
    realization,
    margin: realization !== 0 ? Math.round((profit / realization) * 1000) / 10 : null,
    best: sorted.slice(0, 5),
    worst: sorted.length > 5 ? sorted.slice(-5).reverse() : [],
    stale,
    noCostPrice,
    costsPending: reports.filter((r) => (r.costs_pending ?? []).length > 0).map((r) => r.title),
  };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The digest mail (Russian): subject, text, HTML. */
export function digestMessage(
  c: DigestContent,
  links: { app: string; unsubscribe: string },
): Pick<NotificationEvent, 'subject' | 'text' | 'html' | 'link'> {
  const period = `${ruDate(c.weekFrom)}–${ruDate(c.weekTo)}`;
  const subject = `Сводка за неделю ${period}: прибыль ${rub(c.profit)}`;
  const reportsUrl = `${links.app}/reports`;
  const text: string[] = [
    `Новых отчётов: ${c.reports}. Выручка ${rub(c.realization)}, прибыль ${rub(c.profit)}, маржа ${c.margin === null ? '—' : pct(c.margin)}.`,
    '',
    'Прибыли и убытки:',
    ...c.lines.map((l) => `  ${l.title}: ${rub(l.value)}`),
    `  Прибыль: ${rub(c.profit)}`,
  ];
  const html: string[] = [
    `<p>Новых отчётов: <b>${c.reports}</b>. Выручка <b>${esc(rub(c.realization))}</b>, прибыль <b>${esc(rub(c.profit))}</b>, маржа <b>${c.margin === null ? '—' : esc(pct(c.margin))}</b>.</p>`,
    `<h3>Прибыли и убытки</h3><table>${c.lines.map((l) => `<tr><td>${esc(l.title)}</td><td style="text-align:right">${esc(rub(l.value))}</td></tr>`).join('')}<tr><td><b>Прибыль</b></td><td style="text-align:right"><b>${esc(rub(c.profit))}</b></td></tr></table>`,
  ];
  const list = (title: string, items: ArticleProfit[]) => {
    if (items.length === 0) return;
    text.push('', `${title}:`, ...items.map((a, i) => `  ${i + 1}. ${a.article}: ${rub(a.profit)}`));
    html.push(
      `<h3>${esc(title)}</h3><ol>${items.map((a) => `<li>${esc(a.article)}: ${esc(rub(a.profit))}</li>`).join('')}</ol>`,
    );
  };
  list('Лучшие артикулы по прибыли', c.best);
  list('Худшие артикулы по прибыли', c.worst);
  const notes: string[] = [];
  if (c.stale.length > 0) notes.push(`Устарели и ждут пересборки: ${c.stale.join(', ')}.`);
  if (c.noCostPrice > 0)
    notes.push(`Нет себестоимости у ${c.noCostPrice} артикулов: их маржа не считается — укажите её в каталоге.`);
  if (c.costsPending.length > 0)
    notes.push(`Реклама, хранение и приёмка ещё загружаются из WB: ${c.costsPending.join(', ')}.`);
  if (notes.length > 0) {
    text.push('', 'Чего не хватает:', ...notes.map((n) => `  — ${n}`));
    html.push(`<h3>Чего не хватает</h3><ul>${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  }
  text.push('', `Отчёты: ${reportsUrl}`, `P&L: ${links.app}/pnl`, '', `Отписаться от сводки: ${links.unsubscribe}`);
  html.push(
    `<p><a href="${esc(reportsUrl)}">Отчёты</a> · <a href="${esc(`${links.app}/pnl`)}">P&amp;L</a></p>`,
    `<p style="color:#888;font-size:12px"><a href="${esc(links.unsubscribe)}">Отписаться от сводки</a></p>`,
  );
  return { subject, text: text.join('\n'), html: html.join('\n'), link: reportsUrl };
}

export interface DigestRunResult {
  week: string;
  recorded: number;
  nothingNew: number;
  off: number;
}

/** The API's base URL of the app's origin (`APP_URL` serves the page; the API is under `/api` of it). */
const apiBase = (appUrl: string) => `${appUrl.replace(/\/$/, '')}/api`;

/** The digest run (see the module's comment). */
/** Accounts worked on at once: each is a few store reads, so the run waits on the store, not the CPU. */
export const DIGEST_CONCURRENCY = 16;

export async function runDigest(
  deps: DigestDeps,
  opts: { userIds?: string[]; force?: boolean; concurrency?: number } = {},
): Promise<DigestRunResult> {
  const now = deps.clock.now().getTime();
  const run = lastDigestRun(now);
  const week = isoWeek(run);
  const userIds = opts.userIds ?? (await deps.store.digestUsers(week));
  const out: DigestRunResult = { week, recorded: 0, nothingNew: 0, off: 0 };
  const app = deps.appUrl().replace(/\/$/, '');
  const one = async (userId: string): Promise<void> => {
    const user = await deps.users.get(userId);
    if (!user) return;
    if (!withDefaults(await deps.store.getSettings(userId)).events.digest.email) {
      out.off++;
      return;
    }
    const reports = await deps.reportsIn(userId, run - WEEK_MS, run);
    if (reports.length === 0) {
      out.nothingNew++;
      return;
    }
    const [articles, stale] = await Promise.all([deps.articleProfits(reports), deps.staleReports(userId, reports)]);
    // The build's warning (engine/build.ts `missing_cost_price`) counts the articles with sales and no price.
    const noCost = Math.max(
      0,
      ...reports.flatMap((r) =>
        r.warnings.filter((w) => w.code === 'missing_cost_price').map((w) => Number(w.details?.articles ?? 0)),
      ),
    );
    const content = digestContent(reports, articles, stale, noCost);
    const token = signUnsubscribe(deps.unsubscribeKey(), userId, 'digest' satisfies EventKind);
    const unsubscribe = `${apiBase(app)}/notifications/unsubscribe?token=${token}`;
    const msg = digestMessage(content, { app, unsubscribe });
    const key = `digest:${userId}:${week}${opts.force ? `:${deps.clock.now().toISOString()}` : ''}`;
    const fresh = await deps.store.putEvent({
      user_id: userId,
      key,
      kind: 'digest',
      ...msg,
      only: ['email'],
      headers: {
        'List-Unsubscribe': `<${unsubscribe}>, <mailto:${deps.mailFrom()}?subject=unsubscribe>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
      facts: { reports: content.reports, profit: content.profit, realization: content.realization },
      created_at: deps.clock.now().toISOString(),
    });
    if (fresh) out.recorded++;
  };
  let next = 0;
  const lanes = Array.from(
    { length: Math.max(1, Math.min(opts.concurrency ?? DIGEST_CONCURRENCY, userIds.length)) },
    async () => {
      while (next < userIds.length) await one(userIds[next++]!);
    },
  );
  await Promise.all(lanes);
  return out;
}
