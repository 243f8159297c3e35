import { describe, expect, it } from 'vitest';
import { coversOfSources, findOverlap, periodTitle, reportIdentity, sha256Of } from './report-identity';

describe('reportIdentity', () => {
  it('uses seller and report number when the name has both, else the hash', () => {
    expect(reportIdentity({ seller_number: '123', report_number: '456' }, 'ab')).toBe('num:123:456');
    expect(reportIdentity({ seller_number: null, report_number: '456' }, 'ab')).toBe('file:ab');
    expect(reportIdentity({ seller_number: '123', report_number: null }, 'ab')).toBe('file:ab');
  });

  it('hashes bytes with SHA-256', async () => {
    expect(await sha256Of({ buffer: Buffer.from('abc') })).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});

describe('periodTitle', () => {
  it('writes the period the Russian way, the year once when shared', () => {
    expect(periodTitle('2026-05-18', '2026-05-24')).toBe('Отчёт за 18.05–24.05.2026');
    expect(periodTitle('2025-12-29', '2026-01-04')).toBe('Отчёт за 29.12.2025–04.01.2026');
    expect(periodTitle('2026-05-18', '2026-05-18')).toBe('Отчёт за 18.05.2026');
    expect(periodTitle(null, '2026-05-18')).toBe('Отчёт за 18.05.2026');
    expect(periodTitle(null, null)).toBeNull();
  });
});

describe('findOverlap', () => {
  const plain = (id: string, identity: string | null = null) => ({ id, identity, is_combined: false });
  const rows = (id: string, fp: string, days: Record<string, string>) => ({
    id,
    is_combined: false,
    content_fingerprint: fp,
    content_days: days,
  });
  const week = rows('w', 'r1:9:aa', { '2026-05-18': '5:01', '2026-05-19': '4:02', '-': '1:09' });

  it('finds the same rows in two files (xls of an xlsx) and a daily report inside a weekly one', () => {
    expect(findOverlap([week, rows('x', 'r1:9:aa', week.content_days)])?.reason).toBe('same_report');
    expect(findOverlap([week, rows('d', 'r1:5:01', { '2026-05-18': '5:01' })])).toEqual({
      report_ids: ['w', 'd'],
      reason: 'shared_rows',
    });
    // Another report of the same days with other rows, or only the same undated rows: no overlap.
    expect(findOverlap([week, rows('o', 'r1:5:77', { '2026-05-18': '5:77', '-': '1:09' })])).toBeNull();
    // A combined report holding the week and the daily one beside it.
    const c = { id: 'c', is_combined: true, covers: coversOfSources([week]) };
    expect(findOverlap([c, rows('d', 'r1:5:01', { '2026-05-18': '5:01' })])?.reason).toBe('shared_source');
  });

  it('finds two copies of one report', () => {
    expect(findOverlap([plain('a', 'num:1:2'), plain('b', 'num:1:3'), plain('c', 'num:1:2')])).toEqual({
      report_ids: ['a', 'c'],
      reason: 'same_report',
    });
  });

  it('finds a combined report with one of its sources, also by identity', () => {
    const c = { id: 'c', is_combined: true, covers: coversOfSources([plain('a', 'x'), plain('b', 'y')]) };
    expect(findOverlap([c, plain('b', 'y')])?.reason).toBe('combined_with_source');
    // another copy of a source (other id, same identity)
    expect(findOverlap([plain('d', 'x'), c])).toEqual({ report_ids: ['d', 'c'], reason: 'shared_source' });
    // an old combined report without covers: its source ids
    const old = { id: 'o', is_combined: true, source_report_ids: ['a', 'b'] };
    expect(findOverlap([old, plain('a')])).toEqual({ report_ids: ['o', 'a'], reason: 'combined_with_source' });
  });

  it('finds two combined reports sharing a source, and passes a clean selection', () => {
    const c1 = { id: 'c1', is_combined: true, covers: coversOfSources([plain('a', 'x'), plain('b', 'y')]) };
    const c2 = { id: 'c2', is_combined: true, covers: coversOfSources([plain('b', 'y'), plain('e', 'z')]) };
    expect(findOverlap([c1, c2])?.reason).toBe('shared_source');
    expect(findOverlap([plain('a', 'x'), plain('b', 'y'), plain('e')])).toBeNull();
  });
});
