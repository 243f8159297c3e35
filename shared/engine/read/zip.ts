import { createReadStream } from 'node:fs';
import { Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { ReportError } from '../errors';
import type { ReadLimits } from './limits';
import { RangeReader, SourceReadError, type RangeSource } from './range-source';

/** Inflated bytes used so far by one scan, shared by every entry and nested archive it opens. */
export interface InflateBudget {
  used: number;
  readonly max: number;
}

export interface ZipStreamOptions {
  /** Re-slice inflated data into pieces of at most this many bytes (tests of chunk-boundary handling). */
  chunkSize?: number;
}

/**
 * Inflate output piece size. zlib inflates on the libuv threadpool, but every piece it finishes needs a
 * callback on the main thread to start the next, so large pieces keep it busy while the scanner works.
 */
const INFLATE_CHUNK = 1024 * 1024;
/**
 * Compressed bytes per read. yauzl's own entry stream reads 16 KB at a time through three stream
 * layers; each read is a main-thread turn that the inflater waits for while the scanner runs.
 */
const READ_PIECE = 1024 * 1024;

/** yauzl ≥ 3 API missing from @types/yauzl 2.10. */
interface LocalHeaderReader {
  readLocalFileHeader(
    entry: yauzl.Entry,
    options: { minimal: true },
    callback: (err: Error | null, header?: { fileDataStart: number }) => void,
  ): void;
}

type ZipSource = { buffer: Buffer } | { path: string } | { ranges: RangeSource };

/**
 * Turns anything yauzl, zlib, SheetJS or the file system throws into corrupt_file (ReportErrors pass
 * through). The library's own text ("Major Version: Expected 3 or 4 saw 22937") says nothing to a
 * seller and names our internals, so it never reaches the answer.
 */
export function asCorrupt(err: unknown, what = 'The zip archive'): ReportError {
  if (err instanceof ReportError) return err;
  if (err instanceof Error && /invalid relative path|absolute path/.test(err.message)) {
    return new ReportError('corrupt_file', `${what} holds a file whose name points outside the archive.`);
  }
  return new ReportError('corrupt_file', `${what} is damaged or incomplete and cannot be read.`);
}

/**
 * A zip opened by its central directory (random access), so entries can be read in any order:
 * an .xlsx keeps sharedStrings.xml after the sheet, and we need it first.
 */
export class ZipArchive {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly source: ZipSource,
    readonly entries: readonly yauzl.Entry[],
    private readonly budget: InflateBudget,
    private readonly ownsFile: boolean,
  ) {}

  static async open(source: ZipSource, limits: ReadLimits, budget: InflateBudget): Promise<ZipArchive> {
    const options: yauzl.Options = {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      validateEntrySizes: true,
    };
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      const done = (err: Error | null, z?: yauzl.ZipFile) =>
        err || !z ? reject(err instanceof SourceReadError ? err : asCorrupt(err)) : resolve(z);
      if ('buffer' in source) yauzl.fromBuffer(source.buffer, options, done);
      else if ('ranges' in source)
        yauzl.fromRandomAccessReader(new RangeReader(source.ranges), source.ranges.size, options, done);
      else yauzl.open(source.path, options, done);
    });
    const ownsFile = !('buffer' in source);
    try {
      if (zip.entryCount > limits.maxEntries) {
        throw new ReportError(
          'too_many_entries',
          `The archive holds ${zip.entryCount} files; at most ${limits.maxEntries} are accepted.`,
          { entries: zip.entryCount, max: limits.maxEntries },
        );
      }
      const entries = await listEntries(zip);
      return new ZipArchive(zip, source, entries, budget, ownsFile);
    } catch (err) {
      if (ownsFile) zip.close();
      throw err;
    }
  }

  get names(): string[] {
    return this.entries.map((e) => e.fileName);
  }

  /** An entry by its path: exact first, then ignoring case and a leading "/". */
  find(name: string): yauzl.Entry | undefined {
    const exact = this.entries.find((e) => e.fileName === name);
    if (exact) return exact;
    const want = name.replace(/^\/+/, '').toLowerCase();
    return this.entries.find((e) => e.fileName.replace(/^\/+/, '').toLowerCase() === want);
  }

  /**
   * The entry's inflated bytes, piece by piece, counted against the inflate budget (zip bombs stop at
   * the cap, not at the end). Stopping the iteration early destroys the streams.
   */
  async *stream(entry: yauzl.Entry, options: ZipStreamOptions = {}): AsyncGenerator<Buffer> {
    this.checkDeclaredSize(entry);
    const { raw, data } = await this.openData(entry);
    let seen = 0;
    let finished = false;
    try {
      for await (const chunk of data as AsyncIterable<Buffer>) {
        seen += chunk.length;
        this.budget.used += chunk.length;
        if (this.budget.used > this.budget.max) throw zipBomb(this.budget.max);
        if (seen > entry.uncompressedSize)
          throw asCorrupt(new Error(`${entry.fileName} is longer than its header says`));
        const size = options.chunkSize;
        if (size && size > 0 && chunk.length > size) {
          for (let i = 0; i < chunk.length; i += size) yield chunk.subarray(i, i + size);
        } else {
          yield chunk;
        }
      }
      finished = true;
    } catch (err) {
      // The store failing is no fault of the file: passed on as it is (a worker retries it).
      if (err instanceof SourceReadError) throw err;
      throw asCorrupt(err);
    } finally {
      if (!finished) {
        // A late error from a stream we abandon must not become an uncaught exception.
        raw.on('error', ignore);
        data.on('error', ignore);
        if (data !== raw) raw.unpipe(data as Transform);
        data.destroy();
        raw.destroy();
      }
    }
    if (seen !== entry.uncompressedSize) {
      throw asCorrupt(new Error(`${entry.fileName} is shorter than its header says`));
    }
  }

  /**
   * The whole entry in memory; `max` bytes at most (else `tooBig`). The buffer is allocated once at the
   * declared size, which stream() holds the entry to: collecting pieces and concatenating them would
   * hold the entry twice at the end (a 1M-row week's report inside its zip is ~370 MB).
   */
  async read(entry: yauzl.Entry, max: number, tooBig: () => ReportError): Promise<Buffer> {
    if (entry.uncompressedSize > max) throw tooBig();
    const out = Buffer.allocUnsafe(entry.uncompressedSize);
    let total = 0;
    for await (const chunk of this.stream(entry)) {
      // stream() refuses an entry longer than declared before yielding past the end.
      chunk.copy(out, total);
      total += chunk.length;
    }
    return out;
  }

  close(): void {
    if (this.ownsFile && this.zip.isOpen) this.zip.close();
  }

  private checkDeclaredSize(entry: yauzl.Entry): void {
    // Declared sizes are enforced while inflating (yauzl's rule, and ours above), so they can be trusted
    // to refuse early.
    if (this.budget.used + entry.uncompressedSize > this.budget.max) throw zipBomb(this.budget.max);
  }

  private async openData(entry: yauzl.Entry): Promise<{ raw: Readable; data: Readable | Transform }> {
    if (entry.isEncrypted()) {
      throw new ReportError(
        'corrupt_file',
        `${entry.fileName} is password-protected; upload the report without a password.`,
      );
    }
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
      throw asCorrupt(new Error(`unsupported compression method ${entry.compressionMethod} in ${entry.fileName}`));
    }
    const raw = await this.openRaw(entry);
    if (entry.compressionMethod === 0) return { raw, data: raw };
    // Our own inflater (Node's zlib) instead of yauzl's: bigger output pieces, and the byte count is ours.
    const inflate = zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK });
    raw.on('error', (err) => inflate.destroy(err));
    raw.pipe(inflate);
    return { raw, data: inflate };
  }

  /**
   * The entry's stored bytes, read in large pieces straight from the file or buffer. Where they lie
   * comes from yauzl's reading of the local header, which also checks they lie within the file.
   */
  private async openRaw(entry: yauzl.Entry): Promise<Readable> {
    const start = await new Promise<number>((resolve, reject) => {
      try {
        (this.zip as unknown as LocalHeaderReader).readLocalFileHeader(entry, { minimal: true }, (err, header) =>
          err || !header
            ? reject(err instanceof SourceReadError ? err : asCorrupt(err))
            : resolve(header.fileDataStart),
        );
      } catch (err) {
        reject(asCorrupt(err));
      }
    });
    const size = entry.compressedSize;
    if ('buffer' in this.source) {
      const { buffer } = this.source;
      return Readable.from(pieces(buffer, start, start + size), { objectMode: false, highWaterMark: READ_PIECE });
    }
    if (size === 0) return Readable.from([], { objectMode: false });
    if ('ranges' in this.source) return this.source.ranges.readRange(start, start + size);
    return createReadStream(this.source.path, { start, end: start + size - 1, highWaterMark: READ_PIECE });
  }
}

function* pieces(buffer: Buffer, start: number, end: number): Generator<Buffer> {
  for (let at = start; at < end; at += READ_PIECE) yield buffer.subarray(at, Math.min(end, at + READ_PIECE));
}

function ignore(): void {}

function zipBomb(max: number): ReportError {
  return new ReportError(
    'zip_bomb',
    `The archive unpacks to more than ${Math.round(max / 1024 / 1024)} MB; such a file is refused.`,
    { max_inflated_bytes: max },
  );
}

function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => {
      // Later errors reach callbacks; this keeps a stray one from crashing the process.
      zip.on('error', () => undefined);
      resolve(entries);
    });
    zip.once('error', (err: unknown) => reject(err instanceof SourceReadError ? err : asCorrupt(err)));
    zip.readEntry();
  });
}

/** Entries that are not real content: macOS resource forks, directories. */
export function isJunkEntry(name: string): boolean {
  const n = name.replace(/\\/g, '/');
  return n.endsWith('/') || n.startsWith('__MACOSX/') || n.includes('/__MACOSX/') || /(^|\/)\._/.test(n);
}
