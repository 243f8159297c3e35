/**
 * WB connections, the use cases behind /api/wb/connections (docs/API.md «WB connections»): connect with a
 * token (checked by one cheap call to WB), list, read, change (a new token, pause, the first day),
 * disconnect, and ask for a sync round now. The sync itself runs in steps (step.ts).
 *
 * The token is decoded only to show the seller what they pasted and to refuse an obviously unusable one
 * early (expired, no «Финансы»); WB's answer decides. It is sealed (envelope encryption, KeyWrapper:
 * KMS on AWS) before it is stored and never leaves this module in clear but towards WB.
 */
import type { Clock, IdSource } from '../../../deps';
import { nowMs } from '../../../deps';
import { appError, notFound, unprocessable, conflict, tooManyAttempts } from '../../../errors';
import type * as repo from '../../../store/wb-connections.repo';
import type { WbConnectionRecord } from '../../../store/wb-connections.repo';
import type { FinanceClient } from '../finance/finance-client';
import { initialCursor, moscowDate } from '../finance/sync-plan';
import { decodeWbToken, hasFinanceScope, tokenHint, WbTokenError, type WbTokenInfo } from '../token';
import { sealToken, type KeyWrapper } from '../token-crypto';
import { connectionPageKeys } from './step';

/** WB keeps no report data before this day (docs/WB-API.md). */
export const WB_DATA_SINCE = '2025-01-01';

export interface ConnectionDeps {
  connections: Pick<
    typeof repo,
    | 'createConnection'
    | 'getConnection'
    | 'listConnections'
    | 'saveConnection'
    | 'deleteConnection'
    | 'noteAcceptedCall'
  >;
  /** The per-user budget of token checks (shared/store/throttle.repo.ts consumeSlot). */
  throttle: {
    consumeSlot(input: {
      kind: string;
      subject: string;
      limit: number;
      windowSeconds: number;
      now?: number;
    }): Promise<{ ok: true } | { ok: false; retryAfter: number }>;
  };
  /** The longest wait a WB 429 is honoured for (setting WB_RETRY_AFTER_MAX_SECONDS), ms. */
  retryAfterMaxMs: () => number;
  /** Token checks (connect, a new token) one user may make per hour (setting WB_CONNECT_ATTEMPTS_PER_HOUR). */
  connectAttemptsPerHour: () => number;
  sellers: { ensureSellerByNumber(userId: string, number: string): Promise<{ id: string }> };
  /** The token sealer (KMS on AWS, the local key otherwise); called only when a token is stored. */
  keyWrapper: () => KeyWrapper;
  /** A Finance API client for a token. */
  finance: (token: string) => FinanceClient;
  clock: Clock;
  ids: IdSource;
  /** The least time between two calls for one WB account, ms. */
  callIntervalMs: () => number;
  /** Deletes pages of read rows from the bucket (each failure logged, none thrown). */
  pages: { deletePages(keys: readonly string[]): Promise<void> };
}

const tokenInvalid = () => unprocessable('wb_token_invalid', 'WB does not accept this token');

/** The claims of a pasted token, or the 422 that says why it cannot work. */
function readToken(token: string, now: number): WbTokenInfo & { sellerId: string } {
  let info: WbTokenInfo;
  try {
    info = decodeWbToken(token);
  } catch (e) {
    if (e instanceof WbTokenError) throw tokenInvalid();
    throw e;
  }
  if (info.exp * 1000 <= now)
    throw unprocessable('wb_token_expired', 'The token has expired', { expires_at: iso(info.exp * 1000) });
  if (!hasFinanceScope(info))
    throw unprocessable('wb_token_no_finance', 'The token has no «Финансы» category', { scopes: info.scopes });
  if (info.sellerId === null) throw tokenInvalid();
  return { ...info, sellerId: info.sellerId };
}

const iso = (ms: number) => new Date(ms).toISOString();
const DAY_MS = 86_400_000;

/**
 * 429 too_many_attempts once the user has checked `connectAttemptsPerHour` tokens this hour (valid or
 * not): checked before the token is read, so a flood of forged tokens stops here.
 */
async function connectSlot(deps: ConnectionDeps, userId: string): Promise<void> {
  const slot = await deps.throttle.consumeSlot({
    kind: 'wb_connect',
    subject: userId,
    limit: deps.connectAttemptsPerHour(),
    windowSeconds: 3600,
    now: nowMs(deps.clock),
  });
  if (!slot.ok) throw tooManyAttempts(slot.retryAfter);
}

/**
 * One call to WB with the token (the report list of the last day). Nothing of the WB account is reserved
 * before WB accepts the token: a token carrying someone else's seller id (`oid` is public) never takes
 * that account's call budget or delays its sync; once WB accepts it, the account's next call is an
 * interval later. A 429 (a sync of the same account calling meanwhile) answers 503 with the interval as
 * the wait — never a time that tells anything of the account's state. Returns the seller's name when
 * the list has a report.
 */
async function checkWithWb(
  deps: ConnectionDeps,
  token: string,
  wbSellerId: string,
): Promise<{ sellerName: string | null }> {
  const now = nowMs(deps.clock);
  const outcome = await deps.finance(token).listReports({
    dateFrom: moscowDate(now - DAY_MS),
    dateTo: moscowDate(now),
    period: 'weekly',
    limit: 1,
  });
  if (outcome.kind === 'ok' || outcome.kind === 'empty') {
    await deps.connections.noteAcceptedCall(wbSellerId, nowMs(deps.clock) + deps.callIntervalMs());
  }
  switch (outcome.kind) {
    case 'ok':
      return { sellerName: outcome.value[0]?.sellerFinanceName || null };
    case 'empty':
      return { sellerName: null };
    case 'unauthorized':
      throw tokenInvalid();
    case 'forbidden':
      // The token's claims have «Финансы» (readToken), yet WB refuses: a Basic token, or a category withdrawn.
      throw unprocessable('wb_token_forbidden', 'WB refuses the token access to the finance reports (403)');
    case 'rate_limited':
      throw appError('wb_unavailable', 'WB asks to wait', {
        retry_after_seconds: Math.max(1, Math.ceil(deps.callIntervalMs() / 1000)),
      });
    default:
      throw appError('wb_unavailable', `WB did not answer the check (${outcome.kind})`, {
        wb_outcome: outcome.kind,
        wb_status: 'status' in outcome ? outcome.status : null,
      });
  }
}

/** POST /api/wb/connections: the new connection; its first sync round is due one call interval later. */
export async function connect(
  deps: ConnectionDeps,
  userId: string,
  input: { token: string; from?: string },
): Promise<WbConnectionRecord> {
  await connectSlot(deps, userId);
  const token = input.token.trim();
  const info = readToken(token, nowMs(deps.clock));
  const existing = await deps.connections.listConnections(userId);
  if (existing.some((c) => c.wb_seller_id === info.sellerId)) {
    throw conflict('wb_connection_exists', 'This WB account is connected already', { wb_seller_id: info.sellerId });
  }
  const { sellerName } = await checkWithWb(deps, token, info.sellerId);
  const seller = await deps.sellers.ensureSellerByNumber(userId, info.sellerId);
  const now = nowMs(deps.clock);
  const from = input.from && input.from > WB_DATA_SINCE ? input.from : WB_DATA_SINCE;
  const record = newConnectionRecord({
    id: deps.ids.newId(),
    userId,
    sellerId: seller.id,
    wbSellerId: info.sellerId,
    sellerName,
    tokenHint: tokenHint(token),
    scopes: info.scopes,
    expiresAt: iso(info.exp * 1000),
    from,
    now,
    sealed: await sealToken(token, deps.keyWrapper(), { sellerId: seller.id }),
    // The check call used this interval's budget.
    firstCallAt: now + deps.callIntervalMs(),
  });
  await deps.connections.createConnection(record);
  return record;
}

/**
 * A connection as connecting leaves it (epoch ms `now`): syncing from `from`, its first call at
 * `firstCallAt` (default: when the initial cursor has it).
 */
export function newConnectionRecord(o: {
  id: string;
  userId: string;
  sellerId: string;
  wbSellerId: string;
  sellerName: string | null;
  tokenHint: string;
  scopes: string[];
  expiresAt: string;
  from: string;
  now: number;
  sealed: WbConnectionRecord['sealed'];
  firstCallAt?: number;
}): WbConnectionRecord {
  const cursor = initialCursor(o.now, o.from);
  return {
    id: o.id,
    user_id: o.userId,
    seller_id: o.sellerId,
    wb_seller_id: o.wbSellerId,
    seller_name: o.sellerName,
    token_hint: o.tokenHint,
    scopes: o.scopes,
    expires_at: o.expiresAt,
    from: o.from,
    created_at: iso(o.now),
    status: 'active',
    sealed: o.sealed,
    cursor: { ...cursor, nextCallAt: o.firstCallAt ?? cursor.nextCallAt },
    lease_until: 0,
    sync_status: 'syncing',
    round: { reports_found: 0, reports_imported: 0, rows_read: 0 },
    last_sync: null,
    reports_imported: 0,
    imported_ids: [],
    found: {},
    reading: null,
    pending: [],
    error: null,
    expiry_mail_sent_at: null,
    rev: 0,
  };
}

export async function listConnections(deps: Pick<ConnectionDeps, 'connections'>, userId: string) {
  const items = await deps.connections.listConnections(userId);
  return items.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

export async function getConnection(
  deps: Pick<ConnectionDeps, 'connections'>,
  userId: string,
  id: string,
): Promise<WbConnectionRecord> {
  const c = await deps.connections.getConnection(userId, id);
  if (!c) throw notFound('WB connection not found', 'wb_connection_not_found');
  return c;
}

/** Re-reads and re-applies `change` until its conditional write holds (a step may write meanwhile). */
async function rewrite(
  deps: Pick<ConnectionDeps, 'connections'>,
  userId: string,
  id: string,
  change: (c: WbConnectionRecord) => WbConnectionRecord | Promise<WbConnectionRecord>,
): Promise<WbConnectionRecord> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const c = await getConnection(deps, userId, id);
    const saved = await deps.connections.saveConnection(await change(c));
    if (saved) return saved;
  }
  throw conflict('transaction_conflict', 'The connection kept changing');
}

/** PATCH: a new token of the same WB account (checked with WB, sealed, the sync unblocked), pause, from. */
export async function updateConnection(
  deps: ConnectionDeps,
  userId: string,
  id: string,
  patch: { token?: string; paused?: boolean; from?: string },
): Promise<WbConnectionRecord> {
  const current = await getConnection(deps, userId, id);
  let tokenChange: Partial<WbConnectionRecord> | null = null;
  if (patch.token !== undefined) {
    await connectSlot(deps, userId);
    const token = patch.token.trim();
    const info = readToken(token, nowMs(deps.clock));
    if (info.sellerId !== current.wb_seller_id) {
      throw unprocessable('wb_token_other_account', 'The token belongs to another WB account', {
        wb_seller_id: info.sellerId,
        connected: current.wb_seller_id,
      });
    }
    const { sellerName } = await checkWithWb(deps, token, info.sellerId);
    tokenChange = {
      sealed: await sealToken(token, deps.keyWrapper(), { sellerId: current.seller_id }),
      token_hint: tokenHint(token),
      scopes: info.scopes,
      expires_at: iso(info.exp * 1000),
      expiry_mail_sent_at: null,
      ...(sellerName ? { seller_name: sellerName } : {}),
    };
  }
  return rewrite(deps, userId, id, (c) => {
    const now = nowMs(deps.clock);
    let next: WbConnectionRecord = { ...c };
    if (tokenChange) {
      next = { ...next, ...tokenChange };
      if (next.status !== 'paused') next.status = 'active';
      if (next.cursor.phase === 'blocked') {
        // The refused call is made again from where the round stood: the report and rrdId it was reading,
        // or the list page it was asking for (a round that starts over would list only the last weeks).
        const { blocked: _b, ...cursor } = next.cursor;
        next.cursor = {
          ...cursor,
          phase: cursor.reportId !== null ? 'detail' : 'list',
          nextCallAt: Math.max(cursor.nextCallAt, now + deps.callIntervalMs()),
        };
      }
      next.error = null;
      if (next.sync_status === 'stopped') next.sync_status = next.cursor.phase === 'idle' ? 'scheduled' : 'syncing';
    }
    if (patch.paused === true) {
      next.status = 'paused';
      next.sync_status = 'stopped';
    } else if (patch.paused === false && next.status === 'paused') {
      next.status = next.cursor.phase === 'blocked' ? 'token_invalid' : 'active';
      next.sync_status = next.status === 'active' ? 'scheduled' : 'stopped';
    }
    if (patch.from !== undefined) next.from = patch.from > WB_DATA_SINCE ? patch.from : WB_DATA_SINCE;
    return next;
  });
}

/**
 * DELETE: the connection, its sealed token and its sync state, then the pages of rows it read and had not
 * imported yet (a page that cannot be deleted is logged, the connection is gone all the same); reports it
 * imported stay.
 */
export async function disconnect(
  deps: Pick<ConnectionDeps, 'connections' | 'pages'>,
  userId: string,
  id: string,
): Promise<void> {
  const c = await getConnection(deps, userId, id);
  await deps.connections.deleteConnection(c);
  await deps.pages.deletePages(connectionPageKeys(c));
}

/**
 * POST …/sync: a round now. An idle connection lists from `from` (or its own window) at once, within the
 * WB account's budget; a running round is left as it is (but a wait past the 429 cap is cut short); a
 * paused one resumes; a refused token → 409.
 */
export async function requestSync(
  deps: Pick<ConnectionDeps, 'connections' | 'clock' | 'retryAfterMaxMs'>,
  userId: string,
  id: string,
  input: { from?: string },
): Promise<WbConnectionRecord> {
  return rewrite(deps, userId, id, (c) => {
    if (c.status !== 'active' && c.status !== 'paused') {
      throw conflict('wb_connection_blocked', 'WB refused the connection’s token: a new one is needed', {
        status: c.status,
      });
    }
    const now = nowMs(deps.clock);
    const next: WbConnectionRecord = { ...c, status: 'active', error: null };
    if (c.cursor.phase === 'idle') {
      const from = input.from ? (input.from > WB_DATA_SINCE ? input.from : WB_DATA_SINCE) : null;
      next.cursor = from
        ? {
            ...c.cursor,
            phase: 'list',
            listFrom: from,
            listTo: moscowDate(now),
            listOffset: 0,
            reports: [],
            reportIndex: 0,
            reportId: null,
            rrdId: 0,
            nextCallAt: now,
          }
        : { ...c.cursor, nextCallAt: Math.min(c.cursor.nextCallAt, now) };
      next.round = { reports_found: 0, reports_imported: 0, rows_read: 0 };
    } else if (c.cursor.nextCallAt > now + deps.retryAfterMaxMs()) {
      // A wait past the cap (stored before WB's waits were capped): the next call now, within the account's budget.
      next.cursor = { ...c.cursor, nextCallAt: now };
    }
    if (next.sync_status !== 'limits_exhausted') next.sync_status = 'syncing';
    return next;
  });
}
