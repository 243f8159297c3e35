/**
 * The mail before a WB token expires (docs/API.md «WB connections»): once per token, EXPIRY_NOTICE_DAYS (shared/marketplaces/wb/token.ts)
 * before its `exp`, sent by the sync step on its injected clock. The connection records when it was
 * sent (`expiry_mail_sent_at`), a new token (PATCH) clears it; at the expiry the step stops the
 * connection (`token_expired`).
 *
 * Every connection whose token the step watches gets it (watchesToken, wb-connections.repo.ts): an
 * active one whatever its sync's state (syncing, stopped for limits, after a WB error) and a paused one,
 * which the tick looks at for the notice and the expiry alone, without a WB call. A token WB refused
 * (401/403) gets none: the connection asks for a new token already.
 *
 * At most once: the mark is written (conditionally on the connection's revision) before the mail goes
 * out, so of two steps only one sends; a failed send takes the mark back and the next step tries again.
 */
import { watchesToken, type WbConnectionRecord } from '../../../store/wb-connections.repo';
import { expiryNoticeAt } from '../token';

export function needsExpiryNotice(c: WbConnectionRecord, now: number): boolean {
  if (!watchesToken(c)) return false;
  const at = expiryNoticeAt(c);
  return at !== null && now >= at && now < Date.parse(c.expires_at);
}

export interface ExpiryNoticeDeps {
  connections: { saveConnection(c: WbConnectionRecord): Promise<WbConnectionRecord | null> };
  /** Mails the connection's user that its token expires at `expires_at`. */
  expiryMail: (c: WbConnectionRecord) => Promise<void>;
}

/** Marks and mails; the connection as written, or null when another write came first (nothing sent). */
export async function sendExpiryNotice(
  deps: ExpiryNoticeDeps,
  c: WbConnectionRecord,
  now: number,
): Promise<WbConnectionRecord | null> {
  const marked = await deps.connections.saveConnection({ ...c, expiry_mail_sent_at: new Date(now).toISOString() });
  if (!marked) return null;
  try {
    await deps.expiryMail(marked);
  } catch (e) {
    await deps.connections.saveConnection({ ...marked, expiry_mail_sent_at: null });
    throw e;
  }
  return marked;
}
