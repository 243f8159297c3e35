/**
 * The real dependencies of POST /api/reports/count-rows (upload.ts countReportRows): the file, the
 * engine's counter and reader, the upload record, and the bucket where a big upload's read is kept for
 * its worker (read-handover.ts).
 */
import { countRows, fingerprintReport, readReport } from '../../engine';
import { deleteObject, putObject, readObject } from '../../files/objects';
import { markCountOnly, saveUploadCount } from '../../store/uploads.repo';
import { fileDeps } from './file-deps';
import { objectReadHandover } from './read-handover';
import type { CountDeps } from './upload';

export const countDeps: CountDeps = {
  ...fileDeps,
  engine: { countRows, fingerprintReport, readReport },
  uploads: { saveUploadCount, markCountOnly },
  handover: objectReadHandover({ putObject, readObject, deleteObject }),
};
