/** GET /api/reports/{id}/source (shared/reports/exports/export-report.ts says how the exports are split). */
import { requireReports } from '../combine/combine';
import {
  SOURCE_URL_TTL_SECONDS,
  XLS_TYPE,
  XLSX_TYPE,
  sourceMissing,
  type ExportDeps,
  type FileOut,
} from '../exports/export-report';

export interface SourceDeps {
  reports: ExportDeps['reports'];
  /** The bucket (shared/files/objects.ts in production). */
  files: {
    objectSize(key: string): Promise<number | null>;
    presignGet(key: string, expiresIn: number, download: { filename: string; contentType: string }): Promise<string>;
    readObject(key: string, ifMatch?: string | null): Promise<Buffer | null>;
  };
  /** Up to this size the file is answered inline (MAX_INLINE_SOURCE_BYTES), above it by a presigned GET. */
  maxInlineBytes(): number;
}

const SOURCE_TYPES: Record<string, string> = { zip: 'application/zip', xlsx: XLSX_TYPE, xls: XLS_TYPE };

export function sourceContentType(filename: string): string {
  const ext = /\.([^.]+)$/.exec(filename)?.[1]?.toLowerCase() ?? '';
  return SOURCE_TYPES[ext] ?? 'application/octet-stream';
}

export type SourceOut = ({ kind: 'inline' } & FileOut) | { kind: 'redirect'; url: string };

/** GET /api/reports/{id}/source: no stored file (combined report, or the object is gone) → 404 `source_missing`. */
export async function reportSource(deps: SourceDeps, userId: string, reportId: string): Promise<SourceOut> {
  const [record] = await requireReports(deps.reports, userId, [reportId]);
  if (!record!.source_path) throw sourceMissing();
  const key = record!.source_path;
  const filename = record!.source_name ?? key.split('/').pop() ?? 'source';
  const contentType = sourceContentType(filename);
  let size = record!.source_size;
  if (size === null || size === undefined) {
    size = await deps.files.objectSize(key);
    if (size === null) throw sourceMissing();
  }
  if (size > deps.maxInlineBytes()) {
    const url = await deps.files.presignGet(key, SOURCE_URL_TTL_SECONDS, { filename, contentType });
    return { kind: 'redirect', url };
  }
  const data = await deps.files.readObject(key);
  if (!data) throw sourceMissing();
  return { kind: 'inline', filename, contentType, data };
}
