/**
 * Uploading a report (docs/API.md: count-rows, upload) and the upload URL. The upload route charges and
 * hands the report to the worker (shared/reports/worker/worker.ts); it does no parsing of its own beyond the
 * row count.
 */
import { createHash } from 'node:crypto';
import type { RowCount as RowCountJson, UploadUrl } from '../../contract/shapes';
import { AppError, badRequest, isStoreUnavailable, notFound, paymentRequired, unprocessable } from '../../errors';
import { computeTotals, type ReadLimits, type readReport, type RowCount } from '../../engine';
import { HANDOVER_MAX_BYTES, type ReadHandover } from './read-handover';
import type { ContentFingerprint } from '../../engine/fingerprint';
import { describeError, log } from '../../log';
import { countMetric, StepTimer } from '../../metrics';
import type { StoredItem } from '../../store/items.repo';
import type { ReportRecord } from '../../store/report-record';
import type { SellerRecord } from '../../store/sellers.repo';
import type { UserRecord } from '../../store/users.repo';
import { assertAcceptedName, assertAcceptedSize, cleanFilename, type FileRef, type InputFile } from './file-input';
import { CONTENT_CHECK_MAX_BYTES, duplicateReport } from './duplicates';
import { effectiveTaxProfile } from '../worker/report-settings';
import { nowMs } from '../../deps';
import type { ReportConfig, ReportDeps, TaskRoutePorts } from '../ports';
import { beforeDeadline, LATE, tryAgain } from '../deadline';
import { queuedProgress } from '../domain/lifecycle';

/** What an upload needs (the composition, deps.ts, gives the real ones). */
export type UploadDeps = Pick<
  ReportDeps,
  | 'clock'
  | 'config'
  | 'ids'
  | 'invoker'
  | 'reports'
  | 'sellers'
  | 'files'
  | 'engine'
  | 'lifecycle'
  | 'idempotency'
  | 'limits'
  | 'uploads'
  | 'identities'
  | 'duplicates'
  | 'openInputFile'
  | 'recoverAbandonedUploads'
  | 'failUpload'
>;

/** What the upload URL needs (its handler wires the real ones). */
export type UploadUrlDeps = {
  config: UploadDeps['config'];
  uploads: Pick<UploadDeps['uploads'], 'createUpload'>;
  files: Pick<UploadDeps['files'], 'presignPut'>;
};

export const UPLOAD_URL_TTL_SECONDS = 900;

export type UploadUrlResult = UploadUrl;

/**
 * A presigned PUT for `uploads/<user_id>/<upload_id>/<filename>`. Wrong extension → 415; size over
 * MAX_UPLOAD_BYTES → 413. The declared size is part of the signature.
 */
export async function createUploadUrl(
  deps: UploadUrlDeps,
  userId: string,
  input: { filename: string; size: number },
): Promise<UploadUrlResult> {
  const filename = cleanFilename(input.filename);
  if (filename === '') throw badRequest('validation_error', 'filename is empty');
  assertAcceptedName(filename);
  assertAcceptedSize(input.size, deps.config().maxUploadBytes);
  const upload = await deps.uploads.createUpload(userId, filename, input.size);
  const url = await deps.files.presignPut(upload.key, input.size, UPLOAD_URL_TTL_SECONDS);
  return { upload_id: upload.upload_id, url, method: 'PUT', headers: {}, expires_in: UPLOAD_URL_TTL_SECONDS };
}

function readLimits(deps: Pick<UploadDeps, 'config'>): Partial<ReadLimits> {
  return { maxCompressedBytes: deps.config().maxUploadBytes };
}

/**
 * The content fingerprint and WB's first row ids of the file: the ones its count-rows kept (a small file,
 * or a big one it read whole), else read now for a small file (null for a big one).
 */
async function knownContent(
  deps: Pick<TaskRoutePorts, 'duplicates'> & Pick<UploadDeps, 'config'>,
  file: InputFile,
): Promise<{ value: string; row_ids: string[] } | null> {
  if (file.counted?.content) return { value: file.counted.content, row_ids: file.counted.row_ids ?? [] };
  const c = await deps.duplicates.contentOfSmallFile(file, readLimits(deps));
  return c ? { value: c.value, row_ids: c.row_ids ?? [] } : null;
}

/** The answer of count-rows (the contract's RowCount). */
export type CountResult = RowCountJson;

/** What count-rows needs (its handler wires the real ones). */
export type CountDeps = Pick<TaskRoutePorts, 'openInputFile' | 'duplicates'> &
  Pick<UploadDeps, 'config'> & {
    engine: Pick<UploadDeps['engine'], 'countRows' | 'fingerprintReport'> & { readReport: typeof readReport };
    uploads: Pick<UploadDeps['uploads'], 'saveUploadCount'> & {
      markCountOnly(userId: string, uploadId: string): Promise<void>;
    };
    /** Where the read of a big upload is kept for its worker (read-handover.ts). */
    handover: Pick<ReadHandover, 'keep'>;
  };

/**
 * count-rows: the rows the upload would cost against the caller's limits. Charges and stores nothing.
 * Within the request's budget (`budgetMs`, deadline.ts): past it, 503 `try_again` (a slow store or a
 * busy machine; the page sends it again) rather than API Gateway's own 504 at 29 s.
 */
export async function countReportRows(
  deps: CountDeps,
  user: UserRecord,
  ref: FileRef | null,
  budgetMs?: number,
): Promise<CountResult> {
  const reading: { uploadId: string | null } = { uploadId: null };
  const r = await beforeDeadline(countNow(deps, user, ref, reading), budgetMs, 'count-rows');
  if (r === LATE) {
    // A full read too slow for the budget (a busy machine): the page's repeat only counts the upload.
    if (reading.uploadId !== null)
      await deps.uploads
        .markCountOnly(user.id, reading.uploadId)
        .catch((e: unknown) => log('warn', 'count-only mark failed', { ...describeError(e) }));
    throw tryAgain();
  }
  return r;
}

async function countNow(
  deps: CountDeps,
  user: UserRecord,
  ref: FileRef | null,
  reading: { uploadId: string | null },
): Promise<CountResult> {
  const file = await deps.openInputFile(user.id, ref);
  const known = file.counted;
  let c: RowCount;
  let identity: string;
  let content: { value: string; row_ids: string[] } | null;
  let readKey: string | null = null;
  if (known) {
    [c, identity, content] = [known, known.identity, await knownContent(deps, file)];
  } else {
    // A small file is read once for its count and its content fingerprint together (one parse). A big
    // upload is read whole and the read kept for its worker (read-handover.ts): the upload that follows
    // is then read once in all, not once here and again by the worker.
    const small = file.size <= CONTENT_CHECK_MAX_BYTES;
    const origin = file.origin;
    const handOver =
      !small && !file.countOnly && file.size <= HANDOVER_MAX_BYTES && origin.kind === 'upload' && origin.etag !== null
        ? origin
        : null;
    reading.uploadId = handOver?.uploadId ?? null;
    const [read, id] = await Promise.all([
      file.source().then((src): Promise<RowCount & { content?: ContentFingerprint }> => {
        if (small) return deps.engine.fingerprintReport(src, readLimits(deps));
        if (handOver === null) return deps.engine.countRows(src, readLimits(deps));
        return deps.engine.readReport(src, readLimits(deps)).then(async (parsed) => {
          readKey = await deps.handover.keep(handOver.key, parsed);
          const { format, rows, report_number, seller_number, content } = parsed;
          // An upload is a file: the engine's file reader never answers WB's API rows.
          if (format === 'wb_api') throw new Error('an upload was read as WB API rows');
          return { format, rows, report_number, seller_number, content };
        });
      }),
      deps.duplicates.identityOfFile(file),
    ]);
    c = { format: read.format, rows: read.rows, report_number: read.report_number, seller_number: read.seller_number };
    identity = id;
    content = read.content ? { value: read.content.value, row_ids: read.content.row_ids ?? [] } : null;
  }
  const duplicateOf =
    (await deps.duplicates.findDuplicate(user.id, identity)) ??
    (content ? await deps.duplicates.findContentDuplicate(user.id, content.value, undefined, content.row_ids) : null);
  if (!known && file.origin.kind === 'upload' && file.origin.etag) {
    // The upload that follows this preview charges this count for these bytes instead of reading them
    // again, and takes the content fingerprint of a small file from here too.
    await deps.uploads.saveUploadCount(user.id, file.origin.uploadId, {
      ...c,
      etag: file.origin.etag,
      identity,
      ...(content ? { content: content.value, row_ids: content.row_ids } : {}),
      ...(readKey ? { read_key: readKey } : {}),
    });
  }
  return {
    rows: c.rows,
    limits: user.limits,
    limits_after: Math.max(0, user.limits - c.rows),
    enough: c.rows <= user.limits,
    format: c.format,
    report_number: c.report_number,
    seller_number: c.seller_number,
    duplicate_of: duplicateOf && { id: duplicateOf.id, title: duplicateOf.title, created_at: duplicateOf.created_at },
  };
}

export interface UploadResult {
  record: ReportRecord;
  /** The items when the report is ready ([] while processing). */
  items: StoredItem[];
  seller: SellerRecord | null;
}

function titleOf(filename: string): string {
  return filename.replace(/\.(zip|xlsx|xls)$/i, '') || filename;
}

export interface UploadOptions {
  /** The `Idempotency-Key` header: the same key (per user) gives the same report, charged once. */
  idempotencyKey?: string;
  /** How long to wait for the worker (default: workerWaitMs of the file's rows). */
  waitMs?: number;
  /** Upload even when the user already has a report of the same identity (else 409 `duplicate_report`). */
  allowDuplicate?: boolean;
  /**
   * The request's budget (HttpRequest.budgetMs; deadline.ts): past it the upload answers its charged
   * report as `processing`, or 503 `try_again` when nothing was charged yet. None: no deadline.
   */
  budgetMs?: number;
}

const IDEMPOTENCY_SCOPE = 'upload';

interface UploadClaim {
  report_id: string;
}

/** The idempotency keys of a request: its header's, and its upload id's (an upload is one file, charged once). */
function claimKeys(userId: string, ref: FileRef | null, header: string | undefined): string[] {
  const keys: string[] = [];
  if (header !== undefined) keys.push(`${userId}#key#${header}`);
  if (ref && 'uploadId' in ref) keys.push(`${userId}#upload#${ref.uploadId}`);
  return keys;
}

/** What a key was first used for: a repeat with the same key and another file is refused. */
function fingerprintOf(ref: FileRef | null): string {
  if (!ref) return '';
  if ('uploadId' in ref) return `upload:${ref.uploadId}`;
  return `sha256:${createHash('sha256').update(ref.file.buffer).digest('hex')}`;
}

async function priorClaim(
  deps: Pick<UploadDeps, 'idempotency'>,
  keys: string[],
  fingerprint: string,
): Promise<UploadClaim | null> {
  for (const key of keys) {
    const prior = await deps.idempotency.getIdempotentRecord<UploadClaim>(IDEMPOTENCY_SCOPE, key);
    if (!prior) continue;
    if (prior.fingerprint !== undefined && prior.fingerprint !== fingerprint)
      throw unprocessable('idempotency_key_reused', 'This Idempotency-Key was used for another file', {
        report_id: prior.result.report_id,
      });
    return prior.result;
  }
  return null;
}

/**
 * upload (docs/API.md, and the asynchronous flow of the README): a repeat of an earlier request (same
 * Idempotency-Key or upload_id of this user) answers that request's report and charges nothing.
 * Otherwise: recount the rows, 402 when the caller's limits are short (nothing stored or charged), store
 * the source file, then charge the rows in ONE transaction with the `expense` record, the report record
 * (`processing`) and the idempotency claims; hand the report to the worker (asynchronous invoke) and wait
 * for it as long as workerWaitMs allows. Concurrent repeats race on the claims inside that transaction: one
 * charges; any other that fails before its charge (its claim refused, its upload consumed by the
 * winner, the winner's report seen as a duplicate) answers the winner's report. First, this user's
 * reports whose processing stopped are picked up (recover.ts), so a refund they get counts for this
 * upload.
 */
export async function uploadReport(
  deps: UploadDeps,
  user: UserRecord,
  ref: FileRef | null,
  opts: UploadOptions = {},
): Promise<UploadResult> {
  const settled: Settled = {};
  let r: UploadResult | typeof LATE;
  try {
    r = await beforeDeadline(uploadNow(deps, user, ref, opts, settled), opts.budgetMs, 'upload');
  } catch (e) {
    // A store that stopped answering after the charge (the worker's invoke, the wait's reads): the
    // charged report is the answer, as at the deadline; the worker or the recovery sweep builds it.
    if (settled.charged && isStoreUnavailable(e))
      return { record: processingView(settled.charged), items: [], seller: null };
    throw e;
  }
  if (r !== LATE) return r;
  // Out of time: the charged report (this request's, or a repeat's earlier one; the worker or the
  // recovery sweep builds it), or the one whose charge is under way (it commits, or fails and nothing is
  // charged: the report is then not found). Nothing charged and no charge begun: 503, and the late work
  // is told so — it begins no charge after this answer (countStoreAndCharge).
  const answered = settled.charged ?? settled.charging;
  if (answered) return { record: processingView(answered), items: [], seller: null };
  settled.gaveUp = true;
  throw tryAgain();
}

/**
 * What an upload has settled while it runs, read when its request runs out of time: the report it
 * charged, the one whose charge it sent, and (set by the request) that it answered 503 `try_again`.
 */
interface Settled {
  charged?: ReportRecord;
  charging?: ReportRecord;
  gaveUp?: boolean;
}

/**
 * The charged report as a request out of time shows it: `processing` (the page polls it to its end),
 * with the progress last read when there is one.
 */
function processingView(record: ReportRecord): ReportRecord {
  return {
    ...record,
    status: 'processing',
    task: record.task ?? 'upload',
    progress: record.status === 'processing' && record.progress ? record.progress : queuedProgress(record.rows),
  };
}

async function uploadNow(
  deps: UploadDeps,
  user: UserRecord,
  ref: FileRef | null,
  opts: UploadOptions,
  settled: Settled,
): Promise<UploadResult> {
  const time = new StepTimer();
  const keys = claimKeys(user.id, ref, opts.idempotencyKey);
  const fingerprint = fingerprintOf(ref);
  let waitMs = opts.waitMs ?? deps.config().uploadWaitMs;
  const seen = (record: ReportRecord) => (settled.charged = record);
  const prior = await priorClaim(deps, keys, fingerprint);
  if (prior) return awaitReport(deps, user.id, prior.report_id, waitMs, seen);

  const swept = await deps.recoverAbandonedUploads(user.id);
  const limits = user.limits + swept.refunded_rows;
  time.lap('claims');
  let file: InputFile;
  try {
    file = await deps.openInputFile(user.id, ref);
  } catch (e) {
    // The upload was consumed since the claims were read: by a twin, or by an earlier attempt of this
    // very request that answered 503 try_again and charged late. Its claim now answers.
    const twin =
      e instanceof AppError && e.code === 'upload_not_found' ? await priorClaim(deps, keys, fingerprint) : null;
    if (twin) return awaitReport(deps, user.id, twin.report_id, waitMs, seen);
    throw e;
  }
  time.lap('open');
  let record: ReportRecord;
  let taskId: string;
  let identity: string;
  try {
    // A duplicate is refused before anything is charged (issue 9).
    identity = file.counted?.identity ?? (await deps.duplicates.identityOfFile(file));
    if (!opts.allowDuplicate) {
      const dup = await deps.duplicates.findDuplicate(user.id, identity);
      if (dup) throw duplicateReport(dup);
      // The same rows in another file (xls of an xlsx, a zip, renamed): known from the preview, or read
      // here for a small file; the worker checks every file before building.
      const content = await knownContent(deps, file);
      const same = content
        ? await deps.duplicates.findContentDuplicate(user.id, content.value, undefined, content.row_ids)
        : null;
      if (same) throw duplicateReport(same);
    }
    time.lap('identity');
    const id = deps.ids.newId();
    const charged = await countStoreAndCharge(
      deps,
      user,
      file,
      id,
      identity,
      keys,
      fingerprint,
      limits,
      time,
      opts.allowDuplicate === true,
      settled,
    );
    record = charged.record;
    settled.charged = record;
    taskId = charged.taskId;
    waitMs = opts.waitMs ?? workerWaitMs(deps.config(), record.rows);
  } catch (e) {
    // Nothing is charged. A concurrent twin (same upload_id or Idempotency-Key) that charged first is
    // why, or may be: its report is this request's answer.
    const twin = await priorClaim(deps, keys, fingerprint).catch((err: unknown) => {
      if (err instanceof AppError) throw err;
      return null;
    });
    if (twin) return awaitReport(deps, user.id, twin.report_id, waitMs, seen);
    // The upload is gone (consumed by a twin that failed since, or expired): its ranges or copy failed.
    if (file.origin.kind === 'upload' && !(await deps.files.objectHead(file.origin.key).catch(() => 'unknown'))) {
      throw notFound('The file of this upload is gone', 'upload_not_found');
    }
    throw e;
  }
  time.lap('charge');
  if (!opts.allowDuplicate) {
    // Two uploads of one report at once both pass the early check; each wrote its identity record in
    // its charge, so at least one sees the other here and is undone (refunded once) as a duplicate.
    const rival = await deps.duplicates.findDuplicate(user.id, identity, record.id);
    if (rival) {
      await deps.failUpload(record, { code: 'duplicate_report', message: 'Этот отчёт уже загружен.' });
      await deps.reports.deleteReport(user.id, record.id);
      throw duplicateReport(rival);
    }
  }
  if (file.origin.kind === 'upload') {
    // The upload is consumed (its bytes are the report's source now); a repeat is answered by its claim.
    await deps.files.deleteObject(file.origin.key).catch(() => undefined);
  }
  countMetric('Uploads');
  try {
    await deps.invoker.invoke({ kind: 'report', user_id: user.id, report_id: record.id, task_id: taskId });
  } catch (e) {
    // The report stays processing; recovery hands it to a worker once its lease runs out.
    log('error', 'worker invoke failed', { report_id: record.id, ...describeError(e) });
  }
  time.lap('invoke');
  log('info', 'report uploaded', {
    report_id: record.id,
    rows: record.rows,
    format: record.format,
    steps_ms: time.steps,
  });
  return awaitReport(deps, user.id, record.id, waitMs, seen);
}

/**
 * Stores the source while the rows are counted (a copy inside S3 for an upload), refuses a count over
 * `limits` (402), then charges in one transaction: the expense, the report (`processing`), its
 * identity and the idempotency claims. Whatever fails removes the stored source again.
 */
async function countStoreAndCharge(
  deps: UploadDeps,
  user: UserRecord,
  file: InputFile,
  id: string,
  identity: string,
  keys: string[],
  fingerprint: string,
  limits: number,
  time: StepTimer,
  allowDuplicate: boolean,
  settled: Settled,
): Promise<{ record: ReportRecord; taskId: string }> {
  const sourceKey = deps.files.sourceObjectKey(user.id, id, file.filename);
  const stored = (
    file.origin.kind === 'upload'
      ? deps.files.copyObject(file.origin.key, sourceKey, file.origin.etag)
      : deps.files.putObject(sourceKey, file.origin.buffer)
  ).then(() => time.lap('store_source'));
  // Awaited below; until then a failed copy (the upload taken by a concurrent request) must not be an
  // unhandled rejection, which ends a Lambda invocation whatever the request does next.
  stored.catch(() => undefined);
  try {
    // A preview (count-rows) of these very bytes counted them already; else they are read here.
    const count = file.counted ?? (await deps.engine.countRows(await file.source(), readLimits(deps)));
    time.lap('count');
    // An early answer for the common case; the charge's condition is what holds under concurrency.
    if (count.rows > limits) throw paymentRequired(count.rows, limits);
    await stored;
    const taskId = deps.ids.newId();
    const record: ReportRecord = {
      ...newUploadRecord(user, file, count, id, sourceKey, deps.clock.now()),
      identity,
      wb_report_id: count.report_number,
      // The worker skips its content check for an upload that allowed a duplicate.
      ...(allowDuplicate ? { allow_duplicate: true } : {}),
      // The preview's read of these very bytes, for the worker to build from (read-handover.ts).
      ...(file.counted?.read_key ? { read_key: file.counted.read_key } : {}),
    };
    // The request answered 503 `try_again` meanwhile: nothing may be charged after that answer. The
    // check and the mark are one synchronous step, so the answer sees either the charge begun or none.
    if (settled.gaveUp) throw tryAgain();
    settled.charging = record;
    await deps.limits.chargeLimits({
      userId: user.id,
      rows: count.rows,
      reportId: record.id,
      extraItems: [
        deps.lifecycle.processingReportPut(record, taskId, deps.config().workerLeaseMs, deps.clock.now().getTime()),
        deps.identities.identityPutTransactItem(user.id, identity, record.id, record.created_at),
        ...keys.map((k) =>
          deps.idempotency.idempotencyPut(
            IDEMPOTENCY_SCOPE,
            k,
            { report_id: record.id },
            { user_id: user.id, fingerprint },
          ),
        ),
      ],
    });
    return { record, taskId };
  } catch (e) {
    await stored.catch(() => undefined);
    await deps.files
      .deleteObject(sourceKey)
      .catch((err: unknown) => log('error', 'source cleanup failed', { report_id: id, error: String(err) }));
    throw e;
  }
}

function newUploadRecord(
  user: UserRecord,
  file: InputFile,
  count: RowCount,
  id: string,
  sourcePath: string,
  now: Date,
): ReportRecord {
  return {
    id,
    user_id: user.id,
    title: titleOf(file.filename),
    report_number: count.report_number,
    seller_id: null,
    period_from: null,
    period_to: null,
    rows: count.rows,
    format: count.format,
    is_combined: false,
    source_path: sourcePath,
    source_name: file.filename,
    source_size: file.size,
    created_at: now.toISOString(),
    tax_profile: effectiveTaxProfile(user, null),
    totals: computeTotals([]),
    commission_by_category: [],
    warnings: [],
    item_count: 0,
  };
}

/**
 * How long a route waits for the worker on a report of `rows` rows: UPLOAD_WAIT_MS, or not at all above
 * UPLOAD_WAIT_ROWS — such a report cannot be ready within the wait, so waiting would only hold back the
 * 202 (and the progress the seller could already see).
 */
export function workerWaitMs(c: Pick<ReportConfig, 'uploadWaitMs' | 'uploadWaitRows'>, rows: number): number {
  return rows > c.uploadWaitRows ? 0 : c.uploadWaitMs;
}

/** Poll interval while waiting for the worker. */
const POLL_MS = 150;

/**
 * The report as it is once the worker ended its task or `waitMs` passed: ready (with its items),
 * failed, or still processing. A report that is gone (deleted meanwhile) is 404.
 */
export async function awaitReport(
  deps: Pick<UploadDeps, 'clock' | 'reports' | 'sellers'>,
  userId: string,
  reportId: string,
  waitMs: number,
  /** Told each state of the report read (a request out of time answers the last). */
  onRecord: (record: ReportRecord) => void = () => undefined,
): Promise<UploadResult> {
  const deadline = nowMs(deps.clock) + waitMs;
  for (;;) {
    const record = await deps.reports.getReportAnyStatus(userId, reportId);
    if (!record) throw notFound('Report not found', 'report_not_found');
    onRecord(record);
    if (record.status !== 'processing' || nowMs(deps.clock) >= deadline) {
      if (record.status !== 'ready') return { record, items: [], seller: null };
      const [items, seller] = await Promise.all([
        deps.reports.getReportItems(record),
        record.seller_id ? deps.sellers.getSeller(userId, record.seller_id) : Promise.resolve(null),
      ]);
      return { record, items, seller };
    }
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - nowMs(deps.clock)))));
  }
}

/** Articles without a catalog entry (the catalog is read once; ensureProducts re-checks each before writing). */
export function missingArticles(articles: readonly string[], known: ReadonlySet<string>): string[] {
  return articles.filter((a) => !known.has(a));
}
