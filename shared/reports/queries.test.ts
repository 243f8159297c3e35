/**
 * Unit tier: deleting and renaming a report with its stores and S3 as plain fakes (queries.ts RemoveDeps,
 * ReadDeps). test/integration/reports-read.test.ts runs the same routes against DynamoDB Local/s3rver.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { refusal, setUnitEnv, unitReport } from '../../test/support/unit-fixtures';
import { patchReport, removeReport, type ReadDeps, type RemoveDeps } from './queries';

vi.mock('../log');

setUnitEnv();

const remove = {
  reports: {
    getReportAnyStatus: vi.fn<RemoveDeps['reports']['getReportAnyStatus']>(),
    deleteReport: vi.fn<RemoveDeps['reports']['deleteReport']>(),
  },
  summaries: { deleteSummary: vi.fn<RemoveDeps['summaries']['deleteSummary']>() },
  identities: { deleteIdentity: vi.fn<RemoveDeps['identities']['deleteIdentity']>() },
  files: { deleteObject: vi.fn<RemoveDeps['files']['deleteObject']>() },
  olderCopyOf: vi.fn<RemoveDeps['olderCopyOf']>(),
  refund: vi.fn<RemoveDeps['refund']>(),
} satisfies RemoveDeps;

const read = {
  reports: {
    getReport: vi.fn<ReadDeps['reports']['getReport']>(),
    updateReportMeta: vi.fn<ReadDeps['reports']['updateReportMeta']>(),
  },
  sellers: { getSeller: vi.fn<ReadDeps['sellers']['getSeller']>() },
};

beforeEach(() => {
  vi.resetAllMocks();
  const record = unitReport({ identity: 'num:1', content_fingerprint: 'abc', source_path: 'sources/u1/r1/a.xlsx' });
  remove.reports.getReportAnyStatus.mockResolvedValue(record);
  remove.reports.deleteReport.mockResolvedValue(record);
  remove.identities.deleteIdentity.mockResolvedValue(undefined);
  remove.files.deleteObject.mockResolvedValue(undefined);
  remove.olderCopyOf.mockResolvedValue(null);
  remove.refund.mockResolvedValue(null);
});

describe('removeReport', () => {
  it('deletes the summary, the record, both identities and the source file', async () => {
    await removeReport(remove, 'u1', 'r1');
    expect(remove.summaries.deleteSummary).toHaveBeenCalledWith('u1', 'r1');
    expect(remove.reports.deleteReport).toHaveBeenCalledWith('u1', 'r1');
    expect(remove.identities.deleteIdentity.mock.calls).toEqual([
      ['u1', 'num:1', 'r1'],
      ['u1', 'fp:abc', 'r1'],
    ]);
    expect(remove.files.deleteObject).toHaveBeenCalledWith('sources/u1/r1/a.xlsx');
  });

  it('a report nobody else has is not refunded', async () => {
    await removeReport(remove, 'u1', 'r1');
    expect(remove.olderCopyOf).toHaveBeenCalledWith('u1', 'abc', expect.objectContaining({ id: 'r1' }));
    expect(remove.refund).not.toHaveBeenCalled();
  });

  it('a copy of a week an older report holds is refunded its rows when deleted', async () => {
    const copy = unitReport({ id: 'r2', content_fingerprint: 'abc', rows: 51 });
    remove.reports.getReportAnyStatus.mockResolvedValue(copy);
    remove.reports.deleteReport.mockResolvedValue(copy);
    remove.olderCopyOf.mockResolvedValue({ id: 'r1' });
    await removeReport(remove, 'u1', 'r2');
    expect(remove.refund).toHaveBeenCalledWith({ userId: 'u1', rows: 51, reportId: 'r2' });
  });

  it('a report the worker is on → 409 report_processing, nothing deleted', async () => {
    remove.reports.getReportAnyStatus.mockResolvedValue(unitReport({ status: 'processing', task: 'upload' }));
    expect((await refusal(removeReport(remove, 'u1', 'r1'))).code).toBe('report_processing');
    expect(remove.reports.deleteReport).not.toHaveBeenCalled();
    expect(remove.files.deleteObject).not.toHaveBeenCalled();
  });

  it('a source file that cannot be deleted once the record is gone is only logged', async () => {
    remove.files.deleteObject.mockRejectedValue(new Error('S3 down'));
    await expect(removeReport(remove, 'u1', 'r1')).resolves.toBeUndefined();
  });

  it("another user's report, or none → 404 report_not_found", async () => {
    remove.reports.getReportAnyStatus.mockResolvedValue(null);
    expect((await refusal(removeReport(remove, 'u1', 'r1'))).code).toBe('report_not_found');
  });
});

describe('patchReport', () => {
  it('a seller that is not the caller’s → 404 seller_not_found, the report unchanged', async () => {
    read.reports.getReport.mockResolvedValue(unitReport());
    read.sellers.getSeller.mockResolvedValue(null);
    expect((await refusal(patchReport(read, 'u1', 'r1', { seller_id: 's-other' }))).code).toBe('seller_not_found');
    expect(read.reports.updateReportMeta).not.toHaveBeenCalled();
  });
});
