/**
 * Duplicate uploads (docs/METRICS.md, One week is one report): the user's existing report with the
 * identity of a file (report-identity.ts: WB's report number from the name, else the file's hash) OR with
 * the same content fingerprint (engine/fingerprint.ts: the rows, whatever the file), found through the
 * identity records (store/identities.repo.ts; the fingerprint's is `fp:<fingerprint>`) in one read of
 * the user's own partition each.
 *
 * Where each is checked: count-rows and upload look up the name/hash identity always and the content
 * fingerprint of a file up to CONTENT_CHECK_MAX_BYTES (read before anything is charged: 409
 * `duplicate_report`, nothing charged). The worker computes the fingerprint of every file while it
 * reads it and, before building anything, fails an upload whose fingerprint an older report of the user
 * has (`duplicate_report`, refunded once by failUpload) — unless the upload allowed duplicates.
 */
import { conflict } from '../../errors';
import { parseFileMeta } from '../../engine/read';
import type { ContentFingerprint } from '../../engine/fingerprint';
import { fingerprintReport, type ReadLimits } from '../../engine/read-report';
import type { ReportRecord } from '../../store/report-record';
import type { InputFile } from './file-input';
import { contentIdentity, reportIdentity, rowIdentity, sha256Of } from './report-identity';

/** What the duplicate lookups read: the identity records and the reports they point to. */
export interface DuplicateDeps {
  identities: { findReportsByIdentity(userId: string, identity: string, limit?: number): Promise<string[]> };
  reports: { getReportAnyStatus(userId: string, reportId: string): Promise<ReportRecord | null> };
}

export interface DuplicateOf {
  id: string;
  title: string;
  created_at: string;
}

/** The identity of an opened request file: numbers from its name, else the hash of its bytes. */
export async function identityOfFile(file: Pick<InputFile, 'filename' | 'source'>): Promise<string> {
  const meta = parseFileMeta(file.filename);
  if (meta.seller_number && meta.report_number) return reportIdentity(meta, '');
  const src = await file.source();
  const sha = await sha256Of(src);
  return reportIdentity(meta, sha);
}

/**
 * The user's oldest report with this identity (a building one counts: an upload of it is under way),
 * or null. Identity records whose report is gone are skipped.
 */
export async function findDuplicate(
  deps: DuplicateDeps,
  userId: string,
  identity: string,
  excludeReportId?: string,
): Promise<DuplicateOf | null> {
  for (const id of await deps.identities.findReportsByIdentity(userId, identity, 6)) {
    if (id === excludeReportId) continue;
    const r = await deps.reports.getReportAnyStatus(userId, id);
    if (r) return { id: r.id, title: r.title, created_at: r.created_at };
  }
  return null;
}

export const duplicateReport = (dup: DuplicateOf & { reason?: string }) =>
  conflict('duplicate_report', 'You already have this report; send allow_duplicate: true to upload it again', {
    report_id: dup.id,
    title: dup.title,
    created_at: dup.created_at,
    ...(dup.reason ? { reason: dup.reason } : {}),
  });

/** Files up to this size get their content fingerprint read by count-rows and upload (about 20k rows). */
export const CONTENT_CHECK_MAX_BYTES = 2 * 1024 * 1024;

/** The content fingerprint of a small request file (null above CONTENT_CHECK_MAX_BYTES: the worker checks it). */
export async function contentOfSmallFile(
  file: Pick<InputFile, 'size' | 'source'>,
  limits?: Partial<ReadLimits>,
): Promise<ContentFingerprint | null> {
  if (file.size > CONTENT_CHECK_MAX_BYTES) return null;
  return (await fingerprintReport(await file.source(), limits)).content;
}

/**
 * The user's report with the same content as `self` that came first (created earlier; the id decides a
 * tie), or null. Failed reports do not count. Two uploads of one week read at once both write their
 * record first and then look: exactly the younger one sees the older one.
 *
 * The same content is the same fingerprint (`reason: 'same_content'`), or (`rowIds`, engine/fingerprint.ts)
 * one of WB's row ids held by another report (`'shared_rows'`): the same week whatever its file, its format
 * or an extra deduction row one copy has, or a report that overlaps it — refused alike.
 */
export async function findContentDuplicate(
  deps: DuplicateDeps,
  userId: string,
  fingerprint: string,
  self?: { id: string; created_at: string },
  rowIds?: readonly string[],
): Promise<(DuplicateOf & { reason: 'same_content' | 'shared_rows' }) | null> {
  const keys = [contentIdentity(fingerprint), ...(rowIds ?? []).map(rowIdentity)];
  for (const key of keys) {
    for (const id of await deps.identities.findReportsByIdentity(userId, key, 10)) {
      if (id === self?.id) continue;
      const r = await deps.reports.getReportAnyStatus(userId, id);
      if (!r || r.status === 'failed') continue;
      if (self && (r.created_at > self.created_at || (r.created_at === self.created_at && r.id > self.id))) continue;
      return {
        id: r.id,
        title: r.title,
        created_at: r.created_at,
        reason: key === keys[0] ? 'same_content' : 'shared_rows',
      };
    }
  }
  return null;
}
