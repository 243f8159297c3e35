import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionEntries, FUNCTIONS } from '../../shared/contract/functions';
import { ROUTES, type RouteSpec } from '../../shared/contract/routes';
import { BASE_FILE, renderServerlessYml, ROOT, routeLogicalId, statementsOf, TARGET_FILE } from './render';

const oslsRequire = createRequire(require.resolve('osls/package.json'));
/** YAML as osls reads it. */
const yaml = oslsRequire('js-yaml') as { load(text: string): unknown };

interface Config {
  functions: Record<
    string,
    { handler: string; role: string; events?: Array<{ httpApi?: { method: string; path: string }; schedule?: string }> }
  >;
  resources: { Resources: Record<string, { Type: string }> };
}

describe('serverless.yml', () => {
  it('is what the generator writes (run `npm run serverless:generate` after changing the declarations or serverless.base.yml)', () => {
    expect(readFileSync(TARGET_FILE, 'utf8')).toBe(renderServerlessYml());
  });

  it('declares every function of shared/contract/functions.ts with the HTTP events of the routes naming it, and its own role', () => {
    const config = yaml.load(renderServerlessYml()) as Config;
    expect(Object.keys(config.functions)).toEqual(Object.keys(FUNCTIONS));
    const events: string[] = [];
    for (const [fn, def] of Object.entries(config.functions)) {
      expect(def.role, fn).toBe(`${fn[0]!.toUpperCase()}${fn.slice(1)}Role`);
      expect(config.resources.Resources[def.role]?.Type, fn).toBe('AWS::IAM::Role');
      for (const e of def.events ?? []) if (e.httpApi) events.push(`${fn} ${e.httpApi.method} ${e.httpApi.path}`);
    }
    const routes = Object.values(ROUTES) as RouteSpec[];
    expect(events.sort()).toEqual(routes.map((r) => `${r.fn} ${r.method} ${r.path}`).sort());
    // One role per function, and no other role.
    const roles = Object.entries(config.resources.Resources).filter(([, r]) => r.Type === 'AWS::IAM::Role');
    expect(roles).toHaveLength(Object.keys(FUNCTIONS).length);
  });

  it('keeps the hand-written base free of what the declarations generate', () => {
    const base = yaml.load(readFileSync(BASE_FILE, 'utf8')) as Partial<Config> & {
      resources: { extensions: { HttpApiStage: Record<string, unknown> } };
    };
    expect(base.functions).toBeUndefined();
    expect(Object.values(base.resources!.Resources).filter((r) => r.Type === 'AWS::IAM::Role')).toEqual([]);
    expect(base.resources.extensions.HttpApiStage.DependsOn).toBeUndefined();
  });

  it('refuses a base with an unknown or a missing section', () => {
    const base = readFileSync(BASE_FILE, 'utf8');
    expect(() => renderServerlessYml(`${base}\n# @generated nothing-such\n`)).toThrow(/unknown section "nothing-such"/);
    expect(() => renderServerlessYml(base.replace(/^# @generated functions.*$/m, ''))).toThrow(
      /no marker for functions/,
    );
  });

  it('names routes as osls does (the stage DependsOn must name real resources)', () => {
    const naming = oslsRequire('./lib/plugins/aws/lib/naming.js') as {
      getHttpApiRouteLogicalId(this: unknown, key: string): string;
    };
    for (const r of Object.values(ROUTES) as RouteSpec[]) {
      const key = `${r.method} ${r.path}`;
      expect(routeLogicalId(key), key).toBe(naming.getHttpApiRouteLogicalId.call(naming, key));
    }
  });
});

describe('the function declarations', () => {
  it('point at handler modules that exist', () => {
    for (const [fn, spec] of functionEntries()) {
      expect(spec.handler, fn).toMatch(/^functions\/[a-z-]+\/[a-z-]+\.handler\.handler$/);
      expect(existsSync(path.join(ROOT, `${spec.handler.replace(/\.handler$/, '')}.ts`)), fn).toBe(true);
      for (const f of spec.files ?? []) expect(existsSync(path.join(ROOT, f)), `${fn}: ${f}`).toBe(true);
    }
  });

  it('leave no function unreachable: each serves a route, runs on a schedule or is invoked by another', () => {
    const routed = new Set((Object.values(ROUTES) as RouteSpec[]).map((r) => r.fn as string));
    const invoked = new Set(functionEntries().flatMap(([, s]) => s.access.invoke ?? []));
    for (const [fn, spec] of functionEntries())
      expect(routed.has(fn) || invoked.has(fn) || spec.schedule !== undefined, fn).toBe(true);
  });

  it('grant the log group first, and only Allow, on every role', () => {
    for (const [fn, spec] of functionEntries()) {
      const st = statementsOf(fn, spec);
      expect(st[0]!.Action, fn).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(st.every((s) => s.Effect === 'Allow')).toBe(true);
    }
  });

  it('invoke only declared functions', () => {
    expect(() => statementsOf('x', { handler: 'h', access: { invoke: ['nothingSuch'] } })).toThrow(/does not declare/);
  });
});
