/**
 * The demo account's sample report on the local stack's first start.
 *
 * scripts/local/stack.ts calls this once per start, after the demo user exists, with the process
 * environment pointing at the local table and bucket. A realistic report from the fixture generator
 * goes through the same use case as the upload route (limits charged, source stored, seller and
 * catalog filled), so the demo shows real numbers. Idempotent: an account that already has a report
 * or any limit history (it uploaded, or deleted the sample) gets nothing.
 */
import { uploadReport } from '../../shared/reports/upload/upload';
import { reportDeps } from '../../shared/reports/deps';
import { listLimitHistory } from '../../shared/store/limits.repo';
import { listReports } from '../../shared/store/reports.repo';
import { getUserById } from '../../shared/store/users.repo';
import { generateReport } from '../fixtures/generate';

export interface DemoReportResult {
  seeded: boolean;
  /** Printed by the launcher. */
  message: string;
}

/** Rows of the sample: a few dozen articles, well inside the demo's initial limits. */
export const DEMO_REPORT_ROWS = 1500;

export async function seedDemoReport(input: { userId: string; userCreated: boolean }): Promise<DemoReportResult> {
  const [reports, history] = await Promise.all([
    listReports(input.userId, { limit: 1 }),
    listLimitHistory(input.userId, null, 1),
  ]);
  if (reports.items.length > 0 || history.items.length > 0) {
    return { seeded: false, message: 'the demo account has reports already' };
  }
  const user = await getUserById(input.userId);
  if (!user) return { seeded: false, message: 'demo user not found' };
  if (user.limits < DEMO_REPORT_ROWS)
    return {
      seeded: false,
      message: `the demo account has ${user.limits} limits, the sample needs ${DEMO_REPORT_ROWS}`,
    };
  const g = generateReport({ rows: DEMO_REPORT_ROWS, layout: '2026', format: 'xlsx', seed: 2026 });
  const r = await uploadReport(reportDeps, user, { file: { filename: g.filename, buffer: g.file } });
  return {
    seeded: true,
    message: `«${r.record.title}» (${r.record.rows} rows, ${r.items.length} articles) uploaded for the demo account`,
  };
}
