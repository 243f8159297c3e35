/**
 * npm run openapi: writes docs/openapi.json and the route table of docs/API.md (between its routes
 * markers) from the contract (shared/contract). `--check` only compares and exits 1 when either
 * committed file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withRoutes } from '../shared/contract/api-md';
import { openApiText } from '../shared/contract/openapi';

const USAGE = `Usage: npm run openapi [-- --check]

Writes docs/openapi.json (OpenAPI 3.1) and the route table of docs/API.md from the contract in shared/contract.
  --check   do not write; exit 1 when docs/openapi.json or docs/API.md differs from the contract
  --help    this text`;

const target = path.join(__dirname, '..', 'docs', 'openapi.json');
const apiMd = path.join(__dirname, '..', 'docs', 'API.md');
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
} else if (args.some((a) => a !== '--check')) {
  console.error(`Unknown option: ${args.find((a) => a !== '--check')}\n\n${USAGE}`);
  process.exit(2);
} else if (args.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: out of date
  }
  if (current !== openApiText()) {
    console.error('docs/openapi.json is out of date: run npm run openapi');
    process.exit(1);
  }
  const md = readFileSync(apiMd, 'utf8');
  if (md !== withRoutes(md)) {
    console.error('docs/API.md (its route table) is out of date: run npm run openapi');
    process.exit(1);
  }
  console.log('docs/openapi.json and docs/API.md are current');
} else {
  writeFileSync(target, openApiText());
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
  writeFileSync(apiMd, withRoutes(readFileSync(apiMd, 'utf8')));
  console.log(`wrote the route table of ${path.relative(process.cwd(), apiMd)}`);
}
