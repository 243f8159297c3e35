/**
 * A big upload is read once, not twice. The page asks count-rows what an upload will cost before it
 * uploads; for a file too big to be held whole (file-input.ts WHOLE_READ_MAX_BYTES) and not too big to be
 * read within the request (HANDOVER_MAX_BYTES) that preview reads it completely, and keeps what it read — the engine's aggregates (ParsedReport: a few kilobytes
 * per article, not the rows) — beside the upload (`<upload key>.read.json.gz`, under the bucket's
 * `uploads/` prefix and its two-day expiry). The upload that follows charges those rows, names the kept
 * read in the report record (`read_key`), and the worker builds from it instead of reading the file again.
 *
 * The kept read belongs to exactly the previewed bytes: count-rows keeps it only for an upload with an
 * ETag, and the upload route takes it only while the object's ETag is still that one (file-input.ts
 * `counted`). A kept read the worker cannot use (gone, unreadable, of another format version, or of
 * another row count than the charge) is ignored and the stored source is read as before; a rebuild
 * always reads the stored source.
 */
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import type { ParsedReport } from '../../engine/types';

/**
 * The biggest upload count-rows reads whole for its worker. A full read decodes every cell, about 2.5×
 * the count-only pass: ~8 s for a 300k-row week of ~120 MB on one core (docs/PERFORMANCE.md), ~10 s at
 * this size, half the request's budget (REQUEST_DEADLINE_MS, 20 s). A bigger upload is only counted
 * there, and its worker reads the file.
 */
export const HANDOVER_MAX_BYTES = 160 * 1024 * 1024;

/** Changed whenever ParsedReport changes meaning: a read kept by an earlier version is read again. */
const FORMAT = 'parsed-report-1';

/** Where a kept read lies: beside the upload, under its prefix (and its expiry). */
export const handoverKey = (uploadKey: string) => `${uploadKey}.read.json.gz`;

/** The bytes kept for `parsed` (gzip level 1: the preview is a request, its CPU time counts). */
export function encodeRead(parsed: ParsedReport): Buffer {
  return gzipSync(JSON.stringify({ format: FORMAT, parsed }), { level: constants.Z_BEST_SPEED });
}

/** The read kept in `body`, or null when it is not one this version wrote (or not whole). */
export function decodeRead(body: Buffer): ParsedReport | null {
  try {
    const kept = JSON.parse(gunzipSync(body).toString('utf8')) as { format?: unknown; parsed?: ParsedReport };
    if (kept.format !== FORMAT || !kept.parsed || !Array.isArray(kept.parsed.articles)) return null;
    return kept.parsed;
  } catch {
    return null;
  }
}

/** The kept reads of previews (S3 in production: deps.ts binds the bucket's objects). */
export interface ReadHandover {
  /** Keeps the preview's read of the upload at `uploadKey`; answers the key it lies at. */
  keep(uploadKey: string, parsed: ParsedReport): Promise<string>;
  /** The read kept at `key` when it is usable (else null), and removes it: it is used once. */
  take(key: string): Promise<ParsedReport | null>;
}

/** What the handover needs of the bucket (shared/files/objects.ts). */
export interface HandoverObjects {
  putObject(key: string, body: Buffer): Promise<void>;
  readObject(key: string): Promise<Buffer | null>;
  deleteObject(key: string): Promise<void>;
}

/** The handover over the bucket's objects. */
export function objectReadHandover(objects: HandoverObjects): ReadHandover {
  return {
    async keep(uploadKey, parsed) {
      const key = handoverKey(uploadKey);
      await objects.putObject(key, encodeRead(parsed));
      return key;
    },
    async take(key) {
      const body = await objects.readObject(key);
      if (!body) return null;
      // Used once: a later attempt (a crash after this) reads the stored source.
      await objects.deleteObject(key).catch(() => undefined);
      return decodeRead(body);
    },
  };
}
