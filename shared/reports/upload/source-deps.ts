/** The real dependencies of GET /api/reports/{id}/source (source-file.ts reportSource): the report store and S3. */
import { getConfig } from '../../config';
import * as files from '../../files/objects';
import * as reports from '../../store/reports.repo';
import type { SourceDeps } from './source-file';

export const sourceDeps: SourceDeps = { reports, files, maxInlineBytes: () => getConfig().MAX_INLINE_SOURCE_BYTES };
