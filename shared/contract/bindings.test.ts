/**
 * Each route's handler is bound to it from the contract (shared/http/route.ts): the handler module a
 * function names (functions.ts) serves exactly the routes whose `fn` is that function: a handler bound
 * to another route, or a dispatch table missing one of its function's routes, fails here. And a function
 * serving several routes answers an event for none of them with the contract's 404/405 error.
 */
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { apiEvent, bodyOf } from '../../test/support/test-event';
import { matchRoute, servedRoutes } from '../http/route';
import { FUNCTIONS, type FunctionName } from './functions';
import { ROUTES, type RouteKey } from './routes';

// Building a handler parses the configuration (cold start), as on Lambda.
vi.hoisted(() =>
  Object.assign(process.env, {
    JWT_SECRET: 'unit-test-secret-unit-test-secret',
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
  }),
);

const root = path.join(__dirname, '..', '..');
const keys = Object.keys(ROUTES) as RouteKey[];
const routesOf = (fn: FunctionName) => keys.filter((k) => ROUTES[k].fn === fn).sort();
const served = [...new Set(keys.map((k) => ROUTES[k].fn))];

async function handlerOf(fn: FunctionName): Promise<unknown> {
  const file = path.join(root, FUNCTIONS[fn].handler.replace(/\.handler$/, ''));
  return ((await import(file)) as { handler: unknown }).handler;
}

describe('every function serving routes binds exactly its routes from the contract', () => {
  it.each(served)('%s', async (fn) => {
    const bound = servedRoutes(await handlerOf(fn));
    expect(bound, `${fn}: its handler is not built by route()/routes()/publicRoute()`).not.toBeNull();
    expect([...bound!].sort(), fn).toEqual(routesOf(fn));
  });
});

describe('dispatch from the contract', () => {
  const wb = routesOf('wbConnections');
  it('matches the routeKey API Gateway sends, or else the method and the raw path', () => {
    expect(matchRoute(apiEvent({ method: 'GET', path: '/api/wb/connections/abc' }), wb)).toEqual({
      key: 'wbConnection',
    });
    const byKey = apiEvent({ method: 'POST', path: '/x' });
    byKey.routeKey = 'POST /api/wb/connections/{id}/sync';
    expect(matchRoute(byKey, wb)).toEqual({ key: 'wbSync' });
    // A literal segment wins over a parameter of the same method.
    expect(matchRoute(apiEvent({ method: 'POST', path: '/api/period-costs/import' }), routesOf('periodCosts'))).toEqual(
      { key: 'importPeriodCosts' },
    );
    expect(matchRoute(apiEvent({ method: 'PUT', path: '/api/period-costs/p1' }), routesOf('periodCosts'))).toEqual({
      key: 'putPeriodCost',
    });
  });

  it('answers an unknown path 404 not_found and a method the path does not take 405 method_not_allowed', async () => {
    const handler = (await handlerOf('wbConnections')) as (e: unknown) => Promise<{
      statusCode: number;
      body?: string;
      headers?: Record<string, string>;
    }>;
    const none = await handler(apiEvent({ method: 'GET', path: '/api/wb/elsewhere' }));
    expect(none.statusCode).toBe(404);
    expect(bodyOf<{ error: { code: string } }>(none).error.code).toBe('not_found');
    const wrong = await handler(apiEvent({ method: 'PUT', path: '/api/wb/connections/abc' }));
    expect(wrong.statusCode).toBe(405);
    expect(bodyOf<{ error: { code: string } }>(wrong).error.code).toBe('method_not_allowed');
    expect(wrong.headers?.Allow).toBe('GET, PATCH, DELETE');
  });
});
