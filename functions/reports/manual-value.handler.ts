import { z } from 'zod';
import { http, json, type HttpOptions, type HttpRequest } from '../../shared/http';
import { setManualValue } from '../../shared/reports/manual-value';
import { presentItem, valuesToApi } from '../../shared/reports/present';

const route = {
  auth: 'user',
  path: z.object({ item_id: z.string() }),
  body: z.object({ field: z.string().min(1).max(100), value: z.number().nullable() }),
} satisfies HttpOptions;

/** PUT /api/reports/items/{item_id}/manual-value {field, value|null} → {item, totals} (money in roubles). */
export async function main(req: HttpRequest<typeof route>) {
  const r = await setManualValue(req.user.id, req.path.item_id, req.body.field, req.body.value);
  return json(200, { item: presentItem(r.item), totals: valuesToApi(r.totals) });
}

export const handler = http(route, main);
