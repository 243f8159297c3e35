/**
 * A WB connection as the API shows it (shapes.ts `WbConnection`): never the token, only its last four
 * characters; the sync's state and this round's progress.
 */
import type { WbConnection } from '../../../contract/shapes';
import type { WbConnectionRecord } from '../../../store/wb-connections.repo';

const iso = (ms: number) => new Date(ms).toISOString();

export function presentConnection(c: WbConnectionRecord): WbConnection {
  const active = c.status === 'active';
  const nextCallAt =
    active && c.cursor.phase !== 'blocked' && c.cursor.phase !== 'idle' ? iso(c.cursor.nextCallAt) : null;
  return {
    id: c.id,
    seller_id: c.seller_id,
    wb_seller_id: c.wb_seller_id,
    status: c.status,
    seller_name: c.seller_name,
    token_hint: c.token_hint,
    scopes: c.scopes,
    expires_at: c.expires_at,
    expiry_mail_sent_at: c.expiry_mail_sent_at ?? null,
    from: c.from,
    created_at: c.created_at,
    last_sync: c.last_sync,
    next_sync: active && c.cursor.phase === 'idle' ? iso(c.cursor.nextCallAt) : null,
    reports_imported: c.reports_imported,
    sync: {
      status: c.sync_status,
      progress: {
        reports_found: c.round.reports_found,
        reports_imported: c.round.reports_imported,
        rows_read: c.round.rows_read,
        next_call_at: nextCallAt,
      },
    },
    error: c.error,
    unread_reports: (c.cursor.unread ?? []).map((u) => ({
      wb_report_id: u.reportId,
      date_from: u.dateFrom,
      date_to: u.dateTo,
      reason: u.reason,
      attempts: u.attempts,
      since: iso(u.since),
    })),
  };
}
