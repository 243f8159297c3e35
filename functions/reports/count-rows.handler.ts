import { route, ROUTES } from '../../shared/http';
import { countDeps } from '../../shared/reports/upload/count-deps';
import { fileRefOf } from '../../shared/reports/upload/file-input';
import { countReportRows } from '../../shared/reports/upload/upload';

/** POST /api/reports/count-rows (JSON {upload_id} or multipart file) → rows against the caller's limits; charges nothing. */
export const handler = route(ROUTES.countRows, async (req) => ({
  status: 200,
  body: await countReportRows(countDeps, req.user, fileRefOf(req.file, req.body.upload_id), req.budgetMs),
}));
