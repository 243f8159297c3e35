import { describe, expect, it } from 'vitest';
import { DEFAULT_TAX_PROFILE } from '../engine/types';
import { parseStored, RECORD_VERSIONS, StoredRecordError, storedProduct } from './records';
import { fromItem, toItem, type ReportRecord } from './report-record';

const report: ReportRecord = {
  id: 'R1',
  user_id: 'U1',
  title: 'Отчёт',
  report_number: '1',
  seller_id: null,
  period_from: '2026-01-05',
  period_to: '2026-01-11',
  rows: 10,
  format: 'xlsx',
  is_combined: false,
  source_path: null,
  source_name: null,
  source_size: null,
  created_at: '2026-01-12T00:00:00.000Z',
  tax_profile: DEFAULT_TAX_PROFILE,
  totals: { realization: 100, margin: null } as unknown as ReportRecord['totals'],
  commission_by_category: [],
  warnings: [{ code: 'w', message: 'm' }],
  item_count: 1,
};

describe('stored records', () => {
  it('a report is written in the current version and reads back as it was', () => {
    const item = toItem(report);
    expect(item).toMatchObject({ pk: 'USER#U1', sk: 'REPORT#R1', type: 'report', v: RECORD_VERSIONS.report });
    expect(fromItem(item)).toEqual({ ...report, items_gen: 1, version: 1, status: 'ready' });
  });

  it('keeps attributes the schema does not name', () => {
    expect(fromItem({ ...toItem(report), stale: true })).toMatchObject({ stale: true });
  });

  it('refuses a record without the current version, naming its key', () => {
    const { v: _v, ...old } = toItem(report);
    expect(() => fromItem(old)).toThrow(
      new StoredRecordError(
        'report',
        { pk: 'USER#U1', sk: 'REPORT#R1' },
        'version undefined, expected 1 (npm run migrate)',
      ),
    );
  });

  it('refuses a record of the current version whose fields are wrong, naming the key and the field', () => {
    const bad = { ...toItem(report), status: 'building' };
    expect(() => fromItem(bad)).toThrow(/^Stored report record USER#U1 \/ REPORT#R1 does not parse: status: /);
    const item = {
      pk: 'USER#U1',
      sk: 'PRODUCT#A',
      v: 1,
      article: 'A',
      cost_price: 5,
      created_at: 'x',
      updated_at: 'x',
    };
    expect(() => parseStored('product', storedProduct, item)).toThrow(
      'Stored product record USER#U1 / PRODUCT#A does not parse: cost_price_set:',
    );
  });
});
