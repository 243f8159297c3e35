import { describe, expect, it } from 'vitest';
import { DEFAULT_TAX_PROFILE, FIELDS, type ItemValues } from '../engine';
import type { StoredItem } from '../store/items.repo';
import type { ReportRecord } from '../store/report-record';
import {
  presentDropped,
  presentItem,
  presentItemColumns,
  presentReport,
  presentReportSummary,
  valueFromApi,
  valueToApi,
  valuesToApi,
} from './present-report';

function values(v: number): ItemValues {
  return Object.fromEntries(FIELDS.map((f) => [f.name, v])) as ItemValues;
}

const item: StoredItem = {
  item_id: 'R1.1000001',
  article: 'A-1',
  category: 'Платья',
  nm_id: '123',
  brand: 'B',
  computed: { ...values(12345), margin: null },
  manual_values: { realization: 100, sales_qty: 3, margin: 12.5 },
  effective: values(-5),
  rev: 2,
};

const record: ReportRecord = {
  id: 'R1',
  user_id: 'U1',
  title: 'Отчёт',
  report_number: '42',
  seller_id: 'S1',
  period_from: '2026-01-05',
  period_to: '2026-01-11',
  rows: 10,
  format: 'xlsx',
  is_combined: false,
  source_path: 'sources/U1/R1/a.xlsx',
  source_name: 'a.xlsx',
  source_size: 100,
  created_at: '2026-01-12T00:00:00.000Z',
  tax_profile: DEFAULT_TAX_PROFILE,
  totals: values(250),
  commission_by_category: [{ category: 'Платья', realization: 100050, commission: 2001, percent: 2 }],
  warnings: [{ code: 'unknown_operation', message: 'm', details: { operation: 'X', rows: 2, amount: 1999 } }],
  item_count: 1,
  items_gen: 1,
  version: 3,
  status: 'ready',
};

describe('presenter', () => {
  it('converts money by the field table and leaves counts and percents alone', () => {
    expect(valueToApi('realization', 12345)).toBe(123.45);
    expect(valueToApi('sales_qty', 7)).toBe(7);
    expect(valueToApi('margin', 27.5)).toBe(27.5);
    expect(valueToApi('margin', null)).toBeNull();
    expect(valueFromApi('realization', 123.45)).toBe(12345);
    expect(valueFromApi('realization', -0.005)).toBe(-1);
    expect(valueFromApi('returns_qty', 4)).toBe(4);
    for (const f of FIELDS) {
      const out = valuesToApi(values(12345))[f.name];
      expect(out, f.name).toBe(f.unit === 'money' ? 123.45 : 12345);
    }
  });

  it('shows an item with computed, manual and effective values and no storage fields', () => {
    const p = presentItem(item);
    expect(Object.keys(p).sort()).toEqual([
      'article',
      'brand',
      'category',
      'computed',
      'effective',
      'item_id',
      'manual_values',
      'nm_id',
      'null_reasons',
    ]);
    expect(p.manual_values).toEqual({ realization: 1, sales_qty: 3, margin: 12.5 });
    expect(p.null_reasons).toEqual({});
    expect(p.computed.margin).toBeNull();
    expect(p.computed.profit).toBe(123.45);
    expect(p.effective.profit).toBe(-0.05);
  });

  it('says why margin and ROI are null, as objects and as columns', () => {
    const bare: StoredItem = {
      ...item,
      item_id: 'R1.1000002',
      manual_values: {},
      effective: { ...values(-5), realization: 50_000, cost_price: 0, cost_total: 0, margin: null, roi: null },
    };
    expect(presentItem(bare).null_reasons).toEqual({ margin: 'no_cost_price', roi: 'no_cost_price' });
    const unsold = { ...bare, effective: { ...bare.effective, realization: -100, cost_price: 500 } };
    expect(presentItem(unsold).null_reasons).toEqual({ margin: 'no_realization', roi: 'no_net_sales' });
    expect(presentItemColumns([item, bare]).null_reasons).toEqual({
      margin: { 1: 'no_cost_price' },
      roi: { 1: 'no_cost_price' },
    });
  });

  it('shows a summary without items and a full report with items, commission and warnings in roubles', () => {
    const s = presentReportSummary(record, { id: 'S1', number: '3725198', name: 'Продавец' });
    expect(s).toMatchObject({
      id: 'R1',
      source_available: true,
      seller: { id: 'S1', number: '3725198', name: 'Продавец' },
    });
    expect(s).not.toHaveProperty('rebuilt_at');
    expect(s).not.toHaveProperty('source_report_ids');
    expect(s.totals.payout).toBe(2.5);
    const combined = presentReportSummary(
      { ...record, is_combined: true, source_path: null, source_report_ids: ['A', 'B'] },
      null,
    );
    expect(combined).toMatchObject({ source_available: false, source_report_ids: ['A', 'B'], seller: null });

    const full = presentReport({ ...record, rebuilt_at: '2026-02-01T00:00:00.000Z' }, [item], null, true);
    expect(full.items).toHaveLength(1);
    expect(full.stale).toBe(true);
    expect(full.rebuilt_at).toBe('2026-02-01T00:00:00.000Z');
    expect(full.commission_by_category).toEqual([
      { category: 'Платья', realization: 1000.5, commission: 20.01, percent: 2 },
    ]);
    expect(full.warnings[0]!.details).toEqual({ operation: 'X', rows: 2, amount: 19.99 });
    expect(full).not.toHaveProperty('user_id');
    expect(full).not.toHaveProperty('version');
  });

  it('shows dropped corrections in API units', () => {
    expect(presentDropped({ article: 'A', field: 'ads', value: 50050 })).toEqual({
      article: 'A',
      field: 'ads',
      value: 500.5,
    });
    expect(presentDropped({ article: 'A', field: 'sales_qty', value: 4 })).toEqual({
      article: 'A',
      field: 'sales_qty',
      value: 4,
    });
  });
});
