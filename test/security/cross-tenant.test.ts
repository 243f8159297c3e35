/**
 * Tenancy and tokens on every route, generated from the route table (shared/contract/routes.ts, each
 * route's handler as its function declares it, called in-process against the emulators):
 * - every route taking an id, called by another user with the owner's ids, answers exactly what it
 *   answers for a made-up id of the same shape (status and body), and the owner's data is unchanged;
 * - every authenticated route refuses forged and misused tokens with 401.
 * A route added to the contract is covered without editing this file; one whose id kind is unknown
 * here fails the test until it is described.
 */
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../shared/auth/tokens';
import { getConfig } from '../../shared/config';
import { FUNCTIONS } from '../../shared/contract/functions';
import { ROUTES as CONTRACT_ROUTES, type RouteSpec } from '../../shared/contract/routes';
import { listPeriodCosts } from '../../shared/store/period-costs.repo';
import type { HttpHandler } from '../../shared/http';
import { apiEvent, bodyOf } from '../support/test-event';
import { getCostPrices } from '../../shared/store/products.repo';
import { listSellers } from '../../shared/store/sellers.repo';
import { makeReport, newUser, uploadOk, type TestUser } from '../support/reports';

interface Route {
  method: string;
  path: string;
  handler: string;
  auth: boolean;
}

const root = path.resolve(__dirname, '../..');
/** Every route of the contract, with the handler of the function serving it (shared/contract/functions.ts). */
const ROUTES: Route[] = (Object.values(CONTRACT_ROUTES) as RouteSpec[]).map((r) => ({
  method: r.method,
  path: r.path,
  handler: FUNCTIONS[r.fn].handler,
  // Public: auth 'none' (sign-up, sign-in, confirm, reset, config, the OpenAPI document).
  auth: r.auth !== 'none',
}));

async function handlerOf(route: Route): Promise<HttpHandler> {
  const file = route.handler.replace(/\.handler$/, '');
  const mod = (await import(path.join(root, `${file}.ts`))) as { handler: HttpHandler };
  return mod.handler;
}

/** A request body each route accepts from its owner (so a refusal is about the id, not the body). */
const BODIES: Record<string, unknown> = {
  'PATCH /api/reports/{id}': { title: 'Чужой отчёт' },
  'PUT /api/reports/items/{item_id}/manual-value': { field: 'logistics', value: 1 },
  'PATCH /api/sellers/{id}': { name: 'Чужой продавец' },
  'PUT /api/period-costs/{id}': {
    name: 'Чужой расход',
    category: 'other',
    amount: 1,
    kind: 'one_off',
    date: '2026-01-01',
  },
};

/** Another id of the same shape: one character changed inside it (digits stay digits, letters letters). */
function madeUp(id: string): string {
  const i = Math.min(5, id.length - 1);
  const c = id[i]!;
  const next = /\d/.test(c)
    ? String((Number(c) + 1) % 10)
    : c === 'Z' || c === 'z'
      ? 'A'
      : String.fromCharCode(c.charCodeAt(0) + 1);
  return id.slice(0, i) + next + id.slice(i + 1);
}

interface Owned {
  owner: TestUser;
  reportId: string;
  itemId: string;
  sellerId: string;
  jobId: string;
  article: string;
  costId: string;
}

async function call(route: Route, token: string | null, params: Record<string, string>, rawAuth?: string) {
  const h = await handlerOf(route);
  let p = route.path;
  for (const [k, v] of Object.entries(params)) p = p.replace(`{${k}}`, encodeURIComponent(v));
  const key = `${route.method} ${route.path}`;
  const event = apiEvent({
    method: route.method,
    path: p,
    token: token ?? undefined,
    headers: rawAuth ? { authorization: rawAuth } : {},
    pathParameters: params,
    body: BODIES[key] ?? (route.method === 'GET' || route.method === 'DELETE' ? undefined : {}),
  });
  event.routeKey = key;
  return h(event);
}

describe('cross-tenant attempts on every id-taking route (from the route table)', () => {
  let a: Owned;
  let intruder: TestUser;

  beforeAll(async () => {
    const owner = await newUser(100_000, 'security');
    intruder = await newUser(100_000, 'security');
    const first = await uploadOk(owner.token, makeReport({ rows: 120, seed: 1291 }));
    const second = await uploadOk(owner.token, makeReport({ rows: 120, seed: 1292 }));
    const [seller] = await listSellers(owner.id);
    const combineRoute = ROUTES.find((r) => r.method === 'POST' && r.path === '/api/reports/combine')!;
    const h = await handlerOf(combineRoute);
    const combined = await h(
      apiEvent({
        method: 'POST',
        path: '/api/reports/combine',
        token: owner.token,
        body: { report_ids: [first.id, second.id] },
      }),
    );
    const jobId = bodyOf<{ job_id: string }>(combined).job_id;
    const costRoute = ROUTES.find((r) => r.method === 'POST' && r.path === '/api/period-costs')!;
    const cost = await (
      await handlerOf(costRoute)
    )(
      apiEvent({
        method: 'POST',
        path: '/api/period-costs',
        token: owner.token,
        body: { name: 'Аренда', category: 'rent', amount: 100, kind: 'monthly', from_month: '2026-01' },
      }),
    );
    const costId = bodyOf<{ id: string }>(cost).id;
    a = {
      costId,
      owner,
      reportId: first.id,
      itemId: first.items[0]!.item_id,
      sellerId: seller!.id,
      jobId,
      article: first.items[0]!.article,
    };
  });

  const idRoutes = ROUTES.filter((r) => /\{[a-z_]+\}/.test(r.path));

  it('the route table has id-taking routes, each of a known id kind', () => {
    expect(idRoutes.length).toBeGreaterThanOrEqual(8);
    for (const r of idRoutes) {
      const kind = /\{([a-z_]+)\}/.exec(r.path)![1];
      expect(['id', 'item_id', 'job_id', 'article'], `${r.method} ${r.path}`).toContain(kind);
    }
  });

  it.each(idRoutes.filter((r) => !r.path.includes('{article}')).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: a foreign id is answered exactly as a made-up one',
    async (_, route) => {
      const kind = /\{([a-z_]+)\}/.exec(route.path)![1];
      const foreign =
        kind === 'item_id'
          ? a.itemId
          : kind === 'job_id'
            ? a.jobId
            : route.path.startsWith('/api/sellers')
              ? a.sellerId
              : route.path.startsWith('/api/period-costs')
                ? a.costId
                : a.reportId;
      const other = madeUp(foreign);
      const r1 = await call(route, intruder.token, { [kind!]: foreign });
      const r2 = await call(route, intruder.token, { [kind!]: other });
      expect(r1.statusCode, `${route.method} ${route.path}`).toBeGreaterThanOrEqual(400);
      expect(r1.statusCode).toBeLessThan(500);
      // An answer may echo the id asked for; apart from that, byte for byte the same.
      expect({ status: r1.statusCode, body: r1.body?.split(foreign).join('<id>') }).toEqual({
        status: r2.statusCode,
        body: r2.body?.split(other).join('<id>'),
      });
    },
  );

  it("the owner's report, item, seller and catalog are unchanged afterwards", async () => {
    const get = ROUTES.find((r) => r.method === 'GET' && r.path === '/api/reports/{id}')!;
    const r = await call(get, a.owner.token, { id: a.reportId });
    expect(r.statusCode).toBe(200);
    const report = bodyOf<{
      report: { title: string; items: Array<{ item_id: string; manual_values: Record<string, unknown> }> };
    }>(r).report;
    expect(report.title).not.toBe('Чужой отчёт');
    expect(report.items.find((i) => i.item_id === a.itemId)?.manual_values).toEqual({});
    expect((await listSellers(a.owner.id)).find((s) => s.id === a.sellerId)?.name).not.toBe('Чужой продавец');
    // The owner's period cost is still there, unchanged (neither replaced nor deleted by the intruder).
    const costs = (await listPeriodCosts(a.owner.id)).find((c) => c.id === a.costId);
    expect(costs?.name).toBe('Аренда');
    // A product path names the caller's own catalog: the intruder's PUT creates the intruder's entry.
    const put = ROUTES.find((x) => x.method === 'PUT' && x.path === '/api/products/{article}')!;
    const before = await getCostPrices(a.owner.id, [a.article]);
    const h = await handlerOf(put);
    const event = apiEvent({
      method: 'PUT',
      path: `/api/products/${encodeURIComponent(a.article)}`,
      token: intruder.token,
      pathParameters: { article: a.article },
      body: { cost_price: 999 },
    });
    expect((await h(event)).statusCode).toBeLessThan(300);
    expect(await getCostPrices(a.owner.id, [a.article])).toEqual(before);
    expect(await getCostPrices(intruder.id, [a.article])).toEqual({ [a.article]: 99_900 });
  });
});

describe('forged and misused tokens on every authenticated route (from the route table)', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await newUser(1000, 'security');
  });

  const forgeries = (): Array<[string, string]> => {
    const secret = getConfig().JWT_SECRET!;
    const base = { user_id: user.id, scenario: 'access' };
    const [h, p] = signToken({ user_id: user.id }, 'access').split('.');
    return [
      ['no token', ''],
      ['garbage', 'Bearer not.a.jwt'],
      ['alg none', `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`],
      ['wrong secret', `Bearer ${jwt.sign(base, 'another-secret-of-enough-length', { algorithm: 'HS256' })}`],
      ['HS512 with the right secret', `Bearer ${jwt.sign(base, secret, { algorithm: 'HS512' })}`],
      [
        'expired',
        `Bearer ${jwt.sign({ ...base, exp: Math.floor(Date.now() / 1000) - 60 }, secret, { algorithm: 'HS256' })}`,
      ],
      ['confirm-link token', `Bearer ${signToken({ user_id: user.id }, 'confirm')}`],
      ['reset-link token', `Bearer ${signToken({ user_id: user.id }, 'reset')}`],
      ['unknown user', `Bearer ${signToken({ user_id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ' }, 'access')}`],
      [
        'tampered payload',
        `Bearer ${h}.${Buffer.from(JSON.stringify({ ...base, user_id: 'x' })).toString('base64url')}.AAAA`,
      ],
    ];
  };

  it('every authenticated route answers 401 to each forgery', async () => {
    const authRoutes = ROUTES.filter((r) => r.auth);
    expect(authRoutes.length).toBeGreaterThanOrEqual(20);
    const failures: string[] = [];
    for (const route of authRoutes) {
      for (const [name, header] of forgeries()) {
        const params: Record<string, string> = {};
        for (const m of route.path.matchAll(/\{([a-z_]+)\}/g)) params[m[1]!] = 'X';
        const r = await call(route, null, params, header || undefined);
        if (r.statusCode !== 401) failures.push(`${route.method} ${route.path} with ${name}: ${r.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
