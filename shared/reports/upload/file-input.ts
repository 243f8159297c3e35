/**
 * The file a report route works on (docs/API.md: JSON `{upload_id}` of the caller's own upload OR a
 * multipart `file`), made readable by the report engine. An upload id is looked up under the caller's
 * id only, so another user's id is simply not found (404).
 */
import { badRequest, notFound, payloadTooLarge, unsupportedMediaType } from '../../errors';
import type { ReportSource } from '../../engine';
import type { UploadCount, UploadRecord } from '../../store/uploads.repo';

/** A stored object's size and ETag (S3 HEAD). */
export interface ObjectHead {
  size: number;
  etag: string | null;
}

/** A stored file read by byte ranges (the reader's input), pinned to the ETag it was opened at. */
export interface RangedFiles {
  objectRanges(key: string, known?: ObjectHead): Promise<(RangeSource & { etag: string | null }) | null>;
}

/** What opening a request's file reads: the upload record and its object in S3. */
export interface InputFileDeps {
  /** MAX_UPLOAD_BYTES (ports.ts ReportConfig). */
  maxUploadBytes(): number;
  uploads: { getUpload(userId: string, uploadId: string): Promise<UploadRecord | null> };
  files: RangedFiles & {
    objectHead(key: string): Promise<ObjectHead | null>;
    readObject(key: string, ifMatch?: string | null): Promise<Buffer | null>;
  };
}
import { SourceReadError, type RangeSource } from '../../engine/read/range-source';

export const ACCEPTED_EXTENSIONS = ['zip', 'xlsx', 'xls'] as const;

export function extensionOf(filename: string): string {
  const m = /\.([^.]+)$/.exec(filename);
  return m ? m[1]!.toLowerCase() : '';
}

/** A file name safe to put into an S3 key: no directories, no control characters, bounded length. */
export function cleanFilename(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? '';
  const base = [...last]
    .filter((ch) => ch.charCodeAt(0) >= 0x20 && ch.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  if (base.length <= 200) return base;
  const ext = extensionOf(base);
  return `${base.slice(0, 190)}${ext ? `.${ext}` : ''}`;
}

/** 415 unless the name ends in .zip/.xlsx/.xls (the content is checked by the reader anyway). */
export function assertAcceptedName(filename: string): void {
  if (!(ACCEPTED_EXTENSIONS as readonly string[]).includes(extensionOf(filename))) {
    throw unsupportedMediaType(
      'Only .zip, .xlsx and .xls reports are accepted',
      { filename, accepted: ACCEPTED_EXTENSIONS },
      'unsupported_format',
    );
  }
}

export function assertAcceptedSize(size: number, max: number): void {
  if (size > max)
    throw payloadTooLarge(`The file is larger than ${Math.floor(max / 1024 / 1024)} MB`, { size, max_bytes: max });
}

/**
 * Uploads up to this size are read whole into memory once per request (openInputFile); bigger ones by
 * byte ranges where they lie. The same size as the content check of count-rows and upload
 * (duplicates.ts CONTENT_CHECK_MAX_BYTES), which reads such a file a third time.
 */
export const WHOLE_READ_MAX_BYTES = 2 * 1024 * 1024;

export type FileRef = { uploadId: string } | { file: { filename: string; buffer: Buffer } };

export interface InputFile {
  filename: string;
  size: number;
  /**
   * The bytes as the report engine reads them: the multipart buffer, or the upload read by byte ranges
   * where it lies (a route that needs no byte of it reads nothing).
   */
  source: () => Promise<ReportSource>;
  /** Where the bytes are: the upload's S3 key (and ETag), or the in-memory buffer of a multipart request. */
  origin: { kind: 'upload'; key: string; uploadId: string; etag: string | null } | { kind: 'buffer'; buffer: Buffer };
  /** count-rows' answer for exactly these bytes (same ETag), when it was asked before. */
  counted: UploadCount | null;
  /** count-rows may only count these bytes, not read them whole (uploads.repo.ts `count_only`). */
  countOnly?: boolean;
}

/**
 * Opens the file of a request (reads none of its bytes yet). Unknown or foreign upload id, or an upload
 * whose object was never PUT → 404 `upload_not_found`; neither an upload id nor a file → 400.
 */
export async function openInputFile(deps: InputFileDeps, userId: string, ref: FileRef | null): Promise<InputFile> {
  if (!ref) throw badRequest('validation_error', 'Send JSON {"upload_id"} or a multipart/form-data "file"');
  if ('file' in ref) {
    const filename = cleanFilename(ref.file.filename);
    assertAcceptedName(filename);
    assertAcceptedSize(ref.file.buffer.length, deps.maxUploadBytes());
    const buffer = ref.file.buffer;
    return {
      filename,
      size: buffer.length,
      source: () => Promise.resolve({ buffer, filename }),
      origin: { kind: 'buffer', buffer },
      counted: null,
    };
  }
  const upload = await deps.uploads.getUpload(userId, ref.uploadId);
  if (!upload) throw notFound('Upload not found', 'upload_not_found');
  const head = await deps.files.objectHead(upload.key);
  if (!head) throw notFound('The file of this upload was not received', 'upload_not_found');
  assertAcceptedSize(head.size, deps.maxUploadBytes());
  const counted = upload.counted && head.etag !== null && upload.counted.etag === head.etag ? upload.counted : null;
  const gone = () => notFound('The file of this upload was not received', 'upload_not_found');
  let whole: Promise<Buffer> | undefined;
  return {
    filename: upload.filename,
    size: head.size,
    source: async () => {
      if (head.size <= WHOLE_READ_MAX_BYTES) {
        // A small file is read once, whole, as it was when opened (its ETag), and every reader of the
        // request (count, identity, content) works on those bytes: one GET instead of a stream each.
        whole ??= deps.files.readObject(upload.key, head.etag).then(
          (b) => b ?? Promise.reject(gone()),
          (e: unknown) => Promise.reject(new SourceReadError('reading the uploaded file failed', { cause: e })),
        );
        return { buffer: await whole, filename: upload.filename };
      }
      // A big one is read where it lies, by ranges of the object as it was when opened: no local copy.
      const ranges = await deps.files.objectRanges(upload.key, head);
      if (!ranges) throw gone();
      return { ranges, filename: upload.filename };
    },
    origin: { kind: 'upload', key: upload.key, uploadId: upload.upload_id, etag: head.etag },
    counted,
    ...(upload.count_only ? { countOnly: true } : {}),
  };
}

/** The request's file: the multipart `file` when there is one, else the JSON upload id, else null. */
export function fileRefOf(
  file: { filename: string; buffer: Buffer } | null,
  uploadId: string | undefined,
): FileRef | null {
  if (file) return { file };
  return uploadId !== undefined ? { uploadId } : null;
}
