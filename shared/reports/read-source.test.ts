/**
 * A week imported from WB's Finance API has the content fingerprint of the same week's portal file
 * (docs/METRICS.md, One week is one report): the stored pages (gzip'd JSON lines, one gzip member per
 * page) read by read-source.ts against the portal file read by the engine's reader.
 */
import { describe, expect, it } from 'vitest';
import { readReport } from '../engine/read-report';
import { emulatedWeek } from '../../scripts/local/wb/weeks';
import { pageBody } from '../wb/page-body';
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
