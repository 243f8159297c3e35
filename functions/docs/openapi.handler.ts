import openapi from '../../docs/openapi.json';
import { json, publicHttp, type HttpOptions } from '../../shared/http/public';

const route = { auth: 'none', secrets: [] } satisfies HttpOptions;

/**
 * GET /api/openapi.json → the OpenAPI 3.1 document of the API, as committed in docs/openapi.json
 * (generated from shared/contract by `npm run openapi`; a unit test keeps it current).
 */
export async function main() {
  return json(200, openapi, { 'Cache-Control': 'public, max-age=300' });
}

export const handler = publicHttp(route, main);
