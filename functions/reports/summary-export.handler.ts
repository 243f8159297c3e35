import { STALE_REPORTS_HEADER } from '../../shared/contract/routes';
import { binary, route, ROUTES } from '../../shared/http';
import { staleSources } from '../../shared/reports/combine/list-stale';
import { exportDeps } from '../../shared/reports/exports/export-deps';
import { summaryWorkbook } from '../../shared/reports/exports/summary-workbook';
import { readDeps } from '../../shared/reports/read-deps';

/**
 * POST /api/reports/summary-export {report_ids: 1..100} → the legacy .xls summary; any id not the caller's
 * → 404. `X-Stale-Reports`: the ids of the chosen reports that are stale (empty when none).
 */
export const handler = route(ROUTES.summaryExport, async (req) => {
  const file = await summaryWorkbook(exportDeps, req.user.id, req.body.report_ids, (records) =>
    staleSources(readDeps, req.user, records),
  );
  const out = binary(file.data, { contentType: file.contentType, filename: file.filename });
  return { ...out, headers: { ...out.headers, [STALE_REPORTS_HEADER]: file.stale.map((s) => s.id).join(',') } };
});
