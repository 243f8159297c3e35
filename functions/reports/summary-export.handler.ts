import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { systemClock } from '../../shared/deps';
import type { ExportDeps } from '../../shared/reports/exports';
import { summaryWorkbook } from '../../shared/reports/summary-workbook';
import * as reports from '../../shared/store/reports.repo';
import * as sellers from '../../shared/store/sellers.repo';

const deps: ExportDeps = { reports, sellers, clock: systemClock };

const route = fromRoute(ROUTES.summaryExport);

/** POST /api/reports/summary-export {report_ids: 1..100} → the legacy .xls summary; any id not the caller's → 404. */
export async function main(req: HttpRequest<typeof route>) {
  const file = await summaryWorkbook(deps, req.user.id, req.body.report_ids);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
