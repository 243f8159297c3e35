/**
 * The real dependencies of DELETE /api/reports/{id} (queries.ts removeReport): the report and identity
 * stores, the report's analytics summary and S3 for its source (only this function loads the S3 client
 * of the reading routes).
 */
import { deleteObject } from '../files/objects';
import { deleteIdentity } from '../store/report-identities.repo';
import { deleteReport, getReportAnyStatus } from '../store/reports.repo';
import { findReportsByIdentity } from '../store/report-identities.repo';
import { refundLimits } from '../store/limits.repo';
import { findContentDuplicate } from './upload/duplicates';
import type { RemoveDeps } from './queries';
import { summaryDeps } from './read-deps';

export const removeDeps: RemoveDeps = {
  reports: { getReportAnyStatus, deleteReport },
  summaries: summaryDeps.summaries,
  identities: { deleteIdentity },
  files: { deleteObject },
  olderCopyOf: (userId, fingerprint, self) =>
    findContentDuplicate(
      { identities: { findReportsByIdentity }, reports: { getReportAnyStatus } },
      userId,
      fingerprint,
      self,
    ),
  refund: (input) => refundLimits(input),
};
