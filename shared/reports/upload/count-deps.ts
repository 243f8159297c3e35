/** The real dependencies of POST /api/reports/count-rows (upload.ts countReportRows): the file, the engine's counter, the upload record. */
import { countRows, fingerprintReport } from '../../engine';
import { saveUploadCount } from '../../store/uploads.repo';
import { fileDeps } from './file-deps';
import type { CountDeps } from './upload';

export const countDeps: CountDeps = {
  ...fileDeps,
  engine: { countRows, fingerprintReport },
  uploads: { saveUploadCount },
};
