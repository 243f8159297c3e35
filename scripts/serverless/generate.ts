/**
 * npm run serverless:generate: writes serverless.yml from serverless.base.yml and the declarations in
 * shared/contract (functions.ts, routes.ts); how, and how to extend it: scripts/serverless/render.ts.
 * `--check` only compares and exits 1 when the committed file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderServerlessYml, TARGET_FILE } from './render';

const USAGE = `usage: npm run serverless:generate [-- --check]

Writes serverless.yml from serverless.base.yml, shared/contract/functions.ts and shared/contract/routes.ts.
  --check   do not write; exit 1 when serverless.yml differs from what would be written
  --help    this text`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
} else if (args.some((a) => a !== '--check')) {
  console.error(`Unknown option: ${args.find((a) => a !== '--check')}\n\n${USAGE}`);
  process.exit(2);
} else if (args.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(TARGET_FILE, 'utf8');
  } catch {
    // missing: out of date
  }
  if (current !== renderServerlessYml()) {
    console.error('serverless.yml is out of date: run npm run serverless:generate');
    process.exit(1);
  }
  console.log('serverless.yml is current');
} else {
  writeFileSync(TARGET_FILE, renderServerlessYml());
  console.log(`wrote ${path.relative(process.cwd(), TARGET_FILE)}`);
}
