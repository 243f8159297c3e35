/**
 * The WB sync as a durable task of short steps (docs/ARCHITECTURE.md «The WB sync»; docs/WB-API.md «Sync
 * without sleeping»). A step is one look at one connection: import the reports whose rows are all read
 * (no WB call), or make at most ONE call to WB and record its outcome; then it hands over by writing the
 * connection's due time, which the next tick (every minute; locally every few seconds) picks up.
 *
 * One step per connection at a time: a step claims the connection with a lease (a write conditional on
 * the revision it read) and, in the same transaction, the WB account's call budget (the next call for
 * that WB account not before now + interval, whoever's connection makes it). A step that dies leaves its
 * lease to run out; the next step repeats the call from the cursor it claimed with, and the page it
 * stores lands under the same key (the cursor's rrdId), so nothing is read or counted twice.
 *
 * The decisions (what to call, what an outcome means, how long to wait after a 429 or a failure) are
 * sync-plan.ts's, on the injected clock.
 */
import type { Clock, IdSource } from '../../../deps';
import { nowMs } from '../../../deps';
import { AppError } from '../../../errors';
import type { ConnectionStore } from './ports';
import { watchesToken, type WbConnectionRecord, type WbPendingReport } from '../../../store/wb-connections.repo';
import type { FinanceClient, WbOutcome } from '../finance/finance-client';
import type { DetailedPage } from '../finance/page-body';
import type { ReportSummary } from '../finance/schemas';
import { advance, claim, planCall, type SyncSettings, type UnreadReport } from '../finance/sync-plan';
import { afterRateLimited } from '../rate';
import { openToken, type KeyWrapper } from '../token-crypto';
import {
  costsStart,
  firstCostsDue,
  pendingKinds,
  queueImported,
  runCostStep,
  type CostStepDeps,
  type CostStepResult,
} from './costs-step';
import { needsExpiryNotice, sendExpiryNotice } from './expiry';
import { BALANCE_EVERY_MS, planBalance } from '../balance/balance-plan';
import { runBalanceStep, type BalanceStepDeps } from '../balance/balance-step';

export type ImportOutcome =
  | { kind: 'imported'; reportId: string }
  /** The user has this WB report already (uploaded as a file, or imported before). */
  | { kind: 'duplicate' }
  | { kind: 'insufficient_limits'; rows: number; limits: number };

export interface StepDeps {
  connections: ConnectionStore;
  keyWrapper: () => KeyWrapper;
  finance: (token: string) => FinanceClient;
  /** Stores one page of rows (gzip'd JSON lines) under `key` in the bucket. */
  putPage: (key: string, body: Buffer) => Promise<void>;
  /** Deletes pages of rows; a failure is logged, never thrown (connection-deps.ts deletePages). */
  deletePages: (keys: readonly string[]) => Promise<void>;
  /** Does the user have a report of this identity already (report-identity.ts)? */
  hasIdentity: (userId: string, identity: string) => Promise<boolean>;
  /**
   * Charges and builds a report whose rows are all read (shared/reports/worker/wb-import.ts);
   * `costsPending`: the cost kinds WB's other APIs are asked for next (the report's `costs_pending`).
   */
  importReport: (
    c: WbConnectionRecord,
    p: WbPendingReport,
    sums: ReportSummary | null,
    costsPending: readonly string[],
  ) => Promise<ImportOutcome>;
  /** Mails the user that the connection's token expires soon (expiry.ts). */
  expiryMail: (c: WbConnectionRecord) => Promise<void>;
  /**
   * Tells the user the sync has a problem (the sync_problem notification, shared/notifications/record.ts):
   * called once when it begins; never throws. Absent: nobody is told.
   */
  problem?: (c: WbConnectionRecord, code: string, message: string, atMs: number) => Promise<void>;
  clock: Clock;
  ids: IdSource;
  settings: () => SyncSettings & { leaseMs: number };
  /** Per-article costs from WB's other APIs (costs-step.ts), fetched while no Finance call is due; absent: none. */
  costs?: CostStepDeps;
  /** WB's balance (shared/marketplaces/wb/balance/), read with the Finance calls' budget; absent: not read. */
  balance?: BalanceStepDeps;
  /** Waits `ms` of the clock (a step that waits for its call's slot, `tick` `aheadMs`); default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The connection errors a seller is told of (the others are passing or shown on the page only). */
const SYNC_PROBLEMS = new Set(['wb_token_invalid', 'wb_token_no_finance', 'wb_unavailable', 'insufficient_limits']);

/** The identity of a WB report, the one an uploaded file named «…№<report>_<seller>…» has. */
export const wbIdentity = (wbSellerId: string, wbReportId: number) => `num:${wbSellerId}:${wbReportId}`;

/**
 * Where a page of a report's rows is kept while the report is read: keyed by the cursor it was read from.
 * Deleted once the report is imported or found a duplicate (wb-import.ts), and with the connection. Every
 * page is under `sources/wbsync/`, where the bucket's lifecycle rule expires what a lost delete left
 * behind (serverless.base.yml `expire-wb-pages`).
 */
export const pageKey = (c: Pick<WbConnectionRecord, 'user_id' | 'id'>, wbReportId: number, afterRrdId: number) =>
  `sources/wbsync/${c.user_id}/${c.id}/${wbReportId}/${String(afterRrdId).padStart(16, '0')}.json.gz`;

/**
 * Every page a connection may hold: those of the report being read and of the read reports waiting to be
 * imported, and the one a step that died may have stored before its cursor moved (its key is the cursor's).
 */
export function connectionPageKeys(c: WbConnectionRecord): string[] {
  const keys = [...(c.reading?.pages ?? []), ...c.pending.flatMap((p) => p.pages)].map((p) => p.key);
  if (c.cursor.reportId !== null) keys.push(pageKey(c, c.cursor.reportId, c.cursor.rrdId));
  return [...new Set(keys)];
}

export type StepResult =
  | 'gone'
  | 'inactive'
  | 'leased'
  | 'busy'
  | 'budget'
  | 'wait'
  | 'blocked'
  | 'limits_exhausted'
  | 'imported'
  | 'called'
  /** This step's one Finance call was WB's balance (read or refused: the report sync is untouched). */
  | 'balance'
  | CostStepResult;

const iso = (ms: number) => new Date(ms).toISOString();
const moscowTime = (ms: number) =>
  new Date(ms).toLocaleString('ru-RU', { timeZone: 'Europe/Moscow', dateStyle: 'short', timeStyle: 'short' });

/** The seller's sentence for listed reports WB does not give the rows of (the connection's error). */
export function unreadError(unread: readonly UnreadReport[]): { code: string; message: string } {
  const ids = unread.map((u) => `№ ${u.reportId}`).join(', ');
  const one = unread.length === 1;
  return {
    code: 'wb_report_unread',
    message: `WB не отдаёт строки ${one ? 'отчёта' : 'отчётов'} ${ids} (${unread.map((u) => u.reason).join('; ')}): ${one ? 'он будет запрошен' : 'они будут запрошены'} снова в следующей синхронизации; можно повторить сейчас.`,
  };
}

/** What a read report's rows say about the costs it needs (finance/row-marks.ts), over its pages. */
const pageMarks = (p: WbPendingReport): string[] => [...new Set(p.pages.flatMap((pg) => pg.marks ?? []))];

/** Imports the connection's read reports in order; stops at the first the limits do not cover. */
async function importPending(deps: StepDeps, c: WbConnectionRecord): Promise<WbConnectionRecord | 'lost' | 'limits'> {
  let cur = c;
  while (cur.pending.length > 0) {
    const p = cur.pending[0]!;
    const key = String(p.ref.reportId);
    let outcome: ImportOutcome;
    try {
      outcome = await deps.importReport(cur, p, cur.found[key] ?? null, pendingKinds(deps.costs, cur, pageMarks(p)));
    } catch (e) {
      // A page the bucket's lifecycle rule expired (a report held for limits longer than pages are kept,
      // serverless.base.yml `expire-wb-pages`): the report is let go unread, not imported, so the next
      // round that lists it reads it again.
      if (!(e instanceof AppError && e.code === 'source_missing')) throw e;
      const { [key]: _gone, ...found } = cur.found;
      const saved = await deps.connections.saveConnection({ ...cur, pending: cur.pending.slice(1), found });
      if (!saved) return 'lost';
      cur = saved;
      continue;
    }
    if (outcome.kind === 'insufficient_limits') {
      if (cur.sync_status !== 'limits_exhausted') {
        const saved = await deps.connections.saveConnection({
          ...cur,
          sync_status: 'limits_exhausted',
          error: {
            code: 'insufficient_limits',
            message: `Отчёт WB № ${p.ref.reportId} прочитан (${outcome.rows} строк), но лимитов не хватает (осталось ${outcome.limits}). Синхронизация продолжится после пополнения.`,
          },
        });
        if (!saved) return 'lost';
        if (saved.error) await deps.problem?.(saved, saved.error.code, saved.error.message, nowMs(deps.clock));
      }
      return 'limits';
    }
    const { [key]: _done, ...found } = cur.found;
    const imported = outcome.kind === 'imported';
    // The week's per-article costs are asked for next (costs-step.ts), before the Finance sync goes on.
    const costs =
      outcome.kind === 'imported'
        ? queueImported(
            deps.costs,
            cur,
            {
              id: outcome.reportId,
              from: p.ref.dateFrom.slice(0, 10),
              to: p.ref.dateTo.slice(0, 10),
              marks: pageMarks(p),
            },
            nowMs(deps.clock),
          )
        : {};
    const saved = await deps.connections.saveConnection({
      ...cur,
      ...costs,
      pending: cur.pending.slice(1),
      found,
      imported_ids: [...new Set([...cur.imported_ids, p.ref.reportId])],
      reports_imported: cur.reports_imported + (imported ? 1 : 0),
      round: { ...cur.round, reports_imported: cur.round.reports_imported + (imported ? 1 : 0) },
      ...(cur.sync_status === 'limits_exhausted'
        ? { sync_status: cur.cursor.phase === 'idle' ? ('scheduled' as const) : ('syncing' as const), error: null }
        : {}),
    });
    if (!saved) return 'lost';
    cur = saved;
  }
  return cur;
}

/** One step of one connection (see the module comment). */
export async function runStep(
  deps: StepDeps,
  userId: string,
  id: string,
  opts: {
    /**
     * A Finance call due by this time (ms, the clock's) is waited for and made in this step rather than
     * left to the next tick: with ticks one WB interval apart, a call timed from the previous answer is
     * due moments after a tick, and would otherwise wait a whole extra interval.
     */
    waitUntil?: number;
  } = {},
): Promise<StepResult> {
  let c = await deps.connections.getConnection(userId, id);
  if (!c) return 'gone';
  let start = nowMs(deps.clock);
  // A paused connection is looked at for its token alone (expiry.ts): the notice, and at the expiry the
  // stop below; no lease, no import, no WB call.
  const paused = c.status === 'paused';
  if (c.status !== 'active' && !(paused && watchesToken(c))) return 'inactive';
  if (!paused && c.lease_until > start) return 'leased';
  if (Date.parse(c.expires_at) <= start) {
    await deps.connections.saveConnection({
      ...c,
      status: 'token_expired',
      sync_status: 'stopped',
      error: { code: 'wb_token_expired', message: 'Срок действия токена WB истёк: вставьте новый токен.' },
    });
    return 'inactive';
  }
  if (needsExpiryNotice(c, start)) {
    const marked = await sendExpiryNotice(deps, c, start);
    if (!marked) return 'busy';
    c = marked;
  }
  if (paused) return 'inactive';
  let imported = false;
  if (c.pending.length > 0) {
    const r = await importPending(deps, c);
    if (r === 'lost') return 'busy';
    if (r === 'limits') return 'limits_exhausted';
    c = r;
    imported = true;
  }
  // An imported week's costs (or a rebuild they wait for) come first: their call is on another API's
  // budget, so the Finance call below is still made in this step when it is due.
  let first: CostStepResult | null = null;
  if (deps.costs && firstCostsDue(c, start)) {
    first = await runCostStep(deps.costs, deps.connections, deps.keyWrapper, c, start);
    if (first === 'busy') return 'busy';
    const again = await deps.connections.getConnection(userId, id);
    if (!again) return 'gone';
    c = again;
    start = Math.max(start, nowMs(deps.clock));
  }
  const settings = deps.settings();
  // WB's balance, when due, is this step's Finance call (balance-plan.ts): on the same budget, an hour apart.
  if (
    deps.balance &&
    planBalance(c.balance, c.cursor, start, {
      everyMs: deps.balance.everyMs?.() ?? BALANCE_EVERY_MS,
      policy: settings.policy,
    }).kind === 'call'
  ) {
    const clock = deps.clock;
    const r = await runBalanceStep(
      deps.balance,
      {
        connections: deps.connections,
        keyWrapper: deps.keyWrapper,
        policy: settings.policy,
        leaseMs: settings.leaseMs,
        now: () => nowMs(clock),
      },
      c,
      start,
    );
    return r;
  }
  let plan = planCall(c.cursor, start, settings);
  if (
    plan.kind === 'wait' &&
    opts.waitUntil !== undefined &&
    plan.until <= opts.waitUntil &&
    c.lease_until <= plan.until
  ) {
    await (deps.sleep ?? timerSleep)(plan.until - start);
    start = Math.max(nowMs(deps.clock), plan.until);
    plan = planCall(c.cursor, start, settings);
  }
  if (plan.kind === 'none') return first ?? 'blocked';
  if (plan.kind === 'wait') {
    if (first) return first;
    // No Finance call due: the per-article costs' step, if any (costs-step.ts).
    const costs = deps.costs ? await runCostStep(deps.costs, deps.connections, deps.keyWrapper, c, start) : null;
    return costs ?? (imported ? 'imported' : 'wait');
  }

  // The claim: the lease and the WB account's budget, or nothing. The budget is reserved for the whole
  // lease (a step that dies holds it no longer) and released by WB's answer below: its next call is timed
  // from the answer, so no stall before the call (the store, the token's key) brings two calls closer
  // than WB's interval.
  const startsRound = c.cursor.phase === 'idle';
  const cursorClaimed = claim(c.cursor, start, settings);
  const holder = `${c.id}#${cursorClaimed.version}`;
  const claimed = await deps.connections.claimStep(
    {
      ...c,
      cursor: cursorClaimed,
      lease_until: start + settings.leaseMs,
      ...(c.sync_status === 'error' && c.error?.code === 'wb_unavailable' ? {} : { sync_status: 'syncing' as const }),
      ...(startsRound ? { round: { reports_found: 0, reports_imported: 0, rows_read: 0 }, error: null } : {}),
    },
    start,
    start + settings.leaseMs,
    undefined,
    holder,
  );
  if (claimed.kind === 'busy') return 'busy';
  if (claimed.kind === 'budget') {
    // Another connection of this WB account is calling or called: look again when its budget comes, or
    // an interval on while its call is in flight (its answer releases the budget earlier than reserved).
    const wait = Math.min(claimed.until, start + settings.policy.intervalMs);
    await deps.connections.saveConnection({
      ...c,
      cursor: { ...c.cursor, nextCallAt: Math.max(c.cursor.nextCallAt, wait) },
    });
    return 'budget';
  }
  c = claimed.connection;

  // The one call.
  const call = plan.call;
  // A step that dies before the answer leaves the reservation to run to the lease's end.
  const token = await openToken(c.sealed, deps.keyWrapper(), { sellerId: c.seller_id });
  const client = deps.finance(token);
  const outcome: WbOutcome<ReportSummary[]> | WbOutcome<DetailedPage> =
    call.kind === 'list' ? await client.listReports(call.query) : await client.detailedPage(call.reportId, call.query);
  const now = nowMs(deps.clock);
  // WB's answer sets the account's next call: an interval after the answer (which came after WB took the
  // call), or WB's own wait after a 429 (capped, rate.ts).
  const answeredNext =
    outcome.kind === 'rate_limited'
      ? afterRateLimited(now, outcome.retryAfterSeconds, settings.policy)
      : now + settings.policy.intervalMs;
  await deps.connections.releaseBudget(c.wb_seller_id, holder, answeredNext);

  // Reports the user has already (imported, or uploaded as files): never read, never charged again.
  const known = new Set(c.imported_ids);
  if (call.kind === 'list' && outcome.kind === 'ok') {
    for (const r of outcome.value as ReportSummary[]) {
      if (!known.has(r.reportId) && (await deps.hasIdentity(c.user_id, wbIdentity(c.wb_seller_id, r.reportId)))) {
        known.add(r.reportId);
      }
    }
  }
  const advanced = advance(c.cursor, call, outcome, now, settings, known);
  const effects = advanced.effects;
  const cursor = { ...advanced.cursor, nextCallAt: Math.max(advanced.cursor.nextCallAt, answeredNext) };

  let next: WbConnectionRecord = {
    ...c,
    cursor,
    lease_until: 0,
    imported_ids: [...known],
    ...costsStart(deps.costs, c),
  };
  for (const effect of effects) {
    switch (effect.kind) {
      case 'reports-found': {
        const found = { ...next.found };
        for (const r of effect.reports) found[String(r.reportId)] = r;
        next = {
          ...next,
          found,
          seller_name: next.seller_name ?? (effect.reports.find((r) => r.sellerFinanceName)?.sellerFinanceName || null),
          round: { ...next.round, reports_found: next.round.reports_found + effect.reports.length },
        };
        break;
      }
      case 'rows': {
        // Stored before the cursor moves past it: a step that dies here reads the page again into the same key.
        const key = pageKey(c, effect.reportId, c.cursor.rrdId);
        await deps.putPage(key, effect.page.body);
        const pages =
          next.reading?.wb_report_id === effect.reportId ? next.reading.pages.filter((p) => p.key !== key) : [];
        next = {
          ...next,
          reading: {
            wb_report_id: effect.reportId,
            pages: [
              ...pages,
              {
                key,
                rows: effect.page.rows,
                ...(effect.page.duplicates ? { duplicates: effect.page.duplicates } : {}),
                ...(effect.page.marks ? { marks: effect.page.marks } : {}),
              },
            ],
          },
          round: { ...next.round, rows_read: next.round.rows_read + effect.page.rows },
        };
        break;
      }
      case 'report-complete': {
        const ref = c.cursor.reports.find((r) => r.reportId === effect.reportId);
        const pages = next.reading?.wb_report_id === effect.reportId ? next.reading.pages : [];
        const rows = pages.reduce((n, p) => n + p.rows, 0);
        next = { ...next, reading: null };
        if (ref && rows > 0) {
          next.pending = [...next.pending, { report_id: deps.ids.newId(), ref, pages, rows }];
        } else {
          // A report without rows: nothing to build or charge.
          next.imported_ids = [...new Set([...next.imported_ids, effect.reportId])];
        }
        break;
      }
      case 'report-unread':
        // WB did not give the report's rows: what was read of it is let go (below); the next rounds ask again.
        next = { ...next, reading: null };
        break;
      case 'failing':
        next = {
          ...next,
          sync_status: 'error',
          error: {
            code: 'wb_unavailable',
            message: `WB не отвечает как ожидалось (${effect.failures} попыток подряд: ${effect.reason}). Синхронизация повторяет запросы сама; следующая попытка — ${moscowTime(cursor.nextCallAt)} (МСК).`,
            wb_status: effect.status,
            last_attempt_at: iso(c.cursor.lastCallAt ?? start),
            next_attempt_at: iso(cursor.nextCallAt),
          },
        };
        break;
      case 'report-missing':
        // WB no longer has the report (404, perhaps mid-read): the pages read so far are let go (below).
        next = { ...next, reading: null };
        break;
      case 'token-rejected':
        next = {
          ...next,
          status: effect.reason === 'unauthorized' ? 'token_invalid' : 'token_no_finance',
          sync_status: 'stopped',
          error: {
            code: effect.reason === 'unauthorized' ? 'wb_token_invalid' : 'wb_token_no_finance',
            message:
              effect.reason === 'unauthorized'
                ? 'WB больше не принимает токен: создайте новый токен с категорией «Финансы» и вставьте его.'
                : 'У токена нет доступа к категории «Финансы»: создайте токен с этой категорией.',
          },
        };
        break;
      case 'gave-up':
        // The read is let go (its pages deleted below): the next round reads the report again from its start.
        next = {
          ...next,
          reading: null,
          sync_status: 'error',
          error: {
            code: 'wb_unavailable',
            message: `WB не ответил как ожидалось; следующая попытка — в следующем раунде. (${effect.reason})`,
          },
        };
        break;
      case 'round-complete': {
        const unread = cursor.unread ?? [];
        next = {
          ...next,
          last_sync: iso(now),
          ...(next.sync_status === 'error' && next.error?.code !== 'wb_unavailable'
            ? {}
            : unread.length > 0
              ? { sync_status: 'error' as const, error: unreadError(unread) }
              : { sync_status: 'scheduled' as const, error: null }),
        };
        break;
      }
    }
  }
  // A call that went through after failures: the failure shown is over.
  const failingShown = effects.some((e) => e.kind === 'failing' || e.kind === 'gave-up');
  if (!failingShown && cursor.failures === 0 && next.error?.code === 'wb_unavailable' && next.sync_status === 'error') {
    next = { ...next, sync_status: cursor.phase === 'idle' ? 'scheduled' : 'syncing', error: null };
  }
  // Pages the connection lets go of in this step (a report WB no longer has, a read given up and another
  // report begun, the page a step that died stored at the cursor's key): deleted once it is written
  // without them. A write that loses deletes nothing: the next step repeats the call.
  const kept = new Set(connectionPageKeys(next));
  const dropped = connectionPageKeys(c).filter((key) => !kept.has(key));
  const saved = await deps.connections.saveConnection(next);
  if (!saved) return 'busy';
  // A problem that begins with this step (WB refuses the token, repeated failures): the seller is told
  // once per problem (only the step whose write started it gets here with it).
  if (saved.error && saved.error.code !== c.error?.code && SYNC_PROBLEMS.has(saved.error.code))
    await deps.problem?.(saved, saved.error.code, saved.error.message, nowMs(deps.clock));
  if (dropped.length > 0) await deps.deletePages(dropped);
  if (saved.pending.length > 0) {
    const r = await importPending(deps, saved);
    if (r === 'limits') return 'limits_exhausted';
    // The week just imported: its first cost call in this step, on its own API's budget.
    if (r !== 'lost' && deps.costs && firstCostsDue(r, nowMs(deps.clock)))
      await runCostStep(deps.costs, deps.connections, deps.keyWrapper, r, nowMs(deps.clock));
  }
  return 'called';
}

/**
 * The tick: one step of every due connection (a few at a time), each failure logged and left to the next
 * tick. With `budgetMs`, no step starts once that much time has passed on the clock since the tick
 * began: the connections not started are `deferred` (still due, the next tick takes them), so a tick's
 * work ends well within its schedule's period and ticks never pile up (docs/OPERATIONS.md).
 */
export async function tick(
  deps: StepDeps,
  opts: {
    limit?: number;
    budgetMs?: number;
    /**
     * Connections due within this many ms of the tick's start are taken too, each step waiting for its
     * call's time (runStep `waitUntil`); 0 (default): only those due now.
     */
    aheadMs?: number;
    onError?: (e: unknown, conn: { userId: string; id: string }) => void;
  } = {},
): Promise<Array<{ userId: string; id: string; result: StepResult | 'failed' | 'deferred' }>> {
  const started = nowMs(deps.clock);
  const ahead = opts.aheadMs ?? 0;
  const due = await deps.connections.dueConnections(started + ahead, opts.limit ?? 50);
  const out: Array<{ userId: string; id: string; result: StepResult | 'failed' | 'deferred' }> = [];
  const queue = [...due];
  const overBudget = () => opts.budgetMs !== undefined && nowMs(deps.clock) - started >= opts.budgetMs;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      if (overBudget()) {
        out.push({ ...next, result: 'deferred' });
        continue;
      }
      try {
        out.push({
          ...next,
          result: await runStep(deps, next.userId, next.id, ahead > 0 ? { waitUntil: started + ahead } : {}),
        });
      } catch (e) {
        opts.onError?.(e, next);
        out.push({ ...next, result: 'failed' });
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return out;
}
