/**
 * The report worker's use case (functions/reports/worker.handler.ts runs it with the composition's
 * dependencies, shared/reports/deps.ts; shared/jobs/worker-invoke.ts queues it): builds an uploaded report, or rebuilds one, outside any HTTP request.
 *
 * One event = one attempt at one report's task:
 *   1. claim the report (reports.repo claimReportTask: conditional, counts the attempt) — a report that
 *      is done, failed, or held by a live worker is left alone, so an event delivered twice, a Lambda
 *      retry and a recovery re-invoke never run the same task side by side;
 *   2. renew the lease while working (a heartbeat that also saves the progress: step, rows read,
 *      items written); a lost lease stops this attempt;
 *   3. upload: read the stored source (the catalog looked up meanwhile: catalog-sync.ts), link the
 *      seller, price from the catalog, write the items as generation 1 with their deterministic ids (a
 *      repeated attempt overwrites the same items, never adds), then mark the report ready — and only
 *      then add the articles the catalog did not know (the catalog follow-up, lifecycle.ts: the report
 *      never waits for the catalog; a follow-up that fails leaves the report ready and is handed to a
 *      worker again by recovery); rebuild: rebuild.ts rebuildReport (a new generation switched in one
 *      conditional update), then `ready` with `last_rebuild`;
 *   4. on failure: the file's own fault (4xx) ends the task at once; anything else is retried — the
 *      lease is released and the worker re-invoked — until WORKER_MAX_ATTEMPTS; then an upload is
 *      `failed` and refunded in one transaction (once, ever), a rebuild leaves the report as it was.
 * A run that dies (timeout, out of memory) stops renewing its lease: Lambda's own retry, or recovery
 * (recover.ts) once the lease ran out, starts the next attempt.
 */
import { nowMs } from '../../deps';
import { AppError, toAppError } from '../../errors';
import { describeError, log } from '../../log';
import { countMetric, durationMetric, StepTimer } from '../../metrics';
import { commissionByCategory, computeTotals } from '../../engine';
import type { ReportRecord } from '../../store/report-record';
import type { ParsedReport } from '../../engine/types';
import type { WorkerEvent } from '../../jobs/worker-invoke';
import type { UserRecord } from '../../store/users.repo';
import { failureOf } from './failures';
import { giveUp, type WorkerContext } from './give-up';
import { CATALOG_LEASE_FACTOR, CATALOG_MAX_ATTEMPTS, type CatalogTask, type ReportProgress } from '../domain/lifecycle';
import type { WorkerDeps } from '../ports';
import { settingsDate } from './report-settings';
import { WB_DUPLICATE_ROWS } from './read-source';
import { contentIdentity, periodTitle, rowIdentity } from '../upload/report-identity';

export type WorkerOutcome = 'ready' | 'failed' | 'retrying' | 'skipped' | 'lost';

/** Rows between two progress notes while reading (the heartbeat saves the latest one). */
const ROWS_PER_NOTE = 5_000;

class Heartbeat {
  progress: ReportProgress;
  lost = false;
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: WorkerDeps,
    private readonly record: ReportRecord,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {
    this.progress = {
      ...(record.progress ?? { step: 'queued', rows_read: 0, rows_total: 0, items_written: 0, items_total: 0 }),
    };
    this.timer = setInterval(() => void this.save(), Math.max(250, Math.min(2_000, Math.floor(leaseMs / 4))));
  }

  note(p: Partial<ReportProgress>, saveNow = false): void {
    this.progress = { ...this.progress, ...p };
    if (saveNow) void this.save();
  }

  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (this.lost) return;
      try {
        const ok = await this.deps.lifecycle.renewReportTask(
          this.record.user_id,
          this.record.id,
          this.owner,
          this.leaseMs,
          this.progress,
          nowMs(this.deps.clock),
        );
        if (!ok) this.lost = true;
      } catch (e) {
        log('warn', 'worker heartbeat failed', { report_id: this.record.id, ...describeError(e) });
      }
    });
    return this.saving;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.saving;
  }

  /** Throws when another worker took the report over: nothing of this attempt may be written after that. */
  check(): void {
    if (this.lost) throw new LeaseLost();
  }
}

class LeaseLost extends Error {
  constructor() {
    super('the report was taken over by another worker');
    this.name = 'LeaseLost';
  }
}

/**
 * The preview's read of an upload when it is of the rows charged; null (the file is read instead) when
 * it is gone, unreadable, of another version or another row count, or the store fails.
 */
async function takeHandedRead(deps: WorkerDeps, record: ReportRecord, key: string): Promise<ParsedReport | null> {
  try {
    const parsed = await deps.handover.take(key);
    if (parsed && parsed.rows === record.rows) return parsed;
    log('warn', 'handed read not usable: reading the file', { report_id: record.id, rows: parsed?.rows ?? null });
  } catch (e) {
    log('warn', 'handed read failed: reading the file', { report_id: record.id, ...describeError(e) });
  }
  return null;
}

/** Reads the stored source, prices and writes the items, marks the report ready. */
async function buildUpload(
  deps: WorkerDeps,
  user: UserRecord,
  record: ReportRecord,
  owner: string,
  hb: Heartbeat,
  ctx: WorkerContext,
  time: StepTimer,
): Promise<void> {
  if (!record.source_path) throw new AppError(409, 'source_missing', 'The report has no stored source file');
  // Read where it lies, by byte ranges (the download overlaps the reading; no temporary copy).
  const ranges = await deps.files.objectRanges(record.source_path);
  if (!ranges) throw new AppError(409, 'source_missing', 'The stored source file is missing');
  time.lap('open');
  hb.note({ step: 'reading', rows_read: 0 }, true);
  // The catalog is looked up while the file is read (catalog-sync.ts); written after the report is ready.
  const catalog = deps.catalogSync(user.id);
  // The preview read these very bytes already and kept the read (upload/read-handover.ts): built from
  // it when it is usable, else the file is read here.
  const handed = record.read_key ? await takeHandedRead(deps, record, record.read_key) : null;
  if (handed) for (const a of handed.articles) catalog.add(a.article);
  const parsed =
    handed ??
    (await deps.engine.readReport(
      { ranges, filename: record.source_name ?? undefined },
      { maxCompressedBytes: deps.config().maxUploadBytes },
      {
        onRows: (rows) => {
          if (rows % ROWS_PER_NOTE === 0) hb.note({ rows_read: rows });
        },
        onArticle: (article) => catalog.add(article),
      },
    ));
  time.lap(handed ? 'handed_read' : 'read');
  if (parsed.rows > record.rows) {
    // The bytes are not the ones counted and charged (the upload was replaced after count-rows).
    throw new AppError(409, 'source_changed', `The file has ${parsed.rows} rows; ${record.rows} were charged`);
  }
  hb.check();
  await refuseSameContent(deps, record, parsed.content?.value ?? null, parsed.content?.row_ids ?? []);
  hb.note({ step: 'pricing', rows_read: parsed.rows, rows_total: parsed.rows }, true);
  countMetric('RowsProcessed', parsed.rows);
  const articles = parsed.articles.map((a) => a.article);
  const seller = parsed.seller_number ? await deps.sellers.ensureSellerByNumber(user.id, parsed.seller_number) : null;
  ctx.sellerId = seller?.id ?? null;
  const resolved = await deps.settings.resolveReportSettings(
    user,
    seller,
    parsed,
    articles,
    catalog.done(articles, settingsDate(parsed)),
    record.costs_pending,
  );
  time.lap('settings');
  const { items, allocation, warnings, attribution } = deps.engine.buildItems(parsed, resolved.settings);
  time.lap('items');
  hb.check();
  hb.note({ step: 'writing', items_total: items.length, items_written: 0 }, true);
  await deps.items.writeItems(user.id, record.id, record.items_gen ?? 1, items);
  time.lap('write');
  hb.check();
  hb.note({ step: 'finishing', items_written: items.length }, true);
  await hb.stop();
  // The articles the catalog did not know: added by the catalog follow-up once the report is ready.
  const newArticles = catalog.missing().length;
  const followUp: CatalogTask | undefined =
    newArticles > 0
      ? {
          task_id: deps.ids.newId(),
          until: nowMs(deps.clock) + deps.config().workerLeaseMs * CATALOG_LEASE_FACTOR,
          attempts: 1,
        }
      : undefined;
  const done = await deps.lifecycle.finishUploadTask(
    user.id,
    record.id,
    owner,
    {
      // Without a report number in the name, the period names it («Отчёт за 18.05–24.05.2026»).
      title: parsed.report_number ? record.title : (periodTitle(parsed.period_from, parsed.period_to) ?? record.title),
      report_number: parsed.report_number,
      seller_id: seller?.id ?? null,
      period_from: parsed.period_from,
      period_to: parsed.period_to,
      tax_profile: resolved.settings.tax,
      allocation,
      cost_attribution: attribution ?? null,
      totals: computeTotals(items.map((i) => i.effective)),
      commission_by_category: commissionByCategory(items),
      // The settings' warnings first: the record keeps a capped number of them.
      // The import's notes too (a WB report's rows WB sent twice: wb-import.ts), kept over a build.
      warnings: [
        ...resolved.warnings,
        ...warnings,
        ...parsed.warnings,
        ...record.warnings.filter((w) => w.code === WB_DUPLICATE_ROWS),
      ],
      item_count: items.length,
      wb_report_id: parsed.report_number ?? record.wb_report_id ?? null,
      content_fingerprint: parsed.content?.value ?? null,
      content_days: parsed.content?.days ?? null,
    },
    followUp,
  );
  if (!done) throw new LeaseLost();
  time.lap('finish');
  await deps.summaries.writeReportSummary(done, items);
  time.lap('summary');
  // The seller's notifications (report ready, penalties, profit drop): recorded once by key; never throws.
  await deps.events?.reportReady(done);
  if (followUp) {
    await endCatalogFollowUp(deps, done, followUp.task_id, () => catalog.write());
    time.lap('catalog');
  }
  // Own costs changed while it was built: rebuilt with them (rebuild-covered.ts).
  await deps.rebuildAgain?.(user.id, record.id);
}

/**
 * Runs a ready report's catalog follow-up `write` and ends it. Never throws: a write that fails or is
 * throttled leaves the report ready and the follow-up pending, and recovery (recover.ts) hands it to a
 * worker again once its lease ran out.
 */
async function endCatalogFollowUp(
  deps: WorkerDeps,
  record: ReportRecord,
  taskId: string,
  write: () => Promise<number>,
): Promise<boolean> {
  try {
    const added = await write();
    await deps.lifecycle.finishCatalogTask(record.user_id, record.id, taskId);
    countMetric('CatalogProductsAdded', added);
    return true;
  } catch (e) {
    log('warn', 'catalog follow-up failed; recovery retries it', { report_id: record.id, ...describeError(e) });
    return false;
  }
}

/**
 * A later attempt at a ready report's catalog follow-up (recovery handed it on): claims it, reads the
 * report's articles from its items, looks them up again and adds those still missing. After
 * CATALOG_MAX_ATTEMPTS it is dropped (the report's missing_cost_price warning names the articles).
 */
async function runCatalogFollowUp(deps: WorkerDeps, record: ReportRecord, taskId: string): Promise<WorkerOutcome> {
  const claimed = await deps.lifecycle.claimCatalogTask(
    record.user_id,
    record.id,
    taskId,
    deps.config().workerLeaseMs * CATALOG_LEASE_FACTOR,
    nowMs(deps.clock),
  );
  if (!claimed?.catalog_task) return 'skipped';
  if (claimed.catalog_task.attempts > CATALOG_MAX_ATTEMPTS) {
    await deps.lifecycle.finishCatalogTask(record.user_id, record.id, taskId);
    log('error', 'catalog follow-up dropped after its last attempt', { report_id: record.id });
    return 'failed';
  }
  const items = await deps.itemReader.getItemsOfGen(record.user_id, record.id, claimed.items_gen ?? 1);
  const sync = deps.catalogSync(record.user_id);
  const ok = await endCatalogFollowUp(deps, claimed, taskId, () => sync.complete(items.map((i) => i.article)));
  return ok ? 'ready' : 'retrying';
}

/**
 * One week is one report (duplicates.ts): the upload's content identity records (its fingerprint and
 * WB's ids of its first rows) are written first, then an older report of the user with the same rows —
 * or any of them — fails this upload as `duplicate_report` before anything is built (giveUp refunds it
 * once). Of two uploads of one week read at once, exactly the younger fails.
 */
async function refuseSameContent(
  deps: WorkerDeps,
  record: ReportRecord,
  fingerprint: string | null,
  rowIds: readonly string[],
): Promise<void> {
  if (!fingerprint) return;
  const identities = [contentIdentity(fingerprint), ...rowIds.map(rowIdentity)];
  for (const identity of identities)
    await deps.duplicates.putIdentity(record.user_id, identity, record.id, record.created_at);
  if (record.allow_duplicate) return;
  const older = await deps.duplicates.findContentDuplicate(record.user_id, fingerprint, record, rowIds);
  if (!older) return;
  for (const identity of identities) await deps.duplicates.deleteIdentity(record.user_id, identity, record.id);
  throw new AppError(409, 'duplicate_report', 'The same rows are already another report of this user', {
    report_id: older.id,
    title: older.title,
    created_at: older.created_at,
    reason: older.reason,
  });
}

async function rebuild(
  deps: WorkerDeps,
  user: UserRecord,
  record: ReportRecord,
  owner: string,
  hb: Heartbeat,
): Promise<void> {
  hb.note({ step: 'reading' }, true);
  const r = await deps.rebuildReport(user, record.id, (p) => hb.note(p));
  countMetric('RowsProcessed', r.record.rows);
  hb.check();
  await hb.stop();
  const ok = await deps.lifecycle.finishRebuildTask(user.id, record.id, owner, {
    task_id: record.task_id ?? '',
    finished_at: deps.clock.now().toISOString(),
    dropped: r.dropped,
  });
  if (!ok) throw new LeaseLost();
  // Own costs changed while it was rebuilt: once more, with them (rebuild-covered.ts).
  await deps.rebuildAgain?.(user.id, record.id);
}

/**
 * One attempt at the event's task (see the file comment). Never throws for the task's own failures:
 * they end in a retry or in `failed`; an exception here means the store itself was unreachable (Lambda
 * retries the event).
 */
export async function runWorkerEvent(deps: WorkerDeps, event: WorkerEvent): Promise<WorkerOutcome> {
  const c = deps.config();
  const owner = deps.ids.newId();
  const current = await deps.reports.getReportAnyStatus(event.user_id, event.report_id);
  if (current?.status === 'ready' && current.catalog_task?.task_id === event.task_id) {
    return runCatalogFollowUp(deps, current, event.task_id);
  }
  if (!current || current.status !== 'processing' || current.task_id !== event.task_id) return 'skipped';
  const record = await deps.lifecycle.claimReportTask(
    event.user_id,
    event.report_id,
    owner,
    c.workerLeaseMs,
    nowMs(deps.clock),
  );
  if (!record || record.task_id !== event.task_id) return 'skipped';
  const attempts = record.attempts ?? 1;
  const user = await deps.users.getUserById(event.user_id);
  if (!user) {
    await giveUp(deps, record, owner, failureOf(new AppError(404, 'not_found', 'user not found')));
    return 'failed';
  }
  if (attempts > c.workerMaxAttempts) {
    // A run that died (no chance to end the task itself) used the last attempt.
    await giveUp(deps, record, owner, failureOf(new Error('attempts exhausted')));
    return 'failed';
  }
  const hb = new Heartbeat(deps, record, owner, c.workerLeaseMs);
  const ctx: WorkerContext = { sellerId: null };
  const started = nowMs(deps.clock);
  const time = new StepTimer();
  try {
    if (record.task === 'rebuild') await rebuild(deps, user, record, owner, hb);
    else await buildUpload(deps, user, record, owner, hb, ctx, time);
    durationMetric(record.task === 'rebuild' ? 'RebuildDuration' : 'UploadDuration', nowMs(deps.clock) - started);
    log('info', 'report task done', { report_id: record.id, task: record.task, attempts, steps_ms: time.steps });
    return 'ready';
  } catch (e) {
    await hb.stop();
    if (e instanceof LeaseLost || hb.lost) {
      log('warn', 'report task lost its lease', { report_id: record.id, task: record.task });
      return 'lost';
    }
    const err = toAppError(e);
    const permanent = err.status < 500;
    log(permanent ? 'warn' : 'error', 'report task attempt failed', {
      report_id: record.id,
      task: record.task,
      attempts,
      code: err.code,
      ...describeError(e),
    });
    if (permanent || attempts >= c.workerMaxAttempts) {
      await giveUp(deps, record, owner, failureOf(e), ctx);
      return 'failed';
    }
    if (await deps.lifecycle.releaseReportTask(record.user_id, record.id, owner, c.workerLeaseMs, nowMs(deps.clock))) {
      // The next attempt, at once; if even the invoke fails, recovery re-invokes after the lease.
      await deps.invoker
        .invoke(event)
        .catch((ie: unknown) =>
          log('error', 'worker re-invoke failed', { report_id: record.id, ...describeError(ie) }),
        );
    }
    return 'retrying';
  }
}
