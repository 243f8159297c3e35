/** The digest's composition (digest.ts): the stores of the reports and the notifications, the real clock. */
import { getConfig } from '../config';
import { systemClock } from '../deps';
import { staleSources } from '../reports/combine/list-stale';
import { readDeps } from '../reports/read-deps';
import { notificationStore } from '../store/notifications.repo';
import type { ReportRecord } from '../store/report-record';
import { getReportItems, listReports } from '../store/reports.repo';
import { getUserById } from '../store/users.repo';
import type { ArticleProfit, DigestDeps } from './digest';
import { unsubscribeKey } from './unsubscribe-key';

/** A user's ready single reports created in [fromMs, toMs) (the newest 50 are enough for a week). */
async function reportsIn(userId: string, fromMs: number, toMs: number): Promise<ReportRecord[]> {
  const page = await listReports(userId, { ready: true, limit: 50 });
  return page.items.filter((r) => {
    const at = Date.parse(r.created_at);
    return !r.is_combined && at >= fromMs && at < toMs;
  });
}

async function articleProfits(reports: ReportRecord[]): Promise<ArticleProfit[]> {
  const by = new Map<string, number>();
  for (const r of reports)
    for (const it of await getReportItems(r))
      by.set(it.article, (by.get(it.article) ?? 0) + Number(it.effective.profit ?? 0));
  return [...by].map(([article, profit]) => ({ article, profit }));
}

export const digestDeps: DigestDeps = {
  store: notificationStore,
  users: { get: getUserById },
  reportsIn,
  articleProfits,
  staleReports: async (userId, reports) => {
    const user = await getUserById(userId);
    return user ? (await staleSources(readDeps, user, reports)).map((s) => s.title) : [];
  },
  clock: systemClock,
  appUrl: () => getConfig().APP_URL,
  unsubscribeKey,
  mailFrom: () => getConfig().MAIL_FROM,
};
