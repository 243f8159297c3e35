/**
 * Duplicate uploads (issue 9): the user's existing report with the identity of a file
 * (report-identity.ts), found through the identity records (store/identities.repo.ts) in one read of
 * the user's own partition. count-rows shows it (`duplicate_of`); upload refuses a duplicate with
 * 409 `duplicate_report` before anything is charged unless the request allows it.
 */
import { conflict } from '../errors';
import { parseFileMeta } from '../engine/read';
import { findReportsByIdentity } from '../store/identities.repo';
import { getReportAnyStatus } from '../store/reports.repo';
import type { InputFile } from './file-input';
import { reportIdentity, sha256Of } from './report-identity';

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
  userId: string,
  identity: string,
  excludeReportId?: string,
): Promise<DuplicateOf | null> {
  for (const id of await findReportsByIdentity(userId, identity, 6)) {
    if (id === excludeReportId) continue;
    const r = await getReportAnyStatus(userId, id);
    if (r) return { id: r.id, title: r.title, created_at: r.created_at };
  }
  return null;
}

export const duplicateReport = (dup: DuplicateOf) =>
  conflict('duplicate_report', 'You already have this report; send allow_duplicate: true to upload it again', {
    report_id: dup.id,
    title: dup.title,
    created_at: dup.created_at,
  });
