import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { writeReportSummary } from '../../shared/reports/analytics/analytics';
import { summaryDeps } from '../../shared/reports/read-deps';
import { setManualValue, type ManualValueDeps } from '../../shared/reports/rebuild/manual-value';
import { sleep } from '../../shared/store/dynamo-errors';
import { saveItemCorrection } from '../../shared/store/report-numbers.repo';
import { getReport, getReportItems } from '../../shared/store/reports.repo';
import { presentItem, valuesToApi } from '../../shared/reports/present-report';

const contract = ROUTES.manualValue;
const route = fromRoute(contract);
const deps: ManualValueDeps = {
  reports: { getReport, getReportItems, saveItemCorrection },
  writeSummary: (record, items) => writeReportSummary(summaryDeps, record, items),
  sleep,
};

/** PUT /api/reports/items/{item_id}/manual-value {field, value|null} → {item, totals} (money in roubles). */
export async function main(req: HttpRequest<typeof route>) {
  const r = await setManualValue(deps, req.user.id, req.path.item_id, req.body.field, req.body.value);
  return reply(contract, 200, { item: presentItem(r.item), totals: valuesToApi(r.totals) });
}

export const handler = http(route, main);
