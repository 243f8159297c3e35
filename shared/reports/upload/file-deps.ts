/**
 * A request's file and its duplicate checks, bound to the real stores and S3: opening it (file-input.ts)
 * and the duplicate lookups (duplicates.ts). The report composition (deps.ts) and count-rows, which
 * needs no more of it, share them.
 */
import { objectHead, objectRanges, readObject } from '../../files/objects';
import { findReportsByIdentity } from '../../store/report-identities.repo';
import { getReportAnyStatus } from '../../store/reports.repo';
import { getUpload } from '../../store/uploads.repo';
import {
  contentOfSmallFile,
  findContentDuplicate,
  findDuplicate,
  identityOfFile,
  type DuplicateDeps,
} from './duplicates';
import { openInputFile, type InputFileDeps } from './file-input';
import type { TaskRoutePorts } from '../ports';

const lookups: DuplicateDeps = { identities: { findReportsByIdentity }, reports: { getReportAnyStatus } };
const input: InputFileDeps = { uploads: { getUpload }, files: { objectHead, objectRanges, readObject } };

export const fileDeps: Pick<TaskRoutePorts, 'openInputFile' | 'duplicates'> = {
  openInputFile: (...a) => openInputFile(input, ...a),
  duplicates: {
    findDuplicate: (...a) => findDuplicate(lookups, ...a),
    findContentDuplicate: (...a) => findContentDuplicate(lookups, ...a),
    identityOfFile,
    contentOfSmallFile,
  },
};
