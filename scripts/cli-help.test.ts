import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

// Every command-line tool of the project answers --help with its usage, exit 0, and touches nothing.
describe('CLI --help', () => {
  it.each([
    ['report', 'scripts/report-cli.ts', 'npm run report -- <file>'],
    ['fixtures', 'scripts/fixtures.ts', '--rows N'],
    ['admin', 'scripts/admin.ts', 'npm run admin -- grant <email>'],
    ['digest', 'scripts/digest.ts', 'npm run digest -- --now'],
    ['bench', 'scripts/bench.ts', 'npm run bench'],
    ['bench:page', 'scripts/bench-page.ts', 'npm run bench:page'],
    ['bench:load', 'scripts/bench-load.ts', 'npm run bench:load'],
    ['bench:sync', 'scripts/bench-sync.ts', 'npm run bench:sync'],
    ['bench:pnl', 'scripts/bench-pnl.ts', 'npm run bench:pnl'],
    ['bench:cashflow', 'scripts/bench-cashflow.ts', 'npm run bench:cashflow'],
    ['bench:analytics', 'scripts/bench-analytics.ts', 'npm run bench:analytics'],
    ['bench:digest', 'scripts/bench-digest.ts', 'npm run bench:digest'],
    ['serverless:generate', 'scripts/serverless/generate.ts', 'npm run serverless:generate'],
  ])('%s --help prints its usage', (_name, script, expected) => {
    const r = spawnSync(tsx, [script, '--help'], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage:/);
    expect(r.stdout).toContain(expected);
  });
});
