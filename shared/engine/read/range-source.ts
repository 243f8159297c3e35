/**
 * A report file read by byte ranges — an object in storage, read where it lies — so the engine streams
 * it without a local copy first: a zip is opened by its central directory (a few small ranges at the
 * end) and an entry's bytes are inflated as they arrive, the download overlapping the reading. The
 * engine knows nothing of where the bytes live (shared/files/objects.ts makes one from an S3 object).
 */
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export interface RangeSource {
  readonly size: number;
  /** Bytes [start, end) as a stream; failures of the store itself come as SourceReadError. */
  readRange(start: number, end: number): Readable;
}

/**
 * The byte source failed (storage unreachable, the object changed while read): not the file's fault,
 * so it is never reported as a corrupt file, and a worker retries it.
 */
export class SourceReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SourceReadError';
  }
}

/** Bytes [start, end) in one buffer. */
export async function readRangeToBuffer(source: RangeSource, start: number, end: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(Math.max(0, end - start));
  let at = 0;
  if (end <= start) return out;
  for await (const chunk of source.readRange(start, end) as AsyncIterable<Buffer>) {
    if (at + chunk.length > out.length) throw new SourceReadError('the store sent more bytes than asked for');
    chunk.copy(out, at);
    at += chunk.length;
  }
  if (at !== out.length) throw new SourceReadError('the store sent fewer bytes than asked for');
  return out;
}

/** yauzl's random-access reader over a RangeSource (it asks for the central directory and local headers). */
export class RangeReader extends yauzl.RandomAccessReader {
  constructor(private readonly source: RangeSource) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return this.source.readRange(start, end);
  }
}
