import { fromRoute, http, reply, ROUTES, type HttpRequest } from '../../shared/http';
import { setManualValue } from '../../shared/reports/manual-value';
import { presentItem, valuesToApi } from '../../shared/reports/present';

const contract = ROUTES.manualValue;
const route = fromRoute(contract);

/** PUT /api/reports/items/{item_id}/manual-value {field, value|null} → {item, totals} (money in roubles). */
export async function main(req: HttpRequest<typeof route>) {
  const r = await setManualValue(req.user.id, req.path.item_id, req.body.field, req.body.value);
  return reply(contract, 200, { item: presentItem(r.item), totals: valuesToApi(r.totals) });
}

export const handler = http(route, main);
