/**
 * A week imported from WB's Finance API has the content fingerprint of the same week's portal file
 * (docs/METRICS.md, One week is one report): the stored pages (shared/marketplaces/wb/finance/page-body.ts, one gzip member
 * per page) read by read-source.ts against the portal file read by the engine's reader.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readReport } from '../../engine/read-report';
import { emulatedWeek } from '../../../scripts/local/wb/weeks';
import { pageBody } from '../../marketplaces/wb/finance/page-body';
import { fingerprintWbSource, readReportSource, wbSourceName } from './read-source';

describe.each(['2026', '2025'] as const)('the content fingerprint of a WB week (%s layout)', (layout) => {
  const week = emulatedWeek({ index: 1, rows: 900, seed: 5, layout });
  const stored = Buffer.concat([pageBody(week.rows.slice(0, 400)), pageBody(week.rows.slice(400))]);

  it('is the portal file’s, read whole or only fingerprinted, whatever the pages', async () => {
    const file = await readReport({ buffer: week.portal.file, filename: week.portal.filename });
    const api = await readReportSource({ buffer: stored, filename: wbSourceName(week.item.reportId, '4242001') });
    expect(api.rows).toBe(file.rows);
    expect(api.content?.value).toMatch(/^r1:900:[0-9a-f]{16}$/);
    expect(api.content).toEqual(file.content);
    expect(await fingerprintWbSource({ buffer: pageBody(week.rows) })).toEqual(file.content);
  });

  it('differs when a row differs', async () => {
    const changed = week.rows.map((r, i) => (i === 3 ? { ...r, forPay: String(Number(r.forPay ?? 0) + 0.01) } : r));
    const file = await readReport({ buffer: week.portal.file, filename: week.portal.filename });
    expect((await fingerprintWbSource({ buffer: pageBody(changed) })).value).not.toBe(file.content?.value);
  });
});

describe('an import stored before pages were kept as sent', () => {
  it('(JSON lines under .wbapi.jsonl.gz) reads to the same report as today’s form', async () => {
    const week = emulatedWeek({ index: 2, rows: 300, seed: 8 });
    const lines = gzipSync(Buffer.from(week.rows.map((r) => `${JSON.stringify(r)}\n`).join('')));
    const older = await readReportSource({
      buffer: lines,
      filename: `wb-${week.item.reportId}-4242001.wbapi.jsonl.gz`,
    });
    const today = await readReportSource({
      buffer: pageBody(week.rows),
      filename: wbSourceName(week.item.reportId, '4242001'),
    });
    expect(wbSourceName(1, '2')).toBe('wb-1-2.wbapi.json.gz');
    expect(older.format).toBe('wb_api');
    expect(older).toEqual(today);
  });
});
