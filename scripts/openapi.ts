/**
 * npm run openapi: writes docs/openapi.json and the route table of docs/API.md (between its routes
 * markers) from the contract (shared/contract). `--check` only compares and exits 1 when either
 * committed file is out of date.
 */
import path from 'node:path';
import { withRoutes } from '../shared/contract/api-md';
import { openApiText } from '../shared/contract/openapi';
import { runGenerator } from './generated-files';

const USAGE = `Usage: npm run openapi [-- --check]

Writes docs/openapi.json (OpenAPI 3.1) and the route table of docs/API.md from the contract in shared/contract.
  --check   do not write; exit 1 when docs/openapi.json or docs/API.md differs from the contract
  --help    this text`;

runGenerator(
  USAGE,
  [
    {
      path: path.join(__dirname, '..', 'docs', 'openapi.json'),
      render: () => openApiText(),
      stale: 'docs/openapi.json is out of date: run npm run openapi',
      wrote: 'wrote %s',
    },
    {
      path: path.join(__dirname, '..', 'docs', 'API.md'),
      render: (md) => withRoutes(md),
      stale: 'docs/API.md (its route table) is out of date: run npm run openapi',
      wrote: 'wrote the route table of %s',
    },
  ],
  'docs/openapi.json and docs/API.md are current',
);
