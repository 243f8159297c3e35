/** The real stores of the report exports (report-workbook.ts, summary-workbook.ts), wired once per cold start. */
import { systemClock } from '../../deps';
import * as reports from '../../store/reports.repo';
import * as sellers from '../../store/sellers.repo';
import type { ExportDeps } from './export-report';

export const exportDeps: ExportDeps = { reports, sellers, clock: systemClock };
