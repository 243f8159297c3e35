/**
 * npm run serverless:generate: writes serverless.yml from serverless.base.yml and the declarations in
 * shared/contract (functions.ts, routes.ts); how, and how to extend it: scripts/serverless/render.ts.
 * `--check` only compares and exits 1 when the committed file is out of date.
 */
import { runGenerator } from '../generated-files';
import { renderServerlessYml, TARGET_FILE } from './render';

const USAGE = `usage: npm run serverless:generate [-- --check]

Writes serverless.yml from serverless.base.yml, shared/contract/functions.ts and shared/contract/routes.ts.
  --check   do not write; exit 1 when serverless.yml differs from what would be written
  --help    this text`;

runGenerator(
  USAGE,
  [
    {
      path: TARGET_FILE,
      render: () => renderServerlessYml(),
      stale: 'serverless.yml is out of date: run npm run serverless:generate',
      wrote: 'wrote %s',
    },
  ],
  'serverless.yml is current',
);
