/**
 * Many sellers at once over real HTTP (serverless-offline serving the bundled handlers, the worker
 * invoked through its Lambda endpoint, DynamoDB Local, s3rver): 10 sellers each upload two small
 * generated weeks the way the web app does (upload-url, presigned PUT, count-rows, upload by upload_id)
 * and read them back (GET report, the list), all at the same time. Asserted: no 5xx on any request and
 * every report ready. Timings are not asserted (a shared machine); `npm run bench:load` prints them for
 * 50 sellers (docs/PERFORMANCE.md, "Load").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad, summarize } from '../../scripts/load/sellers';
import { signToken } from '../../shared/auth/tokens';
import { createUser } from '../../shared/store/users.repo';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('10 sellers at once', () => {
  it('upload two weeks each and read them: no 5xx, every report ready', async () => {
    const sellers = 10;
    const weeks = 2;
    const tokens: string[] = [];
    for (let i = 0; i < sellers; i++) {
      const u = await createUser({ email: `load-${i}-${Date.now()}@example.com`, confirmed: true, limits: 1_000_000 });
      tokens.push(signToken({ user_id: u.id }, 'access'));
    }
    const r = await runLoad({ apiUrl: stack.offline.apiUrl, tokens, weeks, rows: 400, reads: 1, deadlineMs: 240_000 });
    const fivexx = r.calls.filter((c) => c.status >= 500);
    expect(fivexx).toEqual([]);
    expect(r.failures).toEqual([]);
    expect(r.timedOut).toBe(false);
    expect(r.ready.map((x) => x.length)).toEqual(Array(sellers).fill(weeks));
    // Every route of the flow was exercised, by every seller.
    const routes = summarize(r.calls);
    for (const route of ['upload-url', 'PUT (S3)', 'count-rows', 'upload', 'GET report', 'GET list'])
      expect(routes.find((x) => x.route === route)?.n).toBeGreaterThanOrEqual(sellers * weeks);
  }, 300_000);
});
