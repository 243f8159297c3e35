import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportError } from '../errors';
import { DEFAULT_READ_LIMITS } from './limits';
import { ZipArchive } from './zip';
import { writeZip } from '../../../scripts/fixtures/zip-writer';

/** 3.5 MB of varied text: more than one compressed read piece stored, several inflate pieces deflated. */
const BIG = Buffer.from(Array.from({ length: 120_000 }, (_, i) => `<row r="${i}">Строка ${i * 7919}</row>`).join(''));

const ZIP = writeZip(
  [
    { name: 'a.xml', data: BIG },
    { name: 'b.xml', data: BIG, method: 'store' },
    { name: 'empty.xml', data: '' },
    { name: 'empty-stored.xml', data: '', method: 'store' },
    { name: 'small.txt', data: 'ok' },
  ],
  { dataDescriptors: true },
);

async function open(source: 'buffer' | 'path'): Promise<ZipArchive> {
  const budget = { used: 0, max: 1 << 30 };
  if (source === 'buffer') return ZipArchive.open({ buffer: ZIP }, DEFAULT_READ_LIMITS, budget);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'zip-test-')), 'x.zip');
  writeFileSync(file, ZIP);
  return ZipArchive.open({ path: file }, DEFAULT_READ_LIMITS, budget);
}

async function all(zip: ZipArchive, name: string): Promise<Buffer> {
  const entry = zip.find(name);
  if (!entry) throw new Error(`no ${name}`);
  const parts: Buffer[] = [];
  for await (const chunk of zip.stream(entry)) parts.push(chunk);
  return Buffer.concat(parts);
}

describe('ZipArchive.stream', () => {
  for (const source of ['buffer', 'path'] as const) {
    it(`gives every entry's bytes exactly, deflated or stored, empty or large (${source})`, async () => {
      const zip = await open(source);
      try {
        // Read out of directory order, as the xlsx reader does (shared strings before the sheet).
        expect((await all(zip, 'small.txt')).toString()).toBe('ok');
        expect((await all(zip, 'b.xml')).equals(BIG)).toBe(true);
        expect((await all(zip, 'a.xml')).equals(BIG)).toBe(true);
        expect((await all(zip, 'empty.xml')).length).toBe(0);
        expect((await all(zip, 'empty-stored.xml')).length).toBe(0);
      } finally {
        zip.close();
      }
    });

    it(`stops early without leaking an error, and reads the entry again afterwards (${source})`, async () => {
      const zip = await open(source);
      try {
        const entry = zip.find('a.xml');
        if (!entry) throw new Error('no a.xml');
        let seen = 0;
        for await (const chunk of zip.stream(entry)) {
          seen += chunk.length;
          break;
        }
        expect(seen).toBeGreaterThan(0);
        expect((await all(zip, 'a.xml')).equals(BIG)).toBe(true);
      } finally {
        zip.close();
      }
    });
  }

  it('refuses an entry whose local header is damaged as corrupt', async () => {
    const damaged = Buffer.from(ZIP);
    damaged.writeUInt32LE(0x12345678, 0); // a.xml's local header signature
    const zip = await ZipArchive.open({ buffer: damaged }, DEFAULT_READ_LIMITS, { used: 0, max: 1 << 30 });
    const error = await all(zip, 'a.xml').then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ReportError);
    expect((error as ReportError).code).toBe('corrupt_file');
    expect((await all(zip, 'small.txt')).toString()).toBe('ok');
  });
});
