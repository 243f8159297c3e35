import { binary, route, ROUTES } from '../../shared/http';
import { exportDeps } from '../../shared/reports/exports/export-deps';
import { reportWorkbook } from '../../shared/reports/exports/report-workbook';

/** GET /api/reports/{id}/export → the report as an .xlsx attachment named after its number. */
export const handler = route(ROUTES.exportReport, async (req) => {
  const file = await reportWorkbook(exportDeps, req.user.id, req.path.id);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
});
