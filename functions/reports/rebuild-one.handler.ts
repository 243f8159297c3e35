import { contractBody, fromRoute, http, ROUTES, type HttpRequest } from '../../shared/http';
import { presentDropped, presentReport } from '../../shared/reports/present';
import { rebuildReport } from '../../shared/reports/rebuild';
import { reportJson } from '../../shared/reports/large-json';

const contract = ROUTES.rebuildOne;
const route = fromRoute(contract);

/** POST /api/reports/{id}/rebuild → {report, dropped_manual_values}; 409 source_missing without a stored source. */
export async function main(req: HttpRequest<typeof route>) {
  const r = await rebuildReport(req.user, req.path.id);
  const body = contractBody(contract, 200, {
    report: presentReport(r.record, r.items, r.seller, false),
    dropped_manual_values: r.dropped.map(presentDropped),
  });
  return reportJson(200, body, req.headers['accept-encoding']);
}

export const handler = http(route, main);
