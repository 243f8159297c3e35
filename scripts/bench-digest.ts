/**
 * npm run bench:digest [-- --accounts 1000 --articles 100 --concurrency 16]
 *
 * The weekly digest for `--accounts` seller accounts on the local emulators (DynamoDB Local and the SES
 * emulator, started on free ports): each account with one weekly report of `--articles` articles (items
 * built by the engine, stored as chunks; the record through the repository), ready in the week before
 * Monday's run and on that run's roster. Times the digest run (shared/notifications/digest.ts: the
 * roster, each account's reports, items, stale check, the digest event) and the delivery ticks that mail
 * them; prints the total, the time per account and the Lambda time against the target (≤ 60 s in all).
 */
import { performance } from 'node:perf_hooks';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { benchCli } from './local/bench-shell';
import { randomWeekItems, weekReportRecord } from './bench-weeks';
import { mulberry32 as rng } from './fixtures/random';

const TARGET_S = 60;
/** A DynamoDB call's latency in the same region as the function (single-digit ms; 10 taken, pessimistic). */
const AWS_CALL_MS = 10;

async function bench(opts: { accounts: number; articles: number; concurrency: number }) {
  const { ddb, tableName } = await import('../shared/store/client');
  const { createUser } = await import('../shared/store/users.repo');
  const { ensureSellerByNumber } = await import('../shared/store/sellers.repo');
  const { newReportId, toItem } = await import('../shared/store/report-record');
  const { writeItems } = await import('../shared/store/items.repo');
  const { markForDigest } = await import('../shared/store/notifications.repo');
  const { isoWeek, lastDigestRun } = await import('../shared/notifications/rules');
  const { runDigest } = await import('../shared/notifications/digest');
  const { digestDeps } = await import('../shared/notifications/digest-deps');
  const { notificationsTick } = await import('../shared/notifications/deliver');
  const { deliverDeps } = await import('../shared/notifications/deliver-deps');
  const { manualClock } = await import('../shared/deps');

  // A Monday run a little after its hour; the reports became ready the day before.
  const run = lastDigestRun(Date.now());
  const clock = manualClock(run + 60_000);
  const week = isoWeek(run);
  const names = Array.from({ length: opts.articles }, (_, i) => `ART-${i}`);
  const setup0 = performance.now();
  for (let u = 0; u < opts.accounts; u++) {
    const r = rng(u + 1);
    const user = await createUser({ email: `bench-digest-${u}-${Date.now()}@example.com`, confirmed: true, limits: 0 });
    const seller = await ensureSellerByNumber(user.id, String(5_000_000 + u));
    const items = randomWeekItems(r, names);
    const id = newReportId();
    await writeItems(user.id, id, 1, items);
    const from = new Date(run - 7 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(run - 86_400_000).toISOString().slice(0, 10);
    const record = weekReportRecord({
      id,
      userId: user.id,
      sellerId: seller.id,
      reportNumber: String(920000000 + u),
      from,
      to,
      rows: opts.articles * 4,
      items,
    });
    const item = toItem({ ...record, status: 'ready', created_at: new Date(run - 86_400_000).toISOString() });
    await ddb().send(new PutCommand({ TableName: tableName(), Item: item }));
    await markForDigest(week, user.id);
  }
  const setupS = (performance.now() - setup0) / 1000;

  // Where the run's time goes: each dependency timed (summed over the accounts).
  const spent: Record<string, number> = {};
  const timed =
    <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const t = performance.now();
      try {
        return await f(...a);
      } finally {
        spent[name] = (spent[name] ?? 0) + performance.now() - t;
      }
    };
  const deps = {
    ...digestDeps,
    clock,
    users: { get: timed('user', digestDeps.users.get) },
    reportsIn: timed('reports', digestDeps.reportsIn),
    articleProfits: timed('items', digestDeps.articleProfits),
    staleReports: timed('stale check', digestDeps.staleReports),
    store: {
      digestUsers: timed('roster', digestDeps.store.digestUsers),
      getSettings: timed('settings', digestDeps.store.getSettings),
      putEvent: timed('event', digestDeps.store.putEvent),
    },
  };
  // Store calls of the run, counted on the client: the AWS estimate below is built from them.
  let calls = 0;
  ddb().middlewareStack.add(
    (next) => async (args) => {
      calls++;
      return next(args);
    },
    { step: 'initialize', name: 'benchDigestCallCounter' },
  );
  const t0 = performance.now();
  const result = await runDigest(deps, { concurrency: opts.concurrency });
  const runCalls = calls;
  const digestMs = performance.now() - t0;
  const t1 = performance.now();
  let sent = 0;
  for (let i = 0; i < 100; i++) {
    const t = await notificationsTick({ ...deliverDeps(), clock });
    sent += t.sent;
    if (t.expanded === 0 && t.sent + t.retried + t.failed === 0) break;
  }
  const mailMs = performance.now() - t1;
  const perAccount = digestMs / opts.accounts;
  return [
    `accounts: ${opts.accounts}, articles per report: ${opts.articles} (set up in ${setupS.toFixed(1)} s)`,
    `digest run: ${result.recorded} recorded in ${(digestMs / 1000).toFixed(1)} s — ${perAccount.toFixed(1)} ms per account`,
    `  of which (summed over concurrent accounts): ${Object.entries(spent)
      .map(([k, v]) => `${k} ${(v / opts.accounts).toFixed(1)} ms`)
      .join(', ')}`,
    `delivery ticks: ${sent} mails in ${(mailMs / 1000).toFixed(1)} s — ${(mailMs / Math.max(1, sent)).toFixed(1)} ms per mail`,
    `store calls: ${(runCalls / opts.accounts).toFixed(1)} per account; at ${AWS_CALL_MS} ms a call on DynamoDB, ${opts.concurrency} accounts at once: about ${((runCalls * AWS_CALL_MS) / opts.concurrency / 1000).toFixed(1)} s on AWS for the run`,
    `Lambda time of the digest run (measured on the emulators): ${(digestMs / 1000).toFixed(1)} s against the target ≤ ${TARGET_S} s: ${digestMs / 1000 <= TARGET_S ? 'within' : 'OVER'}`,
  ].join('\n');
}

if (require.main === module)
  benchCli('npm run bench:digest', { accounts: '1000', articles: '100', concurrency: '16' }, bench);
