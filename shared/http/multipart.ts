import busboy from 'busboy';
import { badRequest, payloadTooLarge } from '../errors';

export interface UploadedFile {
  /** The name the client sent (UTF-8; Cyrillic names survive), without any directory part. */
  filename: string;
  mimeType: string;
  buffer: Buffer;
  size: number;
}

const malformed = () => badRequest('invalid_multipart', 'Malformed or truncated multipart/form-data request');

export interface MultipartResult {
  /** The `file` field, or null when the form has none. */
  file: UploadedFile | null;
  /** Text fields (the last value wins for repeated names). */
  fields: Record<string, string>;
}

/**
 * Parses a multipart/form-data body held in memory (API Gateway hands the whole body to the Lambda).
 * Only the field named `file` is kept; other file fields are drained and ignored. A `file` bigger
 * than `maxFileBytes` → 413 `file_too_large`; a malformed body → 400 `invalid_multipart`.
 */
export function parseMultipart(body: Buffer, contentType: string, maxFileBytes: number): Promise<MultipartResult> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        // Browsers send UTF-8 file names raw; busboy's default latin1 would garble Cyrillic.
        defParamCharset: 'utf8',
        limits: { fileSize: maxFileBytes, files: 5, fields: 50, fieldSize: 64 * 1024, parts: 60 },
      });
    } catch {
      reject(malformed());
      return;
    }
    const fields: Record<string, string> = {};
    let file: UploadedFile | null = null;
    let failure: Error | null = null;
    const pending: Promise<void>[] = [];

    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || file !== null) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      pending.push(
        new Promise<void>((done) => {
          stream.on('data', (c: Buffer) => {
            chunks.push(c);
            size += c.length;
          });
          stream.on('limit', () => {
            failure ??= payloadTooLarge('The file is larger than allowed', { max_bytes: maxFileBytes });
          });
          stream.on('close', () => done());
          // A body cut short ends the file stream with busboy's "Unexpected end of form": the client's fault.
          stream.on('error', () => {
            failure ??= malformed();
            done();
          });
        }),
      );
      const base = (info.filename ?? '').split(/[/\\]/).pop() ?? '';
      file = { filename: base, mimeType: info.mimeType, buffer: Buffer.alloc(0), size: 0 };
      const target = file;
      stream.on('end', () => {
        target.buffer = Buffer.concat(chunks);
        target.size = size;
      });
    });
    bb.on('error', () => {
      failure ??= malformed();
      reject(failure);
    });
    bb.on('close', () => {
      void Promise.all(pending).then(() => {
        if (failure) reject(failure);
        else resolve({ file, fields });
      });
    });
    bb.end(body);
  });
}
