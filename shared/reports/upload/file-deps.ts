/**
 * A request's file and its duplicate checks, bound to the real stores and S3: opening it (file-input.ts)
 * and the duplicate lookups (duplicates.ts). The report composition (deps.ts) and count-rows, which
 * needs no more of it, share them.
 */
import { findReportsByIdentity } from '../../store/report-identities.repo';
import { getReportAnyStatus } from '../../store/reports.repo';
import {
  contentOfSmallFile,
  findContentDuplicate,
  findDuplicate,
  identityOfFile,
  type DuplicateDeps,
} from './duplicates';
import { openInputFile, type InputFileDeps } from './file-input';
import { reportConfig } from '../report-config';
import type { UploadDeps, UploadUrlDeps } from './upload';
import type { TaskRoutePorts } from '../ports';
import { createUpload, getUpload } from '../../store/uploads.repo';
import { objectHead, objectRanges, presignPut, readObject } from '../../files/objects';

const lookups: DuplicateDeps = { identities: { findReportsByIdentity }, reports: { getReportAnyStatus } };
const input: InputFileDeps = {
  uploads: { getUpload },
  files: { objectHead, objectRanges, readObject },
  maxUploadBytes: () => reportConfig().maxUploadBytes,
};

export const fileDeps: Pick<TaskRoutePorts, 'openInputFile' | 'duplicates'> & Pick<UploadDeps, 'config'> = {
  config: reportConfig,
  openInputFile: (...a) => openInputFile(input, ...a),
  duplicates: {
    findDuplicate: (...a) => findDuplicate(lookups, ...a),
    findContentDuplicate: (...a) => findContentDuplicate(lookups, ...a),
    identityOfFile,
    contentOfSmallFile,
  },
};

/** POST /api/reports/upload-url: the upload store and S3's presigned PUT. */
export const uploadUrlDeps: UploadUrlDeps = { uploads: { createUpload }, files: { presignPut }, config: reportConfig };
