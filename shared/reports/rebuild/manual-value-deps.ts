/** The real dependencies of PUT /api/reports/items/{item_id}/manual-value (manual-value.ts setManualValue). */
import { sleep } from '../../store/dynamo-errors';
import { saveItemCorrection } from '../../store/report-numbers.repo';
import { getReport, getReportItems } from '../../store/reports.repo';
import { writeReportSummary } from '../analytics/analytics';
import { summaryDeps } from '../read-deps';
import type { ManualValueDeps } from './manual-value';

export const manualValueDeps: ManualValueDeps = {
  reports: { getReport, getReportItems, saveItemCorrection },
  writeSummary: (record, items) => writeReportSummary(summaryDeps, record, items),
  sleep,
};
