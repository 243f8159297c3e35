/**
 * The local stack's sample report (scripts/local/demo-report.ts): uploaded once through the upload use
 * case for an account without history, never again once the account has reports or history.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_REPORT_ROWS, seedDemoReport } from '../../scripts/local/demo-report';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { getReportItems, listReports } from '../../shared/store/reports.repo';
/** The delete route's dependencies (functions/reports/delete.handler.ts). */
import { removeDeps } from '../../shared/reports/remove-deps';
import { getUserById } from '../../shared/store/users.repo';
import { newUser } from '../support/reports';

describe('demo sample report', () => {
  it('is uploaded once, charged like any upload, and not again after the user deleted it', async () => {
    const u = await newUser(10_000, 'demo');
    const first = await seedDemoReport({ userId: u.id, userCreated: true });
    expect(first.seeded).toBe(true);
    const { items } = await listReports(u.id);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ rows: DEMO_REPORT_ROWS, is_combined: false });
    expect(items[0]!.source_path).toMatch(new RegExp(`^sources/${u.id}/${items[0]!.id}/`));
    expect((await getReportItems(items[0]!)).length).toBe(items[0]!.item_count);
    expect((await getUserById(u.id))?.limits).toBe(10_000 - DEMO_REPORT_ROWS);
    expect((await listLimitHistory(u.id)).items.map((h) => h.operation)).toEqual(['expense']);

    expect((await seedDemoReport({ userId: u.id, userCreated: false })).seeded).toBe(false);
    const { removeReport } = await import('../../shared/reports/queries');
    await removeReport(removeDeps, u.id, items[0]!.id);
    expect((await seedDemoReport({ userId: u.id, userCreated: false })).seeded).toBe(false);
    expect((await listReports(u.id)).items).toEqual([]);
  });
});
