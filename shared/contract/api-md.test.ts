import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES_END, ROUTES_START, routesMarkdown, withRoutes } from './api-md';
import { ROUTES } from './routes';

const root = path.join(__dirname, '..', '..');

describe('the route table of docs/API.md', () => {
  it('is what the contract generates (run `npm run openapi` after changing shared/contract)', () => {
    const doc = readFileSync(path.join(root, 'docs', 'API.md'), 'utf8');
    expect(doc).toContain(ROUTES_START);
    expect(doc).toBe(withRoutes(doc));
  });

  it('has a row per route with its error codes, and leaves the prose around the markers alone', () => {
    const table = routesMarkdown();
    for (const r of Object.values(ROUTES)) expect(table).toContain(`\`${r.method} ${r.path}\``);
    expect(table).toMatch(/`POST \/api\/reports\/summary-export`.*422 `overlapping_reports`/);
    const doc = `before\n${ROUTES_START}\nstale\n${ROUTES_END}\nafter\n`;
    const out = withRoutes(doc);
    expect(out.startsWith(`before\n${ROUTES_START}\n`)).toBe(true);
    expect(out.endsWith(`${ROUTES_END}\nafter\n`)).toBe(true);
    expect(out).not.toContain('stale');
    expect(withRoutes(out)).toBe(out);
    expect(() => withRoutes('no markers')).toThrow(/markers/);
  });
});
