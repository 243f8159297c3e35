/**
 * The analytics as a workbook (docs/API.md: GET /api/analytics/export). Apart from analytics.ts so
 * that only the export function carries exceljs (docs/PERFORMANCE.md, Bundles).
 */
import { exportAnalyticsXlsx } from '../../workbooks/analytics-xlsx';
import type { UserRecord } from '../../store/users.repo';
import { computeUserAnalytics, type AnalyticsDeps, type AnalyticsQuery } from './analytics';

/** GET /api/analytics/export: the same figures as .xlsx, «Аналитика <from>–<to>.xlsx». */
export async function analyticsWorkbook(
  deps: AnalyticsDeps,
  user: UserRecord,
  q: AnalyticsQuery,
): Promise<{ filename: string; contentType: string; data: Buffer }> {
  const { result, sellerId } = await computeUserAnalytics(deps, user, { ...q, article: undefined });
  const seller = sellerId ? await deps.sellers.getSeller(user.id, sellerId) : null;
  return {
    filename: `Аналитика ${result.range.from}–${result.range.to}.xlsx`,
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    data: await exportAnalyticsXlsx(result, seller ? seller.name : null),
  };
}
