import { binary, http, type HttpOptions, type HttpRequest } from '../../shared/http';
import { analyticsWorkbook } from '../../shared/reports/analytics';
import { analyticsQuery } from './get.handler';

const route = { auth: 'user', query: analyticsQuery.omit({ article: true }) } satisfies HttpOptions;

/** GET /api/analytics/export?from=&to=&seller_id= → the analytics as .xlsx (weeks, articles, margin groups). */
export async function main(req: HttpRequest<typeof route>) {
  const file = await analyticsWorkbook(req.user, req.query);
  return binary(file.data, { contentType: file.contentType, filename: file.filename });
}

export const handler = http(route, main);
