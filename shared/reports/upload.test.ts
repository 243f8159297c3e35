/**
 * Unit tier (fast, no emulators): the upload use case is real; its stores, S3 files, duplicate lookup
 * and recovery are vi.mock'ed, its ids, clock and worker invoker passed as fakes (ports.ts), so each test checks one decision of uploadReport in
 * milliseconds. test/integration/reports-upload.test.ts runs the same flow against DynamoDB Local/s3rver.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError, conflict } from '../errors';
import { countRows } from '../engine';
import { copyObject, deleteObject, objectHead, putObject } from '../files/objects';
import { getIdempotentRecord } from '../store/idempotency.repo';
import { chargeLimits } from '../store/limits.repo';
import { deleteReport, getReportAnyStatus, getReportItems } from '../store/reports.repo';
import { manualClock } from '../deps';
import { refusal, setUnitEnv, unitReport, unitUser } from '../../test/support/unit-fixtures';
import { findDuplicate } from './duplicates';
import { openInputFile, type InputFile } from './file-input';
import { failUpload, recoverAbandonedUploads } from './recover';
import type { UploadDeps } from './upload';
import { uploadReport as uploadReportWith, type UploadOptions } from './upload';
import type { FileRef } from './file-input';

vi.mock('../log');
vi.mock('../engine', async (actual) => ({ ...(await actual<typeof import('../engine')>()), countRows: vi.fn() }));
vi.mock('../store/idempotency.repo', () => ({
  getIdempotentRecord: vi.fn(),
  idempotencyPut: vi.fn((scope: string, key: string) => ({ idempotency: `${scope}:${key}` })),
}));
vi.mock('../store/limits.repo', () => ({ chargeLimits: vi.fn() }));
vi.mock('../store/reports.repo', () => ({
  deleteReport: vi.fn(),
  getReportAnyStatus: vi.fn(),
  getReportItems: vi.fn(),
}));
vi.mock('../store/report-lifecycle.repo', () => ({
  processingReportPut: vi.fn((record: { id: string }, taskId: string) => ({ processing: record.id, taskId })),
}));
vi.mock('../store/sellers.repo', () => ({ getSeller: vi.fn() }));
vi.mock('../store/uploads.repo', () => ({ createUpload: vi.fn(), getUpload: vi.fn(), saveUploadCount: vi.fn() }));
vi.mock('../store/identities.repo', () => ({
  identityPutTransactItem: vi.fn((_u: string, identity: string) => ({ identity })),
}));
vi.mock('../store/products.repo', () => ({}));
vi.mock('../files/objects', () => ({
  copyObject: vi.fn(),
  deleteObject: vi.fn(),
  presignPut: vi.fn(),
  putObject: vi.fn(),
  sourceObjectKey: (user: string, id: string, name: string) => `sources/${user}/${id}/${name}`,
  objectRanges: vi.fn(),
  objectSize: vi.fn(),
  objectHead: vi.fn(),
}));
vi.mock('./recover', () => ({ failUpload: vi.fn(), recoverAbandonedUploads: vi.fn() }));
vi.mock('./duplicates', async (actual) => ({
  ...(await actual<typeof import('./duplicates')>()),
  identityOfFile: vi.fn(async () => 'IDENT'),
  findDuplicate: vi.fn(),
  // The content check of a small file (duplicates.ts): its own tests are the integration ones.
  contentOfSmallFile: vi.fn(async () => ({ value: 'r1:1:00', days: {} })),
  findContentDuplicate: vi.fn(async () => null),
}));
vi.mock('./file-input', async (actual) => ({
  ...(await actual<typeof import('./file-input')>()),
  openInputFile: vi.fn(),
}));

setUnitEnv();

/** The upload's own dependencies (ports.ts): ids, the clock and the invoker. */
const deps = {
  clock: manualClock('2026-01-05T10:00:00.000Z'),
  ids: { newId: vi.fn() },
  invoker: { invoke: vi.fn() },
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
  vi.mocked(openInputFile).mockResolvedValue(uploadedFile());
  vi.mocked(recoverAbandonedUploads).mockResolvedValue({ refunded_rows: 0 } as never);
  vi.mocked(getIdempotentRecord).mockResolvedValue(null);
  vi.mocked(findDuplicate).mockResolvedValue(null);
  vi.mocked(countRows).mockResolvedValue(rowCount(40));
  vi.mocked(copyObject).mockResolvedValue(undefined as never);
  vi.mocked(putObject).mockResolvedValue(undefined as never);
  vi.mocked(deleteObject).mockResolvedValue(undefined as never);
  vi.mocked(objectHead).mockResolvedValue({ size: 1234, etag: '"e1"' });
  vi.mocked(chargeLimits).mockResolvedValue({ limits_after: 60 } as never);
  deps.invoker.invoke.mockResolvedValue(undefined as never);
  vi.mocked(getReportAnyStatus).mockImplementation(async (_u, id) =>
    unitReport({ id, status: 'processing', rows: 40 }),
  );
  vi.mocked(getReportItems).mockResolvedValue([]);
});

describe('uploadReport: repeats', () => {
  it('a repeat with the same upload_id answers the prior report and charges nothing', async () => {
    vi.mocked(getIdempotentRecord).mockImplementation(async (_scope, key) =>
      key === 'u1#upload#up1' ? { result: { report_id: 'old' }, fingerprint: 'upload:up1' } : null,
    );
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('old');
    expect(chargeLimits).not.toHaveBeenCalled();
    expect(openInputFile).not.toHaveBeenCalled();
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a repeat with the same Idempotency-Key and the same file answers the prior report', async () => {
    const file = { filename: 'a.xlsx', buffer: Buffer.from('bytes') };
    const { createHash } = await import('node:crypto');
    const fingerprint = `sha256:${createHash('sha256').update(file.buffer).digest('hex')}`;
    vi.mocked(getIdempotentRecord).mockImplementation(async (_scope, key) =>
      key === claimKey('k1') ? { result: { report_id: 'old' }, fingerprint } : null,
    );
    const r = await uploadReport(user, { file }, { idempotencyKey: 'k1' });
    expect(r.record.id).toBe('old');
    expect(chargeLimits).not.toHaveBeenCalled();
  });

  it('an Idempotency-Key reused with another file → 422 idempotency_key_reused naming the first report', async () => {
    vi.mocked(getIdempotentRecord).mockImplementation(async (_scope, key) =>
      key === claimKey('k1') ? { result: { report_id: 'old' }, fingerprint: 'upload:other' } : null,
    );
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }, { idempotencyKey: 'k1' }));
    expect([e.status, e.code, e.details.report_id]).toEqual([422, 'idempotency_key_reused', 'old']);
    expect(chargeLimits).not.toHaveBeenCalled();
  });

  it('looks up both claims of a request: its Idempotency-Key and its upload id', async () => {
    await uploadReport(user, { uploadId: 'up1' }, { idempotencyKey: 'k1' });
    expect(vi.mocked(getIdempotentRecord).mock.calls.map((c) => c[1])).toEqual([claimKey('k1'), 'u1#upload#up1']);
  });
});

describe('uploadReport: a concurrent twin consumed the upload', () => {
  it('reading fails because the twin charged and deleted the upload: the twin report is the answer', async () => {
    vi.mocked(getIdempotentRecord)
      .mockResolvedValueOnce(null) // no claim when this request started
      .mockResolvedValue({ result: { report_id: 'twin' }, fingerprint: 'upload:up1' });
    vi.mocked(countRows).mockRejectedValue(new Error('the object is gone'));
    vi.mocked(getReportAnyStatus).mockResolvedValue(unitReport({ id: 'twin', status: 'processing' }));
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('twin');
    expect(chargeLimits).not.toHaveBeenCalled();
  });

  it('the upload already gone when opened (consumed by a late attempt of this request): its claim answers', async () => {
    vi.mocked(getIdempotentRecord)
      .mockResolvedValueOnce(null) // no claim when this request started
      .mockResolvedValue({ result: { report_id: 'late' }, fingerprint: 'upload:up1' });
    vi.mocked(openInputFile).mockRejectedValue(new AppError(404, 'upload_not_found', 'gone'));
    vi.mocked(getReportAnyStatus).mockResolvedValue(unitReport({ id: 'late', status: 'processing' }));
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('late');
    expect(chargeLimits).not.toHaveBeenCalled();
  });

  it('the upload gone with no twin to answer → 404 upload_not_found, nothing charged', async () => {
    vi.mocked(countRows).mockRejectedValue(new Error('the object is gone'));
    vi.mocked(objectHead).mockResolvedValue(null);
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code]).toEqual([404, 'upload_not_found']);
    expect(chargeLimits).not.toHaveBeenCalled();
  });
});

describe('uploadReport: refusals before the charge', () => {
  it('a duplicate → 409 duplicate_report before any charge, nothing stored', async () => {
    vi.mocked(findDuplicate).mockResolvedValue({ id: 'dup', title: 'Старый', created_at: '2024-01-01T00:00:00Z' });
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code, e.details.report_id]).toEqual([409, 'duplicate_report', 'dup']);
    expect(chargeLimits).not.toHaveBeenCalled();
    expect(copyObject).not.toHaveBeenCalled();
  });

  it('a duplicate whose twin request won the claim answers the twin report instead of 409', async () => {
    vi.mocked(findDuplicate).mockResolvedValue({ id: 'twin', title: 'Т', created_at: '2024-01-01T00:00:00Z' });
    vi.mocked(getIdempotentRecord)
      .mockResolvedValueOnce(null)
      .mockResolvedValueOnce({ result: { report_id: 'twin' }, fingerprint: 'upload:up1' });
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('twin');
    expect(chargeLimits).not.toHaveBeenCalled();
  });

  it('allow_duplicate skips the duplicate lookups altogether', async () => {
    vi.mocked(findDuplicate).mockResolvedValue({ id: 'dup', title: 'Т', created_at: '2024-01-01T00:00:00Z' });
    const r = await uploadReport(user, { uploadId: 'up1' }, { allowDuplicate: true });
    expect(r.record.id).toBe('rep1');
    expect(findDuplicate).not.toHaveBeenCalled();
    expect(chargeLimits).toHaveBeenCalledOnce();
  });

  it('limits short → 402 insufficient_limits, the stored source removed, nothing charged', async () => {
    vi.mocked(countRows).mockResolvedValue(rowCount(101));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code, e.details]).toEqual([402, 'insufficient_limits', { rows: 101, limits: 100 }]);
    expect(chargeLimits).not.toHaveBeenCalled();
    expect(deleteObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it("rows refunded by the recovery sweep count for this upload's limits", async () => {
    vi.mocked(recoverAbandonedUploads).mockResolvedValue({ refunded_rows: 5 } as never);
    vi.mocked(countRows).mockResolvedValue(rowCount(105));
    await uploadReport(user, { uploadId: 'up1' });
    expect(chargeLimits).toHaveBeenCalledOnce();
  });

  it('a count that refuses the file removes the stored source and passes the error on', async () => {
    vi.mocked(countRows).mockRejectedValue(new AppError(422, 'missing_headers', 'no headers'));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect(e.code).toBe('missing_headers');
    expect(copyObject).toHaveBeenCalledWith('uploads/u1/up1/report.xlsx', 'sources/u1/rep1/report.xlsx', '"e1"');
    expect(deleteObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx');
    expect(chargeLimits).not.toHaveBeenCalled();
  });

  it('a count kept by count-rows for these bytes is charged without reading the file', async () => {
    const source = vi.fn(async () => ({ path: '/tmp/report.xlsx' }));
    vi.mocked(openInputFile).mockResolvedValue({
      ...uploadedFile(),
      source,
      counted: { ...rowCount(70), etag: '"e1"', identity: 'KEPT' },
    });
    await uploadReport(user, { uploadId: 'up1' });
    expect(countRows).not.toHaveBeenCalled();
    expect(source).not.toHaveBeenCalled();
    expect(findDuplicate).toHaveBeenCalledWith('u1', 'KEPT');
    expect(vi.mocked(chargeLimits).mock.calls[0]![0]).toMatchObject({ rows: 70 });
  });

  it('a multipart file is stored with putObject, not copied', async () => {
    const buffer = Buffer.from('bytes');
    vi.mocked(openInputFile).mockResolvedValue({
      ...uploadedFile(),
      origin: { kind: 'buffer', buffer },
    });
    await uploadReport(user, { file: { filename: 'report.xlsx', buffer } });
    expect(putObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx', buffer);
    expect(copyObject).not.toHaveBeenCalled();
  });
});

describe('uploadReport: the charge', () => {
  it('charges exactly the counted rows, with the report, its identity and both claims in one transaction', async () => {
    const r = await uploadReport(user, { uploadId: 'up1' }, { idempotencyKey: 'k1' });
    expect(r.record).toMatchObject({ id: 'rep1', status: 'processing' });
    const input = vi.mocked(chargeLimits).mock.calls[0]![0];
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
    expect(deleteObject).toHaveBeenCalledWith('uploads/u1/up1/report.xlsx');
  });

  it('a charge refused by the balance removes the stored source and answers 402', async () => {
    vi.mocked(chargeLimits).mockRejectedValue(new AppError(402, 'insufficient_limits', 'short', {}));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect(e.status).toBe(402);
    expect(deleteObject).toHaveBeenCalledWith('sources/u1/rep1/report.xlsx');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a claim taken concurrently (transaction_conflict on a claim item) answers the winner report', async () => {
    vi.mocked(chargeLimits).mockRejectedValue(conflict('transaction_conflict', 'x', { item_index: 2 }));
    vi.mocked(getIdempotentRecord)
      .mockResolvedValueOnce(null)
      .mockResolvedValueOnce({ result: { report_id: 'winner' }, fingerprint: 'upload:up1' });
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record.id).toBe('winner');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a conflict on the report record itself (item 0) is not taken for a twin', async () => {
    vi.mocked(chargeLimits).mockRejectedValue(conflict('transaction_conflict', 'x', { item_index: 0 }));
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect(e.code).toBe('transaction_conflict');
  });

  it('a rival of the same identity found after the charge: this upload is failed, refunded and deleted → 409', async () => {
    vi.mocked(findDuplicate).mockImplementation(async (_u, _i, exclude) =>
      exclude === 'rep1' ? { id: 'rival', title: 'Т', created_at: '2024-01-01T00:00:00Z' } : null,
    );
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.code, e.details.report_id]).toEqual(['duplicate_report', 'rival']);
    expect(vi.mocked(failUpload).mock.calls[0]![1].code).toBe('duplicate_report');
    expect(deleteReport).toHaveBeenCalledWith('u1', 'rep1');
    expect(deps.invoker.invoke).not.toHaveBeenCalled();
  });

  it('a failed worker invoke still answers the processing report (recovery picks it up)', async () => {
    deps.invoker.invoke.mockRejectedValue(new Error('lambda down'));
    const r = await uploadReport(user, { uploadId: 'up1' });
    expect(r.record).toMatchObject({ id: 'rep1', status: 'processing' });
    expect(chargeLimits).toHaveBeenCalledOnce();
  });

  it('a report gone while waiting → 404 report_not_found', async () => {
    vi.mocked(getReportAnyStatus).mockResolvedValue(null);
    const e = await refusal(uploadReport(user, { uploadId: 'up1' }));
    expect([e.status, e.code]).toEqual([404, 'report_not_found']);
  });
});
