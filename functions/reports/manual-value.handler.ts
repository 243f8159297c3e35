import { route, ROUTES } from '../../shared/http';
import { presentItem, valuesToApi } from '../../shared/reports/present-report';
import { setManualValue } from '../../shared/reports/rebuild/manual-value';
import { manualValueDeps } from '../../shared/reports/rebuild/manual-value-deps';

/** PUT /api/reports/items/{item_id}/manual-value {field, value|null} → {item, totals} (money in roubles). */
export const handler = route(ROUTES.manualValue, async (req) => {
  const r = await setManualValue(manualValueDeps, req.user.id, req.path.item_id, req.body.field, req.body.value);
  return { status: 200, body: { item: presentItem(r.item), totals: valuesToApi(r.totals) } };
});
