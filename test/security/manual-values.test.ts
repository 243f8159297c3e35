/**
 * Manual values out of range (attack run: 8·10^13 roubles on two items answered 500, was stored anyway
 * and left the totals unequal to the sum of the items). Every correctable field has a range; a refused
 * value stores nothing; the item and the report totals are written together or not at all.
 */
import { describe, expect, it } from 'vitest';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { apiEvent, bodyOf } from '../support/test-event';
import type { ApiItem } from '../../shared/reports/present-report';
import { getReportOk, makeReport, newUser, uploadOk } from '../support/reports';

const putValue = (token: string, itemId: string, body: unknown) =>
  manualValueHandler(
    apiEvent({
      method: 'PUT',
      path: `/api/reports/items/${itemId}/manual-value`,
      token,
      pathParameters: { item_id: itemId },
      body,
    }),
  );

const sumKopecks = (items: ApiItem[], field: string) =>
  items.reduce((s, i) => s + Math.round((i.effective[field] ?? 0) * 100), 0);

async function reportOfTwoArticles() {
  const u = await newUser(100_000, 'security');
  const report = await uploadOk(u.token, makeReport({ rows: 120, seed: 1201 }));
  const items = report.items.filter((i) => i.article !== '');
  expect(items.length).toBeGreaterThanOrEqual(2);
  return { u, report, items };
}

describe('manual value bounds', () => {
  it('refuses every out-of-range value with 422 value_out_of_range and stores nothing', async () => {
    const { u, report, items } = await reportOfTwoArticles();
    const [a, b] = items;
    const refused: Array<[string, string, number]> = [
      [a!.item_id, 'logistics', 80_000_000_000_000],
      [b!.item_id, 'logistics', 80_000_000_000_000],
      [a!.item_id, 'logistics', 1e15],
      // The attack run sent 90071992547409.93, which a JS number holds as 90071992547409.94.
      [a!.item_id, 'realization', 90071992547409.94],
      [a!.item_id, 'logistics', -100_000_000_000.01],
      [a!.item_id, 'logistics', 12.345],
      [a!.item_id, 'sales_qty', 1e308],
      [a!.item_id, 'sales_qty', -1],
      [a!.item_id, 'sales_qty', 2.5],
      [a!.item_id, 'returns_qty', 1_000_000_001],
      [a!.item_id, 'margin', 1e308],
      [a!.item_id, 'margin', -10_000.01],
      [a!.item_id, 'cost_price', -1],
    ];
    for (const [itemId, field, value] of refused) {
      const r = await putValue(u.token, itemId, { field, value });
      expect({ field, value, status: r.statusCode }).toEqual({ field, value, status: 422 });
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('value_out_of_range');
    }
    const after = await getReportOk(u.token, report.id);
    expect(after.totals).toEqual(report.totals);
    expect(after.items.every((i) => Object.keys(i.manual_values).length === 0)).toBe(true);
  });

  it('accepts the edges; totals stay the exact sum of the items', async () => {
    const { u, report, items } = await reportOfTwoArticles();
    const [a, b] = items;
    const accepted: Array<[string, string, number]> = [
      [a!.item_id, 'logistics', 100_000_000_000],
      [b!.item_id, 'logistics', 100_000_000_000],
      [a!.item_id, 'storage', -100_000_000_000],
      [a!.item_id, 'sales_qty', 1_000_000_000],
      [b!.item_id, 'margin', -10_000],
      [b!.item_id, 'cost_price', 0],
      [b!.item_id, 'penalties', 0.01],
    ];
    for (const [itemId, field, value] of accepted) {
      const r = await putValue(u.token, itemId, { field, value });
      expect({ field, value, status: r.statusCode }).toEqual({ field, value, status: 200 });
    }
    const after = await getReportOk(u.token, report.id);
    for (const field of ['logistics', 'storage', 'penalties', 'profit', 'realization', 'payout']) {
      expect({ field, total: Math.round((after.totals[field] ?? 0) * 100) }).toEqual({
        field,
        total: sumKopecks(after.items, field),
      });
    }
    expect(after.items.find((i) => i.item_id === a!.item_id)!.effective.logistics).toBe(100_000_000_000);
  });

  it('concurrent corrections of different items of one report all land in the totals', async () => {
    const { u, report, items } = await reportOfTwoArticles();
    const targets = items.slice(0, 4);
    const results = await Promise.all(
      targets.map((i, n) => putValue(u.token, i.item_id, { field: 'logistics', value: 1000 + n })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(targets.map(() => 200));
    const after = await getReportOk(u.token, report.id);
    expect(Math.round((after.totals.logistics ?? 0) * 100)).toBe(sumKopecks(after.items, 'logistics'));
    for (const [n, t] of targets.entries()) {
      expect(after.items.find((i) => i.item_id === t.item_id)!.effective.logistics).toBe(1000 + n);
    }
  });
});
