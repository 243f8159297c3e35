/**
 * The decisions of a durable WB sync, free of AWS and HTTP: given a connection's cursor and the outcome
 * of one Finance API call, the next cursor, the next call's earliest time and what to do with the data.
 *
 * A step (one Lambda invocation, docs/WB-API.md «Sync without sleeping») does:
 *   1. load the cursor; `planCall(cursor, now)` → wait (hand over with a delay) | call | nothing;
 *   2. `claim(cursor, now)` and write it with a condition on `version`: only the winner of a duplicate
 *      delivery calls WB, and the claim moves nextCallAt a full interval on before the call is made, so
 *      an account never gets more than one call per interval, whatever the retries;
 *   3. make the one call (finance-client.ts); `advance(claimed, call, outcome, now, …)` → cursor + effects;
 *   4. apply the effects (store the list's sums, append rows, build a finished report), write the cursor,
 *      and hand the next step over with `handoverDelaySeconds(cursor.nextCallAt, now)`.
 */
import type { DetailedQuery, ListQuery, WbOutcome } from './finance-client';
import { afterFailure, afterRateLimited, DEFAULT_RATE_POLICY, type RatePolicy } from '../rate';
import type { DetailedPage } from './page-body';
import type { ReportSummary } from './schemas';

export interface ReportRef {
  reportId: number;
  dateFrom: string;
  dateTo: string;
  reportType: number;
}

/** A listed report WB did not give its rows for (see `advance`): read again in every round until it is. */
export interface UnreadReport extends ReportRef {
  /** Why, in WB's words or ours (an empty first page, a redirect, rows of another report). */
  reason: string;
  /** Rounds it was asked for and not given. */
  attempts: number;
  /** epoch ms of the first refusal. */
  since: number;
}

export type SyncPhase = 'list' | 'detail' | 'idle' | 'blocked';

export interface SyncCursor {
  phase: SyncPhase;
  /** list: the period asked for (YYYY-MM-DD, Moscow) and the page offset. */
  listFrom: string;
  listTo: string;
  listOffset: number;
  /** detail: the reports to read, the one being read and the last rrdId read of it (0 = none yet). */
  reports: ReportRef[];
  reportIndex: number;
  reportId: number | null;
  rrdId: number;
  /** detail: pages of the report read so far (absent: none; cursors stored before it count from here). */
  pages?: number;
  /** No WB call for this account before this moment (epoch ms). */
  nextCallAt: number;
  lastCallAt: number | null;
  /** Transient failures in a row. */
  failures: number;
  /** Bumped by every claim: the conditional write that lets one step call WB. */
  version: number;
  /** blocked: why (the seller must give a new token). */
  blocked?: 'unauthorized' | 'forbidden';
  /** Listed reports WB did not give the rows of: each round reads them again (absent: none). */
  unread?: UnreadReport[];
  /** The last failed call's WB status (null: no answer) and why, while failures > 0. */
  lastFailure?: { status: number | null; reason: string } | null;
}

export interface SyncSettings {
  policy: RatePolicy;
  /** Rows per detailed page (≤ 100 000). */
  pageLimit: number;
  /** Reports per list page (≤ 1000). */
  listLimit: number;
  /** Idle → the next round's list call this long after a round ends. */
  pollEveryMs: number;
  /** Each round lists reports from this many days back (late reports, corrections). */
  lookbackDays: number;
  /**
   * Report types to import (1 основной, 2 and 3 по выкупам); each is its own report, reconciled against its
   * own list sums, as in a file upload.
   */
  reportTypes: readonly number[];
  /** Pages read of one report at most: a report that goes on past it is given up (no endless paging). */
  maxPagesPerReport: number;
}

export const DEFAULT_SYNC_SETTINGS: SyncSettings = {
  policy: DEFAULT_RATE_POLICY,
  pageLimit: 100_000,
  listLimit: 1000,
  pollEveryMs: 6 * 3_600_000,
  lookbackDays: 35,
  reportTypes: [1, 2, 3],
  maxPagesPerReport: 200,
};

export type SyncCall =
  { kind: 'list'; query: Required<ListQuery> } | { kind: 'detail'; reportId: number; query: Required<DetailedQuery> };

export type SyncEffect =
  /** New reports with WB's own sums (store them: the reconciliation compares against bankPaymentSum). */
  | { kind: 'reports-found'; reports: ReportSummary[] }
  /** One page of a report's rows, in rrdId order: append them to the report's import. */
  | { kind: 'rows'; reportId: number; page: DetailedPage }
  /** All rows of the report are in: build it with the engine and reconcile. */
  | { kind: 'report-complete'; reportId: number }
  | { kind: 'report-missing'; reportId: number }
  /** The token no longer works: stop, tell the seller. */
  | { kind: 'token-rejected'; reason: 'unauthorized' | 'forbidden'; message: string }
  /** WB refused the request, or a report's paging went wrong: the round ends, the next one retries. */
  | { kind: 'gave-up'; reason: string }
  /** WB did not give a listed report's rows (empty first page, a redirect, rows of another report): kept in `unread`. */
  | { kind: 'report-unread'; reportId: number; reason: string }
  /** `policy.maxFailures` calls or more failed in a row: the connection shows it; the calls go on with backoff. */
  | { kind: 'failing'; status: number | null; reason: string; failures: number }
  | { kind: 'round-complete'; reports: number };

export type PlannedCall = { kind: 'wait'; until: number } | { kind: 'call'; call: SyncCall } | { kind: 'none' };

const DAY_MS = 86_400_000;
const MSK_OFFSET_MS = 3 * 3_600_000;

/** The Moscow calendar date of an instant. */
export function moscowDate(ms: number): string {
  return new Date(ms + MSK_OFFSET_MS).toISOString().slice(0, 10);
}

function listWindow(now: number, settings: SyncSettings): { listFrom: string; listTo: string } {
  return { listFrom: moscowDate(now - settings.lookbackDays * DAY_MS), listTo: moscowDate(now) };
}

/** A new connection: list from `since` (YYYY-MM-DD; WB keeps data from 2025-01-01) at once. */
export function initialCursor(now: number, since: string): SyncCursor {
  return {
    phase: 'list',
    listFrom: since,
    listTo: moscowDate(now),
    listOffset: 0,
    reports: [],
    reportIndex: 0,
    reportId: null,
    rrdId: 0,
    nextCallAt: now,
    lastCallAt: null,
    failures: 0,
    version: 0,
  };
}

/** What a step should do now. An idle cursor whose time has come starts a new round with a list call. */
export function planCall(cursor: SyncCursor, now: number, settings: SyncSettings = DEFAULT_SYNC_SETTINGS): PlannedCall {
  if (cursor.phase === 'blocked') return { kind: 'none' };
  if (now < cursor.nextCallAt) return { kind: 'wait', until: cursor.nextCallAt };
  if (cursor.phase === 'detail' && cursor.reportId !== null) {
    return {
      kind: 'call',
      call: { kind: 'detail', reportId: cursor.reportId, query: { rrdId: cursor.rrdId, limit: settings.pageLimit } },
    };
  }
  const window = cursor.phase === 'idle' ? listWindow(now, settings) : cursor;
  return {
    kind: 'call',
    call: {
      kind: 'list',
      query: {
        dateFrom: window.listFrom,
        dateTo: window.listTo,
        period: 'weekly',
        limit: settings.listLimit,
        offset: cursor.phase === 'idle' ? 0 : cursor.listOffset,
      },
    },
  };
}

/**
 * The cursor to write (conditionally on the loaded `version`) before calling WB: the call's time is taken,
 * the next call is pushed a full interval on, an idle cursor becomes a new round's list.
 */
export function claim(cursor: SyncCursor, now: number, settings: SyncSettings = DEFAULT_SYNC_SETTINGS): SyncCursor {
  if (cursor.phase === 'blocked' || now < cursor.nextCallAt) throw new Error('no call is due');
  const started: SyncCursor =
    cursor.phase === 'idle'
      ? {
          ...cursor,
          phase: 'list',
          ...listWindow(now, settings),
          listOffset: 0,
          reports: [],
          reportIndex: 0,
          reportId: null,
          rrdId: 0,
        }
      : cursor;
  return { ...started, lastCallAt: now, nextCallAt: now + settings.policy.intervalMs, version: cursor.version + 1 };
}

/** The cursor with `reportId` kept (or counted again) among the reports WB did not give. */
function markUnread(
  c: SyncCursor,
  ref: ReportRef | undefined,
  reportId: number,
  reason: string,
  now: number,
): SyncCursor {
  const unread = c.unread ?? [];
  const before = unread.find((u) => u.reportId === reportId);
  const base: ReportRef = ref ?? before ?? { reportId, dateFrom: '', dateTo: '', reportType: 1 };
  const entry: UnreadReport = {
    reportId,
    dateFrom: base.dateFrom,
    dateTo: base.dateTo,
    reportType: base.reportType,
    reason,
    attempts: (before?.attempts ?? 0) + 1,
    since: before?.since ?? now,
  };
  return { ...c, unread: [...unread.filter((u) => u.reportId !== reportId), entry] };
}

const withoutUnread = (c: SyncCursor, reportId: number): SyncCursor =>
  c.unread?.some((u) => u.reportId === reportId)
    ? { ...c, unread: c.unread.filter((u) => u.reportId !== reportId) }
    : c;

function nextReport(
  c: SyncCursor,
  index: number,
  now: number,
  settings: SyncSettings,
  effects: SyncEffect[],
): SyncCursor {
  const ref = c.reports[index];
  if (ref === undefined) {
    effects.push({ kind: 'round-complete', reports: c.reports.length });
    return {
      ...c,
      phase: 'idle',
      reportIndex: index,
      reportId: null,
      rrdId: 0,
      nextCallAt: Math.max(c.nextCallAt, now + settings.pollEveryMs),
    };
  }
  return { ...c, phase: 'detail', reportIndex: index, reportId: ref.reportId, rrdId: 0, pages: 0 };
}

/**
 * The cursor after one call's outcome (`claimed` is what `claim` returned), and the effects to apply.
 * `imported` holds the report ids the connection already has: they are not read again.
 */
export function advance(
  claimed: SyncCursor,
  call: SyncCall,
  outcome: WbOutcome<ReportSummary[]> | WbOutcome<DetailedPage>,
  now: number,
  settings: SyncSettings = DEFAULT_SYNC_SETTINGS,
  imported: ReadonlySet<number> = new Set(),
): { cursor: SyncCursor; effects: SyncEffect[] } {
  const effects: SyncEffect[] = [];
  const policy = settings.policy;
  const c: SyncCursor = { ...claimed };
  /** The report being read is not given (see UnreadReport): kept for the next rounds, the round goes on. */
  const unreadReport = (reason: string) => {
    if (call.kind !== 'detail') throw new Error('a list has no report');
    const ref = c.reports.find((r) => r.reportId === call.reportId);
    effects.push({ kind: 'report-unread', reportId: call.reportId, reason });
    const marked = markUnread({ ...c, failures: 0, lastFailure: null }, ref, call.reportId, reason, now);
    return { cursor: nextReport(marked, c.reportIndex + 1, now, settings, effects), effects };
  };
  /**
   * A failed call: the same call again after a wait (WB's, capped, for a 429; backoff otherwise), never given
   * up; from the `maxFailures`-th in a row the connection shows the failure (effect `failing`).
   */
  const failed = (status: number | null, reason: string, nextCallAt: number) => {
    const failures = c.failures + 1;
    if (failures >= policy.maxFailures) effects.push({ kind: 'failing', status, reason, failures });
    return {
      cursor: { ...c, failures, lastFailure: { status, reason }, nextCallAt: Math.max(c.nextCallAt, nextCallAt) },
      effects,
    };
  };
  switch (outcome.kind) {
    case 'rate_limited':
      return failed(429, 'WB asks to wait (429)', afterRateLimited(now, outcome.retryAfterSeconds, policy));
    case 'unauthorized':
    case 'forbidden':
      effects.push({ kind: 'token-rejected', reason: outcome.kind, message: outcome.message });
      return { cursor: { ...c, phase: 'blocked', blocked: outcome.kind }, effects };
    case 'server_error':
      // A redirect of a report's page: WB gives this report's rows to no one here; the round goes on.
      if (call.kind === 'detail' && outcome.status >= 300 && outcome.status < 400)
        return unreadReport(`WB answered ${outcome.status}: ${outcome.message}`);
      return failed(outcome.status, `${outcome.status}: ${outcome.message}`, afterFailure(now, c.failures + 1, policy));
    case 'network_error':
      return failed(null, outcome.message, afterFailure(now, c.failures + 1, policy));
    case 'invalid_response':
      if (call.kind === 'detail' && outcome.refused) return unreadReport(outcome.message);
      return failed(200, outcome.message, afterFailure(now, c.failures + 1, policy));
    case 'rejected':
      effects.push({ kind: 'gave-up', reason: `WB refused the request (${outcome.status}): ${outcome.message}` });
      return {
        cursor: {
          ...c,
          phase: 'idle',
          failures: 0,
          lastFailure: null,
          nextCallAt: Math.max(c.nextCallAt, now + settings.pollEveryMs),
        },
        effects,
      };
    default:
      break;
  }
  c.failures = 0;
  c.lastFailure = null;
  if (call.kind === 'list') {
    if (outcome.kind === 'not_found') {
      return { cursor: nextReport(c, 0, now, settings, effects), effects };
    }
    const items = outcome.kind === 'ok' ? (outcome.value as ReportSummary[]) : [];
    const fresh = items.filter(
      (r) =>
        settings.reportTypes.includes(r.reportType) &&
        !imported.has(r.reportId) &&
        !c.reports.some((q) => q.reportId === r.reportId),
    );
    if (fresh.length > 0) effects.push({ kind: 'reports-found', reports: fresh });
    // Oldest first, so the seller's history fills in order.
    // The reports WB did not give in an earlier round are asked for again (even when no longer listed).
    const again = (c.unread ?? []).filter(
      (u) =>
        !imported.has(u.reportId) &&
        !c.reports.some((q) => q.reportId === u.reportId) &&
        !fresh.some((r) => r.reportId === u.reportId),
    );
    const reports = [
      ...c.reports,
      ...fresh.map((r) => ({ reportId: r.reportId, dateFrom: r.dateFrom, dateTo: r.dateTo, reportType: r.reportType })),
      ...(items.length >= settings.listLimit
        ? []
        : again.map((u) => ({
            reportId: u.reportId,
            dateFrom: u.dateFrom,
            dateTo: u.dateTo,
            reportType: u.reportType,
          }))),
    ].sort((a, b) => (a.dateFrom < b.dateFrom ? -1 : a.dateFrom > b.dateFrom ? 1 : a.reportId - b.reportId));
    const withReports = { ...c, reports };
    if (items.length >= settings.listLimit)
      return { cursor: { ...withReports, listOffset: c.listOffset + items.length }, effects };
    return { cursor: nextReport({ ...withReports, listOffset: 0 }, 0, now, settings, effects), effects };
  }
  // detail
  if (outcome.kind === 'not_found') {
    effects.push({ kind: 'report-missing', reportId: call.reportId });
    return { cursor: nextReport(c, c.reportIndex + 1, now, settings, effects), effects };
  }
  if (outcome.kind === 'empty') {
    // An empty first page of a report WB has just listed: WB does not give its rows (now); never taken for
    // a report without rows. An empty page after a full one is the end of the report.
    if (c.rrdId === 0 && (c.pages ?? 0) === 0) return unreadReport('WB answered no rows to the first page (204 or [])');
    effects.push({ kind: 'report-complete', reportId: call.reportId });
    return { cursor: nextReport(withoutUnread(c, call.reportId), c.reportIndex + 1, now, settings, effects), effects };
  }
  const page = outcome.value as DetailedPage;
  const last = page.lastRrdId;
  const giveUp = (reason: string) => {
    effects.push({ kind: 'gave-up', reason: `report ${call.reportId}: ${reason}` });
    const ref = c.reports.find((r) => r.reportId === call.reportId);
    const marked = markUnread(c, ref, call.reportId, reason, now);
    return {
      cursor: { ...marked, phase: 'idle' as const, nextCallAt: Math.max(c.nextCallAt, now + settings.pollEveryMs) },
      effects,
    };
  };
  // A page that brings no new row (only rrdIds already read) would be read forever.
  if (page.rows === 0 || last === null || last <= c.rrdId)
    return giveUp(`the page after rrdId ${c.rrdId} brings no new row`);
  const pages = (c.pages ?? 0) + 1;
  effects.push({ kind: 'rows', reportId: call.reportId, page });
  // A page shorter than the limit is the last one: no call for an empty page after it.
  if ((page.sent ?? page.rows) < call.query.limit) {
    effects.push({ kind: 'report-complete', reportId: call.reportId });
    return {
      cursor: nextReport(
        withoutUnread({ ...c, rrdId: last, pages }, call.reportId),
        c.reportIndex + 1,
        now,
        settings,
        effects,
      ),
      effects,
    };
  }
  if (pages >= settings.maxPagesPerReport) {
    effects.pop();
    return giveUp(`more than ${settings.maxPagesPerReport} pages`);
  }
  return { cursor: { ...c, rrdId: last, pages }, effects };
}
