import { binary, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { systemClock } from '../../shared/deps';
import type { ExportDeps } from '../../shared/reports/exports/export-report';
import { summaryWorkbook } from '../../shared/reports/exports/summary-workbook';
import * as reports from '../../shared/store/reports.repo';
import * as sellers from '../../shared/store/sellers.repo';
import { staleSources } from '../../shared/reports/combine/list-stale';
import { readDeps } from '../../shared/reports/read-deps';
import { STALE_REPORTS_HEADER } from '../../shared/contract/routes';

const deps: ExportDeps = { reports, sellers, clock: systemClock };

const route = fromRoute(ROUTES.summaryExport);

/**
 * POST /api/reports/summary-export {report_ids: 1..100} → the legacy .xls summary; any id not the caller's
 * → 404. `X-Stale-Reports`: the ids of the chosen reports that are stale (empty when none).
 */
export async function main(req: HttpRequest<typeof route>) {
  const file = await summaryWorkbook(deps, req.user.id, req.body.report_ids, (records) =>
    staleSources(readDeps, req.user, records),
  );
  const out = binary(file.data, { contentType: file.contentType, filename: file.filename });
  return { ...out, headers: { ...out.headers, [STALE_REPORTS_HEADER]: file.stale.map((s) => s.id).join(',') } };
}

export const handler = http(route, main);
