/**
 * The per-article costs of a connected seller's reports, fetched as durable steps of the WB sync
 * (docs/ARCHITECTURE.md «The WB sync», «Per-article costs»). A step of a connection whose Finance call is
 * not due does at most ONE of, in this order:
 *
 *   1. re-derive a report whose costs were stored (a rebuild from its stored source, which keeps the
 *      manual corrections and lists any it cannot keep: shared/reports/rebuild/rebuild.ts) — no WB call;
 *   2. look for reports without costs (every ready report of the connection's seller with a period and a
 *      source, not fetched yet) and queue one job per report and cost source the token's categories
 *      allow — no WB call; at most every `scanEveryMs`;
 *   3. the head job's ONE call: the WB account's budget for the source's API claimed with the connection's
 *      lease in one transaction (wb-connections.repo.ts claimStep), the call, its costs stored
 *      (wb-costs.repo.ts) before the job moves on, the job's next call not before the source's own wait.
 *
 * A 401/403 stops that source for the connection (the Finance sync goes on); transient trouble retries
 * the same call up to `maxFailures` times; a refused request gives the job up. With no source, a token
 * without the categories, or no connection, nothing here runs and reports are built from their rows.
 */
import type { CostBatch, CostKind, CostSource } from '../sources/costs';
import { openToken, type KeyWrapper } from '../token-crypto';
import type { WbConnectionRecord, WbCostJob, WbCostSync } from '../../../store/wb-connections.repo';
import type { ConnectionStore } from './ports';

export type CostStepResult = 'rederived' | 'scanned' | 'cost_called' | 'cost_budget' | 'busy';

export interface CostStepDeps {
  sources: readonly CostSource[];
  putCosts: (userId: string, wbSellerId: string, kind: CostKind, batch: CostBatch, fetchedAt: string) => Promise<void>;
  /** Ready reports of the user's seller with a stored source (not combined): id, period and totals. */
  reportsToCost: (userId: string, sellerId: string) => Promise<ReportToCost[]>;
  /** Starts the rebuild of a report (its worker task); `busy`: it is being built or rebuilt, try later. */
  rederive: (userId: string, reportId: string) => Promise<'started' | 'busy' | 'gone'>;
  /** The report no longer waits for WB's costs: its `costs_pending` removed (reports.repo.ts settleCostsPending). */
  settle: (userId: string, reportId: string) => Promise<void>;
  settings: () => { scanEveryMs: number; maxFailures: number; leaseMs: number };
}

type Connections = Pick<ConnectionStore, 'saveConnection' | 'claimStep'>;

export interface ReportToCost {
  id: string;
  period_from: string | null;
  period_to: string | null;
  /** The report's totals (kopecks by field): a source that `needsRows` is asked for when its field's is not 0. */
  totals?: Readonly<Record<string, number | null>>;
}

/**
 * The sources a report is asked for: every usable one, but a source that `needsRows` (costs.ts) only when
 * the report's rows carry its kind — `marks` of its pages as the sync read them, or its totals.
 */
export function sourcesFor(
  sources: readonly CostSource[],
  report: { marks?: readonly string[]; totals?: Readonly<Record<string, number | null>> },
): CostSource[] {
  return sources.filter(
    (s) => !s.needsRows || report.marks?.includes(s.kind) === true || (report.totals?.[s.kind] ?? 0) !== 0,
  );
}

export type { WbCostSync };

export const emptyCostSync = (): WbCostSync => ({
  jobs: [],
  rederive: [],
  fetched: [],
  done: {},
  refused: [],
  next_scan_at: 0,
  error: null,
});

/** The sources a connection's token categories allow and WB has not refused. */
export function usableSources(c: WbConnectionRecord, sources: readonly CostSource[]): CostSource[] {
  const refused = new Set(c.costs?.refused ?? []);
  return sources.filter((s) => c.scopes.includes(s.scopeName) && !refused.has(s.id));
}

const iso = (ms: number) => new Date(ms).toISOString();
const YEAR_MS = 365 * 86_400_000;

/**
 * What a Finance step writes for the costs: a connection whose token allows a cost source gets its
 * (empty) cost state, due at once, so the tick picks it up for the first scan.
 */
export function costsStart(deps: CostStepDeps | undefined, c: WbConnectionRecord): Partial<WbConnectionRecord> {
  if (!deps || c.costs || usableSources(c, deps.sources).length === 0) return {};
  return { costs: emptyCostSync() };
}

/**
 * The cost kinds a report the sync imports now will be given by WB's other APIs (the report's
 * `costs_pending` until they are in): those of the sources the connection's token allows, in the
 * registry's order; none without cost sources.
 */
export function pendingKinds(
  deps: CostStepDeps | undefined,
  c: WbConnectionRecord,
  marks: readonly string[] = [],
): CostKind[] {
  if (!deps) return [];
  return [...new Set(sourcesFor(usableSources(c, deps.sources), { marks }).map((s) => s.kind))];
}

/**
 * The connection's cost state once a report is imported: a job per usable source for the report's week
 * (WB's dateFrom..dateTo), due now and marked `first`, ahead of the queue (a job already under way
 * stays in front of them), so the week's costs are asked for in this step or the next, not at the next
 * scan. Nothing changes without cost sources.
 */
export function queueImported(
  deps: CostStepDeps | undefined,
  c: WbConnectionRecord,
  report: { id: string; from: string; to: string; marks?: readonly string[] },
  now: number,
): Partial<WbConnectionRecord> {
  if (!deps) return {};
  const sources = sourcesFor(usableSources(c, deps.sources), report);
  if (sources.length === 0 || !report.from || !report.to) return {};
  const state: WbCostSync = { ...emptyCostSync(), ...c.costs };
  if (state.jobs.some((j) => j.report_id === report.id)) return {};
  const fresh: WbCostJob[] = sources.map((s) => ({
    report_id: report.id,
    from: report.from,
    to: report.to,
    source: s.id,
    state: s.first(report.from, report.to),
    failures: 0,
    next_at: now,
    first: true,
  }));
  const [head, ...rest] = state.jobs;
  const underWay = head !== undefined && (head.first === true || Object.keys(head.state.memo).length > 0);
  const jobs = underWay ? [head, ...fresh, ...rest] : [...fresh, ...state.jobs];
  return { costs: { ...state, jobs } };
}

/** A job queued by an import is due: the step makes its call before the Finance sync's (step.ts). */
export function firstCostsDue(c: WbConnectionRecord, now: number): boolean {
  const head = c.costs?.jobs[0];
  return (c.costs?.rederive.length ?? 0) > 0 || (head?.first === true && head.next_at <= now);
}

/**
 * One cost step (see the module comment); null when there is nothing to do now (the caller then
 * reports its own result). `c` is the connection as the Finance part of the step left it.
 */
export async function runCostStep(
  deps: CostStepDeps,
  connections: Connections,
  keyWrapper: () => KeyWrapper,
  c: WbConnectionRecord,
  now: number,
): Promise<CostStepResult | null> {
  const sources = usableSources(c, deps.sources);
  const state: WbCostSync = { ...emptyCostSync(), ...c.costs };
  const settings = deps.settings();
  if (sources.length === 0) {
    // Every source refused: nothing to look for; the connection is due for its Finance calls only.
    if (c.costs && state.rederive.length === 0 && state.next_scan_at <= now) {
      await connections.saveConnection({ ...c, costs: { ...state, jobs: [], next_scan_at: now + YEAR_MS } });
    }
    if (state.rederive.length === 0) return null;
  }

  // 1. A report whose costs are in: rebuild it.
  if (state.rederive.length > 0) {
    const reportId = state.rederive[0]!;
    // Every cost of the report is in: no longer pending, so the rebuild (and a build under way's retry) uses them.
    await deps.settle(c.user_id, reportId);
    const r = await deps.rederive(c.user_id, reportId);
    if (r === 'busy') return null;
    const saved = await connections.saveConnection({ ...c, costs: { ...state, rederive: state.rederive.slice(1) } });
    return saved ? 'rederived' : 'busy';
  }

  // 2. Reports without costs: queue their jobs.
  if (state.jobs.length === 0) {
    if (now < state.next_scan_at) return null;
    const reports = await deps.reportsToCost(c.user_id, c.seller_id);
    const jobs: WbCostJob[] = [];
    for (const r of reports) {
      if (!r.period_from || !r.period_to) continue;
      const period = `${r.period_from}..${r.period_to}`;
      if (state.done[r.id] === period) continue;
      for (const s of sourcesFor(sources, r))
        jobs.push({
          report_id: r.id,
          from: r.period_from,
          to: r.period_to,
          source: s.id,
          state: s.first(r.period_from, r.period_to),
          failures: 0,
          next_at: now,
        });
    }
    // Oldest periods first, as the Finance sync fills the history.
    jobs.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
    const saved = await connections.saveConnection({
      ...c,
      costs: { ...state, jobs, next_scan_at: now + settings.scanEveryMs },
    });
    return saved ? 'scanned' : 'busy';
  }

  // 3. The head job's one call.
  const job = state.jobs[0]!;
  if (now < job.next_at) return null;
  const source = sources.find((s) => s.id === job.source);
  if (!source || job.state.call === null) {
    // A source no longer usable (refused meanwhile), or a finished job left over: drop it.
    const after = finishJob(state, job, false);
    const saved = await connections.saveConnection({ ...c, costs: after });
    if (!saved) return 'busy';
    for (const id of settledWithout(state, after)) await deps.settle(c.user_id, id);
    return 'scanned';
  }
  const pacing = source.pacing();
  const claimed = await connections.claimStep(
    { ...c, lease_until: now + settings.leaseMs },
    now,
    now + pacing.intervalMs,
    source.api,
  );
  if (claimed.kind === 'busy') return 'busy';
  if (claimed.kind === 'budget') {
    const jobs = [{ ...job, next_at: Math.max(job.next_at, claimed.until) }, ...state.jobs.slice(1)];
    await connections.saveConnection({ ...c, costs: { ...state, jobs } });
    return 'cost_budget';
  }
  const mine = claimed.connection;
  const token = await openToken(mine.sealed, keyWrapper(), { sellerId: mine.seller_id });
  const outcome = await source.call(source.client(token), job.state);
  const result = source.next(job.state, outcome, job.from, job.to, now);
  // Stored before the job moves on: a step that dies here repeats the call into the same keys.
  for (const batch of result.batches) await deps.putCosts(c.user_id, c.wb_seller_id, source.kind, batch, iso(now));

  let next: WbCostSync;
  if (result.refused) {
    next = {
      ...state,
      jobs: state.jobs.filter((j) => j.source !== source.id),
      refused: [...new Set([...state.refused, source.id])],
      error: {
        code: result.refused === 'forbidden' ? 'wb_token_no_scope' : 'wb_token_invalid',
        message: `WB не даёт токену доступа к категории «${source.scopeName}»: расходы по артикулам из неё не загружаются.`,
      },
    };
  } else if (result.retry) {
    const failures = job.failures + 1;
    next =
      failures >= settings.maxFailures
        ? {
            ...finishJob(state, job, false),
            error: { code: 'wb_unavailable', message: `WB не ответил на запрос расходов (${outcome.kind}).` },
          }
        : { ...state, jobs: [{ ...job, failures, next_at: now + result.waitMs }, ...state.jobs.slice(1)] };
  } else if (result.gaveUp !== undefined) {
    next = {
      ...finishJob(state, job, false),
      error: { code: 'wb_rejected', message: `WB отклонил запрос расходов: ${result.gaveUp}` },
    };
  } else if (result.state.call === null) {
    next = { ...finishJob(state, job, true), error: null };
  } else {
    next = {
      ...state,
      jobs: [{ ...job, state: result.state, failures: 0, next_at: now + result.waitMs }, ...state.jobs.slice(1)],
    };
  }
  const saved = await connections.saveConnection({ ...mine, lease_until: 0, costs: next });
  if (!saved) return 'busy';
  // A report whose jobs all ended without costs (refused, given up): no longer waiting for them.
  for (const id of settledWithout(state, next)) await deps.settle(c.user_id, id);
  return 'cost_called';
}

/** Reports that left the queue in this step without waiting for a rebuild. */
function settledWithout(before: WbCostSync, after: WbCostSync): string[] {
  const left = new Set(after.jobs.map((j) => j.report_id));
  const ids = new Set(before.jobs.map((j) => j.report_id).filter((id) => !left.has(id)));
  return [...ids].filter((id) => !after.rederive.includes(id));
}

/**
 * The job taken off the queue (`ok`: read to its end). When it was the report's last job, the report
 * waits for its rebuild if any of its jobs succeeded, and is done for its period then; a report whose
 * jobs all failed is tried again at the next scan.
 */
function finishJob(state: WbCostSync, job: WbCostJob, ok: boolean): WbCostSync {
  const jobs = state.jobs.filter((j) => j !== job);
  const fetched = ok ? [...new Set([...state.fetched, job.report_id])] : state.fetched;
  if (jobs.some((j) => j.report_id === job.report_id)) return { ...state, jobs, fetched };
  if (!fetched.includes(job.report_id)) return { ...state, jobs, fetched };
  return {
    ...state,
    jobs,
    fetched: fetched.filter((id) => id !== job.report_id),
    done: { ...state.done, [job.report_id]: `${job.from}..${job.to}` },
    rederive: [...new Set([...state.rederive, job.report_id])],
  };
}
