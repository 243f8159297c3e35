import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { ParsedReport } from '../../engine/types';
import { decodeRead, encodeRead, handoverKey, objectReadHandover } from './read-handover';

const parsed: ParsedReport = {
  format: 'zip',
  rows: 2,
  report_number: '220048062',
  seller_number: '4677925',
  period_from: '2026-05-04',
  period_to: '2026-05-10',
  articles: [],
  warnings: [],
  content: { value: 'r1:2:00ff', days: { '2026-05-04': '2:00ff' }, row_ids: ['1', '2'] },
};

describe('the read a preview hands to the worker', () => {
  it('comes back as it was kept', () => {
    expect(decodeRead(encodeRead(parsed))).toEqual(parsed);
  });

  it('lies beside its upload, under the uploads prefix', () => {
    expect(handoverKey('uploads/u1/up1/report.zip')).toBe('uploads/u1/up1/report.zip.read.json.gz');
  });

  it.each([
    ['of another format version', gzipSync(JSON.stringify({ format: 'parsed-report-0', parsed }))],
    ['cut short', encodeRead(parsed).subarray(0, 20)],
    ['not gzip', Buffer.from('{}')],
    ['without articles', gzipSync(JSON.stringify({ format: 'parsed-report-1', parsed: { rows: 2 } }))],
  ])('is not used when %s', (_what, body) => {
    expect(decodeRead(body)).toBeNull();
  });

  it('is taken once: read, then removed from the bucket', async () => {
    const objects = { putObject: vi.fn(), readObject: vi.fn(), deleteObject: vi.fn() };
    const handover = objectReadHandover(objects);
    expect(await handover.keep('uploads/u1/up1/report.zip', parsed)).toBe('uploads/u1/up1/report.zip.read.json.gz');
    const body = objects.putObject.mock.calls[0]![1] as Buffer;
    objects.readObject.mockResolvedValueOnce(body).mockResolvedValueOnce(null);
    objects.deleteObject.mockResolvedValue(undefined);
    expect(await handover.take('uploads/u1/up1/report.zip.read.json.gz')).toEqual(parsed);
    expect(objects.deleteObject).toHaveBeenCalledWith('uploads/u1/up1/report.zip.read.json.gz');
    expect(await handover.take('uploads/u1/up1/report.zip.read.json.gz')).toBeNull();
  });
});
