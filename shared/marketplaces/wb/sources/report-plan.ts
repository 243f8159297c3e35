/**
 * The pacing of a WB report fetch (paid storage, acceptance: report-task.ts), free of HTTP and clocks:
 * given the period and the state so far (windows, their tasks and statuses, the calls made), what the next
 * single call is, or how long to wait. Pure functions on an injected `now` (epoch ms), like sync-plan.ts:
 *
 *   1. `initialReportState(kind, from, to, settings)` splits the period into windows WB accepts (paid
 *      storage ≤ 8 days a task: a week is one task, a month four or five; acceptance ≤ 31 days);
 *   2. `planReportCall(state, now)` → call | wait (until) | done | none (blocked or given up);
 *   3. `claimReportCall(state, call, now)`: the state to write before calling (conditionally on `version`,
 *      so a duplicate step cannot call twice): the method's budget is spent, the call recorded;
 *   4. make the one call (report-task.ts), `advanceReport(claimed, call, outcome, now)` → state + effects.
 *
 * WB's limits are per seller account and per method, a token bucket: `burst` calls at once, then one per
 * `intervalMs` (paid storage: create 1/min burst 5, status 1 per 5 s burst 5, download 1/min; acceptance:
 * each burst 1). The budget is tracked as GCRA's theoretical arrival time per method (`tat`): a call may
 * start at `tat − (burst − 1)·interval`. A 429 empties the method's bucket until WB's X-Ratelimit-Retry
 * (never sooner than one interval: rate.ts); 5xx, network errors and invalid answers back off
 * interval·2^n; a task WB purged, canceled or no longer knows is made again (at most `maxTaskRetries`).
 */
import type { TaskStatus } from './analytics-schemas';
import type { WbOutcome } from '../finance/finance-client';
import { afterFailure, afterRateLimited, DEFAULT_RATE_POLICY } from '../rate';
import {
  ANALYTICS_REPORTS,
  type OpLimit,
  type ReportKind,
  type ReportLimits,
  type ReportOp,
} from './analytics-reports';
import type { ReportTaskClient, ReportWindow } from './report-task';

export type { ReportLimits, ReportOp } from './analytics-reports';

/** WB's limits per seller account, per report kind (analytics-reports.ts). */
export const WB_REPORT_LIMITS = Object.fromEntries(ANALYTICS_REPORTS.map((r) => [r.api, r.limits])) as Readonly<
  Record<ReportKind, ReportLimits>
>;

/** Calendar days (inclusive) one task may cover, per report kind (analytics-reports.ts). */
export const WB_REPORT_MAX_DAYS = Object.fromEntries(ANALYTICS_REPORTS.map((r) => [r.api, r.maxDays])) as Readonly<
  Record<ReportKind, number>
>;

export interface ReportPlanSettings {
  maxDays: number;
  limits: ReportLimits;
  /** Least time between two status calls of one task. */
  statusPollMs: number;
  /** Tasks open at once (made, not yet downloaded): a long period is not asked for all at once. */
  maxOpenTasks: number;
  /** Transient failures in a row after which the fetch gives up; their waits grow up to backoffMaxMs. */
  maxFailures: number;
  backoffMaxMs: number;
  /** How often a window's task may be made again (purged, canceled, unknown to WB). */
  maxTaskRetries: number;
}

/**
 * The settings of one report kind. WB counts its limits in minutes; `callIntervalMs` is the setting
 * WB_CALL_INTERVAL_SECONDS (WB: 60 s), so the local stack, which shortens WB's minute to a few seconds
 * for the Finance API emulator, shortens these limits in the same proportion (the emulator does the same).
 */
export function reportPlanSettings(kind: ReportKind, callIntervalMs = 60_000): ReportPlanSettings {
  const limits = scaleLimits(WB_REPORT_LIMITS[kind], callIntervalMs / 60_000);
  return {
    maxDays: WB_REPORT_MAX_DAYS[kind],
    limits,
    statusPollMs: limits.status.intervalMs,
    maxOpenTasks: 5,
    maxFailures: 6,
    backoffMaxMs: Math.max(limits.create.intervalMs, 30 * callIntervalMs),
    maxTaskRetries: 3,
  };
}

/** Limits with every interval multiplied by `factor` (bursts kept). */
export function scaleLimits(limits: ReportLimits, factor: number): ReportLimits {
  if (!(factor > 0)) throw new Error(`not a positive factor: ${factor}`);
  const s = (l: OpLimit): OpLimit => ({ intervalMs: Math.max(1, Math.round(l.intervalMs * factor)), burst: l.burst });
  return { create: s(limits.create), status: s(limits.status), download: s(limits.download) };
}

const DAY_MS = 86_400_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayMs = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** [from, to] (inclusive days) cut into consecutive windows of at most `maxDays` days, oldest first. */
export function reportWindows(from: string, to: string, maxDays: number): ReportWindow[] {
  if (!ISO_DAY.test(from) || !ISO_DAY.test(to) || Number.isNaN(dayMs(from)) || Number.isNaN(dayMs(to))) {
    throw new Error(`not a period of days: ${from}…${to}`);
  }
  if (from > to) throw new Error(`the period ends before it starts: ${from}…${to}`);
  if (!Number.isInteger(maxDays) || maxDays < 1) throw new Error(`not a number of days: ${maxDays}`);
  const out: ReportWindow[] = [];
  for (let start = dayMs(from); start <= dayMs(to); start += maxDays * DAY_MS) {
    out.push({ dateFrom: isoDay(start), dateTo: isoDay(Math.min(start + (maxDays - 1) * DAY_MS, dayMs(to))) });
  }
  return out;
}

export interface WindowState extends ReportWindow {
  taskId: string | null;
  /** WB's last answer about the task (null before the first status call). */
  status: TaskStatus | null;
  downloaded: boolean;
  /** No status call for this task before this moment (epoch ms). */
  nextStatusAt: number;
  /** Tasks made again for this window. */
  retries: number;
}

export type ReportPhase = 'running' | 'done' | 'blocked' | 'gave-up';

export interface ReportFetchState {
  kind: ReportKind;
  from: string;
  to: string;
  windows: WindowState[];
  /** GCRA's theoretical arrival time per method (null: a full bucket). */
  tat: Record<ReportOp, number | null>;
  /** After a transient failure: no call before this moment. */
  notBefore: number;
  failures: number;
  lastCallAt: number | null;
  phase: ReportPhase;
  blocked?: 'unauthorized' | 'forbidden';
  /** Bumped by every claim: the conditional write that lets one step call WB. */
  version: number;
}

export type ReportCall =
  | { op: 'create'; window: number; dateFrom: string; dateTo: string }
  | { op: 'status'; window: number; taskId: string }
  | { op: 'download'; window: number; taskId: string };

export type PlannedReportCall =
  | { kind: 'call'; call: ReportCall }
  | { kind: 'wait'; until: number }
  | { kind: 'done' }
  /** Blocked (the token) or given up: nothing until a new fetch. */
  | { kind: 'none' };

export type ReportEffect<Row> =
  /** A window's report is in (possibly no rows): convert and store it. */
  | { kind: 'rows'; dateFrom: string; dateTo: string; rows: Row[] }
  /** Every window is in. */
  | { kind: 'complete' }
  /** The token no longer works, or lacks «Аналитика»: stop, tell the seller. */
  | { kind: 'token-rejected'; reason: 'unauthorized' | 'forbidden'; message: string }
  | { kind: 'gave-up'; reason: string };

export function initialReportState(
  kind: ReportKind,
  from: string,
  to: string,
  settings: ReportPlanSettings = reportPlanSettings(kind),
): ReportFetchState {
  return {
    kind,
    from,
    to,
    windows: reportWindows(from, to, settings.maxDays).map((w) => ({
      ...w,
      taskId: null,
      status: null,
      downloaded: false,
      nextStatusAt: 0,
      retries: 0,
    })),
    tat: { create: null, status: null, download: null },
    notBefore: 0,
    failures: 0,
    lastCallAt: null,
    phase: 'running',
    version: 0,
  };
}

/** The earliest moment the method's bucket allows a call. */
export function allowedAt(state: ReportFetchState, op: ReportOp, settings: ReportPlanSettings): number {
  const tat = state.tat[op];
  const { intervalMs, burst } = settings.limits[op];
  return tat === null ? 0 : tat - (burst - 1) * intervalMs;
}

const PRIORITY: Record<ReportOp, number> = { download: 0, status: 1, create: 2 };
const pending = (w: WindowState) =>
  w.taskId !== null && (w.status === null || w.status === 'new' || w.status === 'processing');

/**
 * The next call: of the calls that move the fetch on (download a ready report, ask about a pending task,
 * make the next window's task), the one WB's budget allows first; on a tie a download, then a status,
 * then a new task (finish what is open before opening more).
 */
export function planReportCall(
  state: ReportFetchState,
  now: number,
  settings: ReportPlanSettings = reportPlanSettings(state.kind),
): PlannedReportCall {
  if (state.phase === 'done') return { kind: 'done' };
  if (state.phase !== 'running') return { kind: 'none' };
  const candidates: Array<{ at: number; call: ReportCall }> = [];
  const ready = state.windows.findIndex((w) => w.status === 'done' && !w.downloaded && w.taskId !== null);
  if (ready >= 0) {
    const w = state.windows[ready]!;
    candidates.push({
      at: allowedAt(state, 'download', settings),
      call: { op: 'download', window: ready, taskId: w.taskId! },
    });
  }
  let polled = -1;
  state.windows.forEach((w, i) => {
    if (pending(w) && (polled < 0 || w.nextStatusAt < state.windows[polled]!.nextStatusAt)) polled = i;
  });
  if (polled >= 0) {
    const w = state.windows[polled]!;
    candidates.push({
      at: Math.max(allowedAt(state, 'status', settings), w.nextStatusAt),
      call: { op: 'status', window: polled, taskId: w.taskId! },
    });
  }
  const open = state.windows.filter((w) => w.taskId !== null && !w.downloaded).length;
  const fresh = state.windows.findIndex((w) => w.taskId === null && !w.downloaded);
  if (fresh >= 0 && open < settings.maxOpenTasks) {
    const w = state.windows[fresh]!;
    candidates.push({
      at: allowedAt(state, 'create', settings),
      call: { op: 'create', window: fresh, dateFrom: w.dateFrom, dateTo: w.dateTo },
    });
  }
  if (candidates.length === 0) return { kind: 'done' };
  const best = candidates
    .map((c) => ({ ...c, at: Math.max(c.at, state.notBefore) }))
    .sort((a, b) => a.at - b.at || PRIORITY[a.call.op] - PRIORITY[b.call.op])[0]!;
  return best.at <= now ? { kind: 'call', call: best.call } : { kind: 'wait', until: best.at };
}

/** The one WB call that `call` names, made with `client` (report-task.ts, for the plan's report). */
export function makeReportCall<Row>(
  client: ReportTaskClient<Row>,
  call: ReportCall,
): Promise<WbOutcome<string> | WbOutcome<TaskStatus> | WbOutcome<Row[]>> {
  if (call.op === 'create') return client.createTask({ dateFrom: call.dateFrom, dateTo: call.dateTo });
  return call.op === 'status' ? client.taskStatus(call.taskId) : client.download(call.taskId);
}

function withWindow(state: ReportFetchState, index: number, change: Partial<WindowState>): ReportFetchState {
  return { ...state, windows: state.windows.map((w, i) => (i === index ? { ...w, ...change } : w)) };
}

/**
 * The state to write (conditionally on the loaded `version`) before making `call`: the method's budget is
 * spent and the call recorded. Throws when the call is not due.
 */
export function claimReportCall(
  state: ReportFetchState,
  call: ReportCall,
  now: number,
  settings: ReportPlanSettings = reportPlanSettings(state.kind),
): ReportFetchState {
  if (state.phase !== 'running') throw new Error(`no call in phase ${state.phase}`);
  if (now < Math.max(state.notBefore, allowedAt(state, call.op, settings))) throw new Error('no call is due');
  const { intervalMs } = settings.limits[call.op];
  const tat = Math.max(state.tat[call.op] ?? now, now) + intervalMs;
  const claimed: ReportFetchState = {
    ...state,
    tat: { ...state.tat, [call.op]: tat },
    lastCallAt: now,
    version: state.version + 1,
  };
  return call.op === 'status'
    ? withWindow(claimed, call.window, { nextStatusAt: now + settings.statusPollMs })
    : claimed;
}

/** A window's task made again (WB purged, canceled or forgot it), or the fetch gives up after too many. */
function retryWindow<Row>(
  state: ReportFetchState,
  call: ReportCall,
  why: string,
  settings: ReportPlanSettings,
  effects: Array<ReportEffect<Row>>,
): ReportFetchState {
  const w = state.windows[call.window]!;
  if (w.retries >= settings.maxTaskRetries) {
    effects.push({ kind: 'gave-up', reason: `${w.dateFrom}…${w.dateTo}: ${why}, ${w.retries + 1} times` });
    return { ...state, phase: 'gave-up' };
  }
  return withWindow(state, call.window, { taskId: null, status: null, retries: w.retries + 1, nextStatusAt: 0 });
}

function failed<Row>(
  state: ReportFetchState,
  call: ReportCall,
  reason: string,
  now: number,
  settings: ReportPlanSettings,
  effects: Array<ReportEffect<Row>>,
): ReportFetchState {
  const failures = state.failures + 1;
  if (failures >= settings.maxFailures) {
    effects.push({ kind: 'gave-up', reason });
    return { ...state, failures, phase: 'gave-up' };
  }
  const policy = {
    intervalMs: settings.limits[call.op].intervalMs,
    backoffMaxMs: settings.backoffMaxMs,
    maxFailures: settings.maxFailures,
    retryAfterMaxMs: DEFAULT_RATE_POLICY.retryAfterMaxMs,
  };
  return { ...state, failures, notBefore: Math.max(state.notBefore, afterFailure(now, failures, policy)) };
}

/**
 * The state after one call's outcome (`claimed` is what claimReportCall returned), and the effects to
 * apply: the rows of a downloaded window, the end of the fetch, a rejected token, giving up.
 */
export function advanceReport<Row>(
  claimed: ReportFetchState,
  call: ReportCall,
  outcome: WbOutcome<string> | WbOutcome<TaskStatus> | WbOutcome<Row[]>,
  now: number,
  settings: ReportPlanSettings = reportPlanSettings(claimed.kind),
): { state: ReportFetchState; effects: Array<ReportEffect<Row>> } {
  const effects: Array<ReportEffect<Row>> = [];
  const done = (state: ReportFetchState) => ({ state, effects });
  const label = `${call.op} ${claimed.windows[call.window]?.dateFrom ?? ''}…${claimed.windows[call.window]?.dateTo ?? ''}`;
  switch (outcome.kind) {
    case 'rate_limited': {
      const limit = settings.limits[call.op];
      const policy = {
        intervalMs: limit.intervalMs,
        backoffMaxMs: settings.backoffMaxMs,
        maxFailures: settings.maxFailures,
        retryAfterMaxMs: DEFAULT_RATE_POLICY.retryAfterMaxMs,
      };
      const hold = afterRateLimited(now, outcome.retryAfterSeconds, policy);
      // The bucket is empty until `hold`, then refills one call per interval.
      const tat = Math.max(claimed.tat[call.op] ?? 0, hold + (limit.burst - 1) * limit.intervalMs);
      return done({ ...claimed, tat: { ...claimed.tat, [call.op]: tat } });
    }
    case 'unauthorized':
    case 'forbidden':
      effects.push({ kind: 'token-rejected', reason: outcome.kind, message: outcome.message });
      return done({ ...claimed, phase: 'blocked', blocked: outcome.kind });
    case 'server_error':
    case 'network_error':
    case 'invalid_response':
      return done(failed(claimed, call, `${label}: ${outcome.kind}: ${outcome.message}`, now, settings, effects));
    case 'rejected':
      effects.push({
        kind: 'gave-up',
        reason: `${label}: WB refused the request (${outcome.status}): ${outcome.message}`,
      });
      return done({ ...claimed, phase: 'gave-up' });
    case 'not_found':
      if (call.op === 'create') {
        effects.push({ kind: 'gave-up', reason: `${label}: no such method (404): ${outcome.message}` });
        return done({ ...claimed, phase: 'gave-up' });
      }
      return done(retryWindow({ ...claimed, failures: 0 }, call, 'the task is unknown to WB', settings, effects));
    default:
      break;
  }
  const ok = { ...claimed, failures: 0 };
  if (call.op === 'create') {
    if (outcome.kind !== 'ok') return done(failed(claimed, call, `${label}: no task id`, now, settings, effects));
    return done(
      withWindow(ok, call.window, {
        taskId: outcome.value as string,
        status: null,
        nextStatusAt: now + settings.statusPollMs,
      }),
    );
  }
  if (call.op === 'status') {
    if (outcome.kind !== 'ok') return done(failed(claimed, call, `${label}: no status`, now, settings, effects));
    const status = outcome.value as TaskStatus;
    if (status === 'purged' || status === 'canceled') {
      return done(retryWindow(ok, call, `the task was ${status}`, settings, effects));
    }
    return done(withWindow(ok, call.window, { status }));
  }
  const w = ok.windows[call.window]!;
  effects.push({
    kind: 'rows',
    dateFrom: w.dateFrom,
    dateTo: w.dateTo,
    rows: outcome.kind === 'ok' ? (outcome.value as Row[]) : [],
  });
  const next = withWindow(ok, call.window, { downloaded: true });
  if (next.windows.every((x) => x.downloaded)) {
    effects.push({ kind: 'complete' });
    return done({ ...next, phase: 'done' });
  }
  return done(next);
}
