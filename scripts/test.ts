/**
 * `npm test`: every check in order — typecheck, lint, format, import cycles (madge), unused exports
 * and dependencies (knip), unit, web components, integration
 * (emulators), security (hostile requests and files), HTTP end-to-end (serverless-offline) and browser
 * (Chromium) suites — then one plain line `N passed, N failed` that CI reads. Typecheck, lint, the
 * format check, the cycle check and knip count as one test each.
 * Exits non-zero when anything failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
// The Node the suites run on: the pinned `node-linux-*` package (package.json optionalDependencies), which
// `npm test` finds first on PATH (node_modules/.bin/node), the major Lambda runs (nodejs24.x).
console.log(`Node ${process.versions.node} (${process.execPath})`);
const outDir = path.join(root, 'test-artifacts', 'results');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

let passed = 0;
let failed = 0;
const lines: string[] = [];

function run(cmd: string, args: string[]): number {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  return r.status ?? 1;
}

function step(name: string, cmd: string, args: string[]): void {
  console.log(`\n=== ${name} ===`);
  const code = run(cmd, args);
  if (code === 0) passed++;
  else failed++;
  lines.push(`${name}: ${code === 0 ? 'ok' : 'FAILED'}`);
}

function vitest(project: string): void {
  console.log(`\n=== vitest: ${project} ===`);
  const out = path.join(outDir, `${project}.json`);
  const code = run('npx', [
    'vitest',
    'run',
    '--project',
    project,
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${out}`,
  ]);
  if (!existsSync(out)) {
    failed++;
    lines.push(`${project}: FAILED (no results, exit ${code})`);
    return;
  }
  const r = JSON.parse(readFileSync(out, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numTotalTests: number;
    testResults: Array<{ status: string; message?: string }>;
  };
  // A suite that failed to load counts as a failure even when it reported no test.
  const brokenSuites = r.testResults.filter((t) => t.status === 'failed' && t.message).length;
  const f =
    r.numFailedTests +
    (r.numFailedTests === 0 ? brokenSuites : 0) +
    (code !== 0 && r.numFailedTests === 0 && brokenSuites === 0 ? 1 : 0);
  passed += r.numPassedTests;
  failed += f;
  lines.push(`${project}: ${r.numPassedTests} passed, ${f} failed`);
}

step('typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
step('typecheck web', 'npx', ['tsc', '-p', 'web/tsconfig.json', '--noEmit']);
step('lint', 'npx', ['eslint', '.']);
step('format', 'npx', ['prettier', '--check', '**/*.{ts,tsx,js}']);
step('cycles', 'npm', ['run', '--silent', 'cycles']);
step('unused exports', 'npm', ['run', '--silent', 'knip']);
const only = process.env.TEST_PROJECTS?.split(',');
for (const p of ['unit', 'web', 'integration', 'security', 'e2e', 'browser']) {
  if (!only || only.includes(p)) vitest(p);
}

console.log('\n' + lines.join('\n'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
