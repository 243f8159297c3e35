import type { APIGatewayProxyResultV2 } from 'aws-lambda';

/**
 * Stand-in for routes whose handler has not been written yet, so that every route of API.md is
 * deployed and served locally from day one. Each placeholder file re-exports this `handler`; the
 * route's real handler replaces the file. Standalone on purpose: it needs no configuration, so it
 * answers even when the environment is incomplete.
 */
export async function handler(): Promise<APIGatewayProxyResultV2> {
  return {
    statusCode: 501,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: { code: 'not_implemented', message: 'This route is not implemented yet' } }),
  };
}
