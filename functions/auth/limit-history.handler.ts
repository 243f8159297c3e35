import { limitHistory } from '../../shared/auth/profile';
import { limitHistoryDeps } from '../../shared/auth/profile-deps';
import { route, ROUTES } from '../../shared/http';

/**
 * GET /api/auth/limit-history?cursor= → {items, next_cursor}, newest first. Each record with a
 * report_id also carries report_title (the report's title now) and report_deleted (true when the
 * report is gone: deleted or an upload undone), read in one BatchGetItem for the page. The first page
 * (no cursor) also carries `totals` {charged, refunded, topped_up} of the whole history, so the page
 * shows the balance, what was charged and what was topped up from one source.
 */
export const handler = route(ROUTES.limitHistory, async (req) => ({
  status: 200,
  body: await limitHistory(limitHistoryDeps, req.user.id, req.query.cursor),
}));
