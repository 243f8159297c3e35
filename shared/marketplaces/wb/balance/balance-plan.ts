/**
 * When the sync reads WB's balance, and what an answer means (docs/ARCHITECTURE.md «The WB sync», the
 * balance). Pure: the connection's balance state, its Finance cursor and the time in; the decision out.
 *
 * The balance call shares the Finance API's budget of the WB account (one call a minute, WB-API.md) with
 * the report calls: it is made only when the cursor would allow a report call (`accountFreeAt`), the step
 * claims the same budget, and its answer pushes the cursor's next call an interval on (or WB's 429 wait).
 * It is read at the first step after a token is connected, then at most once per `everyMs` (an hour).
 * A refused call (scope 401/403, 429, 5xx, a hostile body) never touches the cursor's phase or failures:
 * the report sync goes on, the state keeps why the balance is not read (shown on the «Деньги» page).
 */
import type { SyncCursor } from '../finance/sync-plan';
import { afterFailure, afterRateLimited, type RatePolicy } from '../rate';
import type { WbOutcome } from '../wb-types';
import type { BalanceReading } from './client';

export type BalanceErrorCode =
  'wb_balance_scope' | 'wb_balance_rate_limited' | 'wb_balance_unavailable' | 'wb_balance_invalid';

export interface BalanceError {
  code: BalanceErrorCode;
  /** Why, in Russian, for the page. */
  message: string;
  /** ISO time of the refused call. */
  at: string;
  /** WB's status (null: no answer). */
  wb_status: number | null;
}

/** The connection's balance state (WbConnectionRecord `balance`; absent: never called yet). */
export interface BalanceSyncState {
  /** epoch ms: the next reading not before. */
  next_at: number;
  /** epoch ms of the last balance call (null: none). */
  last_call_at: number | null;
  /** Refused calls in a row. */
  failures: number;
  /** ISO time of the last reading kept (null: none yet). */
  read_at: string | null;
  /** Why the last call did not read it; null when it did (or no call yet). */
  error: BalanceError | null;
  /** The last reading kept in the history (wb-balance.repo.ts), kopecks; absent: none yet. */
  stored?: { current: number; for_withdraw: number; at: string } | null;
}

export interface BalanceSettings {
  /** Least time between two readings of one connection (an hour). */
  everyMs: number;
  policy: RatePolicy;
}

export const BALANCE_EVERY_MS = 3_600_000;
/** An unchanged balance is kept again after this long, so the history has a point every day the sync ran. */
export const BALANCE_KEEP_UNCHANGED_MS = 24 * 3_600_000;

export type BalancePlan = { kind: 'call' } | { kind: 'wait'; until: number } | { kind: 'none' };

/**
 * The earliest moment the WB account's Finance budget allows a call as the cursor sees it: an idle cursor's
 * next call is its next round (hours away), so the last call plus an interval counts there; otherwise the
 * cursor's own next call (which holds WB's 429 wait and the backoff).
 */
export function accountFreeAt(cursor: SyncCursor, state: BalanceSyncState | undefined, policy: RatePolicy): number {
  const own = state?.last_call_at != null ? state.last_call_at + policy.intervalMs : 0;
  const finance = cursor.phase === 'idle' ? (cursor.lastCallAt ?? 0) + policy.intervalMs : cursor.nextCallAt;
  return Math.max(own, finance);
}

/** Whether the step reads the balance now (before any report call), or when it may. */
export function planBalance(
  state: BalanceSyncState | undefined,
  cursor: SyncCursor,
  now: number,
  s: BalanceSettings,
): BalancePlan {
  if (cursor.phase === 'blocked') return { kind: 'none' };
  const due = Math.max(state?.next_at ?? 0, accountFreeAt(cursor, state, s.policy));
  return now >= due ? { kind: 'call' } : { kind: 'wait', until: due };
}

const moscowTime = (ms: number) =>
  new Date(ms).toLocaleString('ru-RU', { timeZone: 'Europe/Moscow', dateStyle: 'short', timeStyle: 'short' });
/** WB's text, short and on one line (never more than a sentence of it on the page). */
const wbText = (m: string) => m.replace(/\s+/g, ' ').trim().slice(0, 160);

export interface BalanceAdvance {
  state: BalanceSyncState;
  /** The reading to keep in the history (ok, and changed or a day after the last one kept). */
  reading: BalanceReading | null;
  /** The WB account's next Finance call not before (epoch ms): an interval on, or WB's 429 wait. */
  accountNextAt: number;
}

/** The state after one balance call's outcome at `now`. */
export function afterBalance(
  state: BalanceSyncState | undefined,
  outcome: WbOutcome<BalanceReading>,
  now: number,
  s: BalanceSettings,
): BalanceAdvance {
  const at = new Date(now).toISOString();
  const base = { last_call_at: now, read_at: state?.read_at ?? null, stored: state?.stored ?? null };
  const interval = now + s.policy.intervalMs;
  if (outcome.kind === 'ok') {
    const v = outcome.value;
    const last = state?.stored ?? null;
    const keep =
      last === null ||
      last.current !== v.current ||
      last.for_withdraw !== v.for_withdraw ||
      now - Date.parse(last.at) >= BALANCE_KEEP_UNCHANGED_MS;
    return {
      state: {
        ...base,
        next_at: now + s.everyMs,
        failures: 0,
        read_at: at,
        error: null,
        stored: keep ? { current: v.current, for_withdraw: v.for_withdraw, at } : last,
      },
      reading: keep ? v : null,
      accountNextAt: interval,
    };
  }
  const failures = (state?.failures ?? 0) + 1;
  const refused = (
    code: BalanceErrorCode,
    nextAt: number,
    status: number | null,
    message: (next: string) => string,
  ) => ({
    state: {
      ...base,
      next_at: nextAt,
      failures,
      error: { code, message: message(moscowTime(nextAt)), at, wb_status: status },
    },
    reading: null,
    accountNextAt: code === 'wb_balance_rate_limited' ? Math.max(interval, nextAt) : interval,
  });
  // Transient trouble is tried again sooner (backoff), never later than the hourly reading.
  const retry = Math.min(afterFailure(now, failures, s.policy), now + s.everyMs);
  switch (outcome.kind) {
    case 'unauthorized':
    case 'forbidden': {
      const status = outcome.kind === 'unauthorized' ? 401 : 403;
      return refused(
        'wb_balance_scope',
        now + s.everyMs,
        status,
        (next) =>
          `WB не даёт баланс по этому токену (${status}${outcome.message ? `: ${wbText(outcome.message)}` : ''}): нужен токен с категорией «Финансы». Отчёты синхронизируются как обычно; следующая попытка — ${next} (МСК).`,
      );
    }
    case 'rate_limited':
      return refused(
        'wb_balance_rate_limited',
        afterRateLimited(now, outcome.retryAfterSeconds, s.policy),
        429,
        (next) => `WB попросил подождать с запросом баланса (429); следующая попытка — ${next} (МСК).`,
      );
    case 'invalid_response':
    case 'empty':
      return refused(
        'wb_balance_invalid',
        retry,
        200,
        (next) =>
          `WB прислал баланс не в том виде (${outcome.kind === 'empty' ? 'пустой ответ' : wbText(outcome.message)}): он не сохранён. Следующая попытка — ${next} (МСК).`,
      );
    case 'server_error':
    case 'rejected':
    case 'not_found':
    case 'network_error': {
      const status = outcome.kind === 'network_error' ? null : outcome.kind === 'not_found' ? 404 : outcome.status;
      const why =
        outcome.kind === 'network_error' ? (outcome.timeout ? 'нет ответа вовремя' : 'нет соединения') : `${status}`;
      return refused(
        'wb_balance_unavailable',
        retry,
        status,
        (next) => `WB не ответил на запрос баланса (${why}); следующая попытка — ${next} (МСК).`,
      );
    }
  }
}
