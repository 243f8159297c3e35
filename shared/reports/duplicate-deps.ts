/**
 * The duplicate lookups (duplicates.ts) bound to the real stores: the report composition (deps.ts) and
 * count-rows, which needs no more of it, share them.
 */
import { findReportsByIdentity } from '../store/identities.repo';
import { getReportAnyStatus } from '../store/reports.repo';
import { findContentDuplicate, findDuplicate, type DuplicateDeps } from './duplicates';
import type { ReportDeps } from './ports';

const stores: DuplicateDeps = { identities: { findReportsByIdentity }, reports: { getReportAnyStatus } };

export const duplicateLookups: Pick<ReportDeps['duplicates'], 'findDuplicate' | 'findContentDuplicate'> = {
  findDuplicate: (...a) => findDuplicate(stores, ...a),
  findContentDuplicate: (...a) => findContentDuplicate(stores, ...a),
};
