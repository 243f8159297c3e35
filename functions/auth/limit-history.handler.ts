import { cursorQuerySchema, http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { listLimitHistory, sumLimitHistory } from '../../shared/store/limits.repo';
import { getReportTitles } from '../../shared/store/reports.repo';

const route = { auth: 'user', query: cursorQuerySchema } satisfies HttpOptions;

/**
 * GET /api/auth/limit-history?cursor= → {items, next_cursor}, newest first. Each record with a
 * report_id also carries report_title (the report's title now) and report_deleted (true when the
 * report is gone: deleted or an upload undone), read in one BatchGetItem for the page. The first page
 * (no cursor) also carries `totals` {charged, refunded, topped_up} of the whole history, so the page
 * shows the balance, what was charged and what was topped up from one source.
 */
export async function main(req: HttpRequest<typeof route>) {
  const [page, totals] = await Promise.all([
    listLimitHistory(req.user.id, req.query.cursor),
    req.query.cursor ? Promise.resolve(undefined) : sumLimitHistory(req.user.id),
  ]);
  const ids = page.items.map((e) => e.report_id).filter((id): id is string => id !== null);
  const titles = ids.length > 0 ? await getReportTitles(req.user.id, ids) : new Map<string, string>();
  return json(200, {
    ...page,
    ...(totals ? { totals } : {}),
    items: page.items.map((e) => ({
      ...e,
      report_title: e.report_id ? (titles.get(e.report_id) ?? null) : null,
      report_deleted: e.report_id ? !titles.has(e.report_id) : false,
    })),
  });
}

export const handler = http(route, main);
