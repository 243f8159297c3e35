import openapi from '../../docs/openapi.json';
import { json, publicRoute, ROUTES } from '../../shared/http/public';

/**
 * GET /api/openapi.json → the OpenAPI 3.1 document of the API, as committed in docs/openapi.json
 * (generated from shared/contract by `npm run openapi`; a unit test keeps it current).
 */
export const handler = publicRoute(ROUTES.openapi, { secrets: [] }, async () =>
  json(200, openapi, { 'Cache-Control': 'public, max-age=300' }),
);
