import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { generateReport } from '../../../scripts/fixtures/generate';
import { ReportError } from '../errors';
import { countRows, readReport } from '../read-report';
import { SourceReadError, type RangeSource } from './range-source';

/** A RangeSource over bytes in memory that answers in small, uneven pieces, as a network would. */
function memoryRanges(bytes: Buffer, opts: { failAt?: number } = {}): RangeSource & { calls: number } {
  const src = {
    size: bytes.length,
    calls: 0,
    readRange(start: number, end: number): Readable {
      src.calls++;
      const pieces: Buffer[] = [];
      for (let at = start, n = 1; at < end; at += n, n = (n * 7 + 3) % 9000 || 1) {
        pieces.push(bytes.subarray(at, Math.min(end, at + n)));
      }
      if (opts.failAt !== undefined && end > opts.failAt) {
        return new Readable({
          read() {
            this.destroy(new SourceReadError('the store went away'));
          },
        });
      }
      return Readable.from(pieces, { objectMode: false });
    },
  };
  return src;
}

describe('a report read by byte ranges where it lies', () => {
  for (const format of ['zip', 'xlsx', 'xls'] as const) {
    it(`${format}: the same report as from memory`, async () => {
      const g = generateReport({ rows: 400, layout: '2026', format, seed: 21 });
      const fromMemory = await readReport({ buffer: g.file, filename: g.filename });
      const ranges = memoryRanges(g.file);
      const fromRanges = await readReport({ ranges, filename: g.filename });
      expect(fromRanges).toEqual(fromMemory);
      expect(fromRanges.rows).toBe(g.expected.rows);
      expect((await countRows({ ranges: memoryRanges(g.file), filename: g.filename })).rows).toBe(g.expected.rows);
      // A zip is opened by ranges (its directory, the entry), never read whole at once by a single range.
      if (format !== 'xls') expect(ranges.calls).toBeGreaterThan(1);
    });
  }

  it('a store that fails mid-way is a SourceReadError, never the file’s fault (corrupt_file)', async () => {
    const g = generateReport({ rows: 400, layout: '2026', format: 'zip', seed: 22 });
    const err = await readReport({ ranges: memoryRanges(g.file, { failAt: 1000 }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceReadError);
    expect(err).not.toBeInstanceOf(ReportError);
  });
});
