/**
 * Unit tier (fast, no emulators): the upload use case is real; everything it talks to (its stores, S3
 * files, the row count, the duplicate checks, recovery, ids, the clock and the worker invoker) is passed
 * as fakes (ports.ts), so each test checks one decision of uploadReport in milliseconds.
 * test/integration/reports-upload.test.ts runs the same flow against DynamoDB Local/s3rver.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError, conflict } from '../../errors';
import { manualClock } from '../../deps';
import { refusal, setUnitEnv, unitReport, unitUser } from '../../../test/support/unit-fixtures';
import type { InputFile } from './file-input';
import { HANDOVER_MAX_BYTES } from './read-handover';
import type { UploadDeps } from './upload';
import { countReportRows, uploadReport as uploadReportWith, type CountDeps, type UploadOptions } from './upload';
import type { FileRef } from './file-input';
import type { ReportConfig } from '../ports';

vi.mock('../../log');

setUnitEnv();

/** The upload's dependencies (ports.ts UploadDeps). */
/** The report settings of these tests (ports.ts ReportConfig): no wait for the worker, the default lease and attempts. */
const CONFIG: ReportConfig = {
  maxUploadBytes: 512 * 1024 * 1024,
  uploadWaitMs: 0,
  uploadWaitRows: 100_000,
  workerLeaseMs: 60_000,
  workerMaxAttempts: 3,
};

const deps = {
  clock: manualClock('2026-01-05T10:00:00.000Z'),
  config: () => CONFIG,
  ids: { newId: vi.fn() },
  invoker: { invoke: vi.fn() },
  reports: { getReportAnyStatus: vi.fn(), getReportItems: vi.fn(), deleteReport: vi.fn() },
  sellers: { getSeller: vi.fn() },
  files: {
    copyObject: vi.fn(),
    deleteObject: vi.fn(),
    putObject: vi.fn(),
    objectHead: vi.fn(),
    sourceObjectKey: (user: string, id: string, name: string) => `sources/${user}/${id}/${name}`,
  },
  engine: { countRows: vi.fn(), fingerprintReport: vi.fn(), readReport: vi.fn() },
  handover: { keep: vi.fn() },
  uploads: { saveUploadCount: vi.fn(), markCountOnly: vi.fn() },
  lifecycle: {
    processingReportPut: vi.fn((record: { id: string }, taskId: string) => ({ processing: record.id, taskId })),
  },
  idempotency: {
    getIdempotentRecord: vi.fn(),
    idempotencyPut: vi.fn((scope: string, key: string) => ({ idempotency: `${scope}:${key}` })),
  },
  limits: { chargeLimits: vi.fn() },
  identities: { identityPutTransactItem: vi.fn((_u: string, identity: string) => ({ identity })) },
  duplicates: {
    identityOfFile: vi.fn(),
    findDuplicate: vi.fn(),
    // The content check of a small file (duplicates.ts): its own tests are the integration ones.
    contentOfSmallFile: vi.fn(),
    findContentDuplicate: vi.fn(),
  },
  openInputFile: vi.fn<UploadDeps['openInputFile']>(),
  recoverAbandonedUploads: vi.fn<UploadDeps['recoverAbandonedUploads']>(),
  failUpload: vi.fn<UploadDeps['failUpload']>(),
};
const uploadReport = (u: typeof user, ref: FileRef | null, opts?: UploadOptions) =>
  uploadReportWith(deps as unknown as UploadDeps, u, ref, opts);

const user = unitUser({ limits: 100 });

function uploadedFile(): InputFile {
  return {
    filename: 'report.xlsx',
    size: 1234,
    source: async () => ({ path: '/tmp/report.xlsx', filename: 'report.xlsx' }),
    origin: { kind: 'upload', key: 'uploads/u1/up1/report.xlsx', uploadId: 'up1', etag: '"e1"' },
    counted: null,
  };
}

const rowCount = (rows: number) => ({
  rows,
  format: 'xlsx' as const,
  report_number: null,
  seller_number: null,
  period_from: null,
  period_to: null,
});

const claimKey = (key: string) => `u1#key#${key}`;

beforeEach(() => {
  vi.resetAllMocks();
  const ids = ['rep1', 'task1', 'rep2', 'task2'];
  deps.ids.newId.mockImplementation(() => ids.shift() ?? 'more');
  deps.lifecycle.processingReportPut.mockImplementation((record, taskId) => ({ processing: record.id, taskId }));
  deps.idempotency.idempotencyPut.mockImplementation((scope, key) => ({ idempotency: `${scope}:${key}` }));
  deps.identities.identityPutTransactItem.mockImplementation((_u, identity) => ({ identity }));
  deps.duplicates.identityOfFile.mockResolvedValue('IDENT');
  deps.duplicates.contentOfSmallFile.mockResolvedValue({ value: 'r1:1:00', days: {} });
  deps.duplicates.findContentDuplicate.mockResolvedValue(null);
  deps.duplicates.findDuplicate.mockResolvedValue(null);
  deps.openInputFile.mockResolvedValue(uploadedFile());
  deps.recoverAbandonedUploads.mockResolvedValue({ recovered: 0, refunded_rows: 0 });
  deps.idempotency.getIdempotentRecord.mockResolvedValue(null);
  deps.engine.countRows.mockResolvedValue(rowCount(40));
  deps.files.copyObject.mockResolvedValue(undefined);
  deps.files.putObject.mockResolvedValue(undefined);
  deps.files.deleteObject.mockResolvedValue(undefined);
  deps.files.objectHead.mockResolvedValue({ size: 1234, etag: '"e1"' });
  deps.limits.chargeLimits.mockResolvedValue({ limits_after: 60 });
  deps.invoker.invoke.mockResolvedValue(undefined);
  deps.reports.getReportAnyStatus.mockImplementation(async (_u, id) =>
    unitReport({ id, status: 'processing', rows: 40 }),
  );
  deps.reports.getReportItems.mockResolvedValue([]);
});

describe('uploadReport: repeats', () => {
  it('a repeat with the same upload_id answers the prior report and charges nothing', async () => {
    deps.idempotency.getIdempotentRecord.mockImplementation(async (_scope, key) =>
      key === 'u1#upload#up1' ? { result: { report_id: 'old' }, fingerprint: 'upload:up1' } : null,
    );
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('old');
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
    expect(deps.openInputFile).not.toHaveBeenCalled();
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a repeat with the same Idempotency-Key and the same file answers the prior report', async () => {
    const file = { filename: 'a.xlsx', buffer: Buffer.from('bytes') };
    const { createHash } = await import('node:crypto');
    const fingerprint = `sha256:${createHash('sha256').update(file.buffer).digest('hex')}`;
    deps.idempotency.getIdempotentRecord.mockImplementation(async (_scope, key) =>
      key === claimKey('k1') ? { result: { report_id: 'old' }, fingerprint } : null,
    );
    const r = await uploadReport(user, { file }, { idempotencyKey: 'k1' });
    expect(r.record.id).toBe('old');
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });

  it('an Idempotency-Key reused with another file → 422 idempotency_key_reused naming the first report', async () => {
    deps.idempotency.getIdempotentRecord.mockImplementation(async (_scope, key) =>
      key === claimKey('k1') ? { result: { report_id: 'old' }, fingerprint: 'upload:other' } : null,
    );
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }, { idempotencyKey: 'k1' }));
    expect([e.status, e.code, e.details.report_id]).toEqual([422, 'idempotency_key_reused', 'old']);
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });

  it('looks up both claims of a request: its Idempotency-Key and its upload id', async () => {
    await uploadReport(user, { uploadId: 'up1' }, { idempotencyKey: 'k1' });
    expect(deps.idempotency.getIdempotentRecord.mock.calls.map((c) => c[1])).toEqual([claimKey('k1'), 'u1#upload#up1']);
  });
});

describe('uploadReport: a concurrent twin consumed the upload', () => {
  it('reading fails because the twin charged and deleted the upload: the twin report is the answer', async () => {
    deps.idempotency.getIdempotentRecord
      .mockResolvedValueOnce(null) // no claim when this request started
      .mockResolvedValue({ result: { report_id: 'twin' }, fingerprint: 'upload:up1' });
    deps.engine.countRows.mockRejectedValue(new Error('the object is gone'));
    deps.reports.getReportAnyStatus.mockResolvedValue(unitReport({ id: 'twin', status: 'processing' }));
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('twin');
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });

  it('the upload already gone when opened (consumed by a late attempt of this request): its claim answers', async () => {
    deps.idempotency.getIdempotentRecord
      .mockResolvedValueOnce(null) // no claim when this request started
      .mockResolvedValue({ result: { report_id: 'late' }, fingerprint: 'upload:up1' });
    deps.openInputFile.mockRejectedValue(new AppError(404, 'upload_not_found', 'gone'));
    deps.reports.getReportAnyStatus.mockResolvedValue(unitReport({ id: 'late', status: 'processing' }));
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('late');
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });

  it('the upload gone with no twin to answer → 404 upload_not_found, nothing charged', async () => {
    deps.engine.countRows.mockRejectedValue(new Error('the object is gone'));
    deps.files.objectHead.mockResolvedValue(null);
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code]).toEqual([404, 'upload_not_found']);
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });
});

describe('uploadReport: refusals before the charge', () => {
  it('a duplicate → 409 duplicate_report before any charge, nothing stored', async () => {
    deps.duplicates.findDuplicate.mockResolvedValue({ id: 'dup', title: 'Старый', created_at: '2024-01-01T00:00:00Z' });
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code, e.details.report_id]).toEqual([409, 'duplicate_report', 'dup']);
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
    expect(deps.files.copyObject).not.toHaveBeenCalled();
  });

  it('a duplicate whose twin request won the claim answers the twin report instead of 409', async () => {
    deps.duplicates.findDuplicate.mockResolvedValue({ id: 'twin', title: 'Т', created_at: '2024-01-01T00:00:00Z' });
    deps.idempotency.getIdempotentRecord
      .mockResolvedValueOnce(null)
      .mockResolvedValueOnce({ result: { report_id: 'twin' }, fingerprint: 'upload:up1' });
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('twin');
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });

  it('allow_duplicate skips the duplicate lookups altogether', async () => {
    deps.duplicates.findDuplicate.mockResolvedValue({ id: 'dup', title: 'Т', created_at: '2024-01-01T00:00:00Z' });
    const r = await uploadReport(user, { uploadId: 'up1' }, { allowDuplicate: true });
    expect(r.record.id).toBe('rep1');
    expect(deps.duplicates.findDuplicate).not.toHaveBeenCalled();
    expect(deps.limits.chargeLimits).toHaveBeenCalledOnce();
  });

  it('limits short → 402 insufficient_limits, the stored source removed, nothing charged', async () => {
    deps.engine.countRows.mockResolvedValue(rowCount(101));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code, e.details]).toEqual([402, 'insufficient_limits', { rows: 101, limits: 100 }]);
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
    expect(deps.files.deleteObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it("rows refunded by the recovery sweep count for this upload's limits", async () => {
    deps.recoverAbandonedUploads.mockResolvedValue({ recovered: 1, refunded_rows: 5 });
    deps.engine.countRows.mockResolvedValue(rowCount(105));
    await uploadReport(user, { uploadId: 'up1' });
    expect(deps.limits.chargeLimits).toHaveBeenCalledOnce();
  });

  it('a count that refuses the file removes the stored source and passes the error on', async () => {
    deps.engine.countRows.mockRejectedValue(new AppError(422, 'missing_headers', 'no headers'));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect(e.code).toBe('missing_headers');
    expect(deps.files.copyObject).toHaveBeenCalledWith(
      'uploads/u1/up1/report.xlsx',
      'sources/u1/rep1/report.xlsx',
      '"e1"',
    );
    expect(deps.files.deleteObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx');
    expect(deps.limits.chargeLimits).not.toHaveBeenCalled();
  });

  it('a count kept by count-rows for these bytes is charged without reading the file', async () => {
    const source = vi.fn(async () => ({ path: '/tmp/report.xlsx' }));
    deps.openInputFile.mockResolvedValue({
      ...uploadedFile(),
      source,
      counted: { ...rowCount(70), etag: '"e1"', identity: 'KEPT' },
    });
    await uploadReport(user, { uploadId: 'up1' });
    expect(deps.engine.countRows).not.toHaveBeenCalled();
    expect(source).not.toHaveBeenCalled();
    expect(deps.duplicates.findDuplicate).toHaveBeenCalledWith('u1', 'KEPT');
    expect(deps.limits.chargeLimits.mock.calls[0]![0]).toMatchObject({ rows: 70 });
  });

  it("the preview's kept read of these bytes is named in the report for its worker", async () => {
    deps.openInputFile.mockResolvedValue({
      ...uploadedFile(),
      counted: { ...rowCount(70), etag: '"e1"', identity: 'KEPT', read_key: 'uploads/u1/up1/report.xlsx.read.json.gz' },
    });
    await uploadReport(user, { uploadId: 'up1' });
    const [record] = deps.lifecycle.processingReportPut.mock.calls[0]!;
    expect(record).toMatchObject({ rows: 70, read_key: 'uploads/u1/up1/report.xlsx.read.json.gz' });
  });

  it('a multipart file is stored with putObject, not copied', async () => {
    const buffer = Buffer.from('bytes');
    deps.openInputFile.mockResolvedValue({
      ...uploadedFile(),
      origin: { kind: 'buffer', buffer },
    });
    await uploadReport(user, { file: { filename: 'report.xlsx', buffer } });
    expect(deps.files.putObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx', buffer);
    expect(deps.files.copyObject).not.toHaveBeenCalled();
  });
});

describe('uploadReport: the charge', () => {
  it('charges exactly the counted rows, with the report, its identity and both claims in one transaction', async () => {
    const r = await uploadReport(user, { uploadId: 'up1' }, { idempotencyKey: 'k1' });
    expect(r.record).toMatchObject({ id: 'rep1', status: 'processing' });
    const input = deps.limits.chargeLimits.mock.calls[0]![0];
    expect(input.rows).toBe(40);
    expect(input.reportId).toBe('rep1');
    expect(input.extraItems).toEqual([
      { processing: 'rep1', taskId: 'task1' },
      { identity: 'IDENT' },
      { idempotency: `upload:${claimKey('k1')}` },
      { idempotency: 'upload:u1#upload#up1' },
    ]);
    expect(deps.invoker.invoke).toHaveBeenCalledWith({
      kind: 'report',
      user_id: 'u1',
      report_id: 'rep1',
      task_id: 'task1',
    });
    expect(deps.files.deleteObject).toHaveBeenCalledWith('uploads/u1/up1/report.xlsx');
  });

  it('a charge refused by the balance removes the stored source and answers 402', async () => {
    deps.limits.chargeLimits.mockRejectedValue(new AppError(402, 'insufficient_limits', 'short', {}));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect(e.status).toBe(402);
    expect(deps.files.deleteObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a claim taken concurrently (transaction_conflict on a claim item) answers the winner report', async () => {
    deps.limits.chargeLimits.mockRejectedValue(conflict('transaction_conflict', 'x', { item_index: 2 }));
    deps.idempotency.getIdempotentRecord
      .mockResolvedValueOnce(null)
      .mockResolvedValueOnce({ result: { report_id: 'winner' }, fingerprint: 'upload:up1' });
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('winner');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a conflict on the report record itself (item 0) is not taken for a twin', async () => {
    deps.limits.chargeLimits.mockRejectedValue(conflict('transaction_conflict', 'x', { item_index: 0 }));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect(e.code).toBe('transaction_conflict');
  });

  it('a rival of the same identity found after the charge: this upload is failed, refunded and deleted → 409', async () => {
    deps.duplicates.findDuplicate.mockImplementation(async (_u, _i, exclude) =>
      exclude === 'rep1' ? { id: 'rival', title: 'Т', created_at: '2024-01-01T00:00:00Z' } : null,
    );
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.code, e.details.report_id]).toEqual(['duplicate_report', 'rival']);
    expect(deps.failUpload.mock.calls[0]![1].code).toBe('duplicate_report');
    expect(deps.reports.deleteReport).toHaveBeenCalledWith('u1', 'rep1');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a failed worker invoke still answers the processing report (recovery picks it up)', async () => {
    deps.invoker.invoke.mockRejectedValue(new Error('lambda down'));
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record).toMatchObject({ id: 'rep1', status: 'processing' });
    expect(deps.limits.chargeLimits).toHaveBeenCalledOnce();
  });

  it('a report gone while waiting → 404 report_not_found', async () => {
    deps.reports.getReportAnyStatus.mockResolvedValue(null);
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code]).toEqual([404, 'report_not_found']);
  });
});

describe('countReportRows: a big upload is read once', () => {
  const count = (file: InputFile) => {
    deps.openInputFile.mockResolvedValue(file);
    return countReportRows(deps as unknown as CountDeps, user, { uploadId: 'up1' });
  };
  const big = (over: Partial<InputFile> = {}): InputFile => ({ ...uploadedFile(), size: 50 * 1024 * 1024, ...over });
  const read = {
    ...rowCount(300),
    articles: [],
    warnings: [],
    content: { value: 'r1:300:ab', days: {}, row_ids: ['7', '8', '9'] },
  };

  it('reads it whole, keeps the read beside the upload and names it, with its content, in the kept count', async () => {
    deps.engine.readReport.mockResolvedValue(read);
    deps.handover.keep.mockResolvedValue('uploads/u1/up1/report.xlsx.read.json.gz');
    const answer = await count(big());
    expect(answer).toMatchObject({ rows: 300, enough: false });
    expect(deps.engine.countRows).not.toHaveBeenCalled();
    expect(deps.handover.keep).toHaveBeenCalledWith('uploads/u1/up1/report.xlsx', read);
    expect(deps.uploads.saveUploadCount).toHaveBeenCalledWith('u1', 'up1', {
      rows: 300,
      format: 'xlsx',
      report_number: null,
      seller_number: null,
      etag: '"e1"',
      identity: 'IDENT',
      content: 'r1:300:ab',
      row_ids: ['7', '8', '9'],
      read_key: 'uploads/u1/up1/report.xlsx.read.json.gz',
    });
    // The same rows already held: count-rows says so before anything is uploaded.
    expect(deps.duplicates.findContentDuplicate).toHaveBeenCalledWith('u1', 'r1:300:ab', undefined, ['7', '8', '9']);
  });

  it('an upload without an ETag (nothing to tie a kept read to) is only counted', async () => {
    deps.engine.countRows.mockResolvedValue(rowCount(300));
    await count(big({ origin: { kind: 'upload', key: 'uploads/u1/up1/report.xlsx', uploadId: 'up1', etag: null } }));
    expect(deps.engine.readReport).not.toHaveBeenCalled();
    expect(deps.handover.keep).not.toHaveBeenCalled();
  });

  it('an upload too big to be read within the request is only counted', async () => {
    deps.engine.countRows.mockResolvedValue(rowCount(900_000));
    await count(big({ size: HANDOVER_MAX_BYTES + 1 }));
    expect(deps.engine.readReport).not.toHaveBeenCalled();
    expect(deps.handover.keep).not.toHaveBeenCalled();
    expect(deps.uploads.saveUploadCount.mock.calls[0]![2]).not.toHaveProperty('read_key');
  });

  it('an upload whose full read was too slow once is only counted', async () => {
    deps.engine.countRows.mockResolvedValue(rowCount(300));
    await count(big({ countOnly: true }));
    expect(deps.engine.readReport).not.toHaveBeenCalled();
    expect(deps.handover.keep).not.toHaveBeenCalled();
  });

  it("a full read past the request's budget answers 503 try_again and marks the upload count-only", async () => {
    deps.openInputFile.mockResolvedValue(big());
    deps.engine.readReport.mockReturnValue(new Promise(() => undefined));
    deps.uploads.markCountOnly.mockResolvedValue(undefined);
    const late = countReportRows(deps as unknown as CountDeps, user, { uploadId: 'up1' }, 20);
    await expect(late).rejects.toMatchObject({ status: 503, code: 'try_again' });
    expect(deps.uploads.markCountOnly).toHaveBeenCalledWith('u1', 'up1');
  });

  it('a small file past the budget marks nothing', async () => {
    deps.openInputFile.mockResolvedValue(uploadedFile());
    deps.engine.fingerprintReport.mockReturnValue(new Promise(() => undefined));
    await expect(countReportRows(deps as unknown as CountDeps, user, { uploadId: 'up1' }, 20)).rejects.toMatchObject({
      code: 'try_again',
    });
    expect(deps.uploads.markCountOnly).not.toHaveBeenCalled();
  });

  it('a kept read that cannot be stored fails the preview (the page asks again), nothing counted is kept', async () => {
    deps.engine.readReport.mockResolvedValue(read);
    deps.handover.keep.mockRejectedValue(new Error('s3 down'));
    await expect(count(big())).rejects.toThrow('s3 down');
    expect(deps.uploads.saveUploadCount).not.toHaveBeenCalled();
  });
});
