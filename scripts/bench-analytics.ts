/**
 * npm run bench:analytics [-- --weeks 52 --articles 5000 --runs 5]
 *
 * Period analytics at a big seller's size on the local stack: starts DynamoDB Local (and the other
 * emulators) on free ports, creates a user with `--weeks` weekly reports of `--articles` articles each
 * (items built by the engine from random aggregates; report records through the repository; summaries
 * through writeReportSummary, the call uploads make) and a catalog of every article, then times
 * GET /api/analytics through the real handler (auth, user read, one Query each of reports, summaries,
 * catalog and sellers, the math, JSON with gzip) for the default range, the whole year, the year with a
 * seller filter and with one article's history, and GET /api/analytics/export. Prints a table (median
 * and max of `--runs` runs) and, last, one line `analytics 52w x 5000 articles: <median> s` for
 * `npm run bench:api`. Exported as benchAnalytics() for that script.
 */
import { performance } from 'node:perf_hooks';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { benchCli, loadLine, timeRuns, type Timed } from './local/bench-shell';
import { weekDates, weekReportRecord } from './bench-weeks';
import { mulberry32 as rng } from './fixtures/random';

export interface AnalyticsBenchRow extends Omit<Timed<unknown>, 'last'> {
  what: string;
  bytes: number;
}

export interface AnalyticsBenchResult {
  weeks: number;
  articles: number;
  setup_s: number;
  summary_kb: number;
  rows: AnalyticsBenchRow[];
  /** The bench user's access token and the whole range, to time the same request over HTTP. */
  token: string;
  from: string;
  to: string;
}

/** Needs the emulators' environment in process.env (startEmulators or a running stack). */
export async function benchAnalytics(opts: {
  weeks: number;
  articles: number;
  runs: number;
}): Promise<AnalyticsBenchResult> {
  const { ddb, tableName } = await import('../shared/store/client');
  const { createUser } = await import('../shared/store/users.repo');
  const { ensureSellerByNumber } = await import('../shared/store/sellers.repo');
  const { ensureProducts } = await import('../shared/store/products.repo');
  const { newReportId, toItem } = await import('../shared/store/report-record');
  const { buildItems, DEFAULT_TAX_PROFILE, AGGREGATE_FIELDS } = await import('../shared/engine');
  const { writeReportSummary } = await import('../shared/reports/analytics/analytics');
  const { summaryDeps } = await import('../shared/reports/read-deps');
  const { encodeChunks, summarizeItems } = await import('../shared/engine/analytics/summary');
  const { signToken } = await import('../shared/auth/tokens');
  const { apiEvent } = await import('../test/support/test-event');
  const { handler: getHandler } = await import('../functions/analytics/get.handler');
  const { handler: exportHandler } = await import('../functions/analytics/export.handler');

  const setup0 = performance.now();
  const user = await createUser({ email: `bench-analytics-${Date.now()}@example.com`, confirmed: true, limits: 0 });
  const seller = await ensureSellerByNumber(user.id, '4242424');
  const names = Array.from(
    { length: opts.articles },
    (_, i) => `ART-${String(i).padStart(5, '0')}-${i % 7 ? 'x' : 'платье'}`,
  );
  await ensureProducts(user.id, names);
  let summaryBytes = 0;
  const monday0 = Date.UTC(2025, 0, 6);
  for (let w = 0; w < opts.weeks; w++) {
    const r = rng(w + 1);
    const articles = names.map((article) => {
      const aggregates = Object.fromEntries(AGGREGATE_FIELDS.map((f) => [f.name, 0])) as Record<string, number>;
      const sales = Math.floor(r() * 20);
      const price = 50_000 + Math.floor(r() * 300_000);
      aggregates.sales_qty = sales;
      aggregates.returns_qty = Math.floor(r() * 3);
      aggregates.seller_price = sales * price;
      aggregates.sales_seller_price = sales * price;
      aggregates.realization = Math.round(sales * price * (0.7 + r() * 0.2));
      aggregates.commission = Math.round(aggregates.realization * 0.2);
      aggregates.acquiring = Math.round(aggregates.realization * 0.015);
      aggregates.for_pay = aggregates.realization - aggregates.commission - aggregates.acquiring;
      aggregates.logistics = Math.floor(r() * 30_000);
      aggregates.storage = Math.floor(r() * 5_000);
      return { article, category: 'Платья', nm_id: String(100000 + w), brand: 'Бренд', aggregates };
    });
    const { items } = buildItems({ articles: articles as never }, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
    const { from, to } = weekDates(monday0, w);
    const id = newReportId();
    const record = weekReportRecord({
      id,
      userId: user.id,
      sellerId: seller.id,
      reportNumber: String(900000000 + w),
      from,
      to,
      rows: opts.articles * 4,
      items,
    });
    // The record as an upload leaves it (ready); analytics reads its summary, not its items.
    await ddb().send(new PutCommand({ TableName: tableName(), Item: toItem({ ...record, status: 'ready' }) }));
    await writeReportSummary(summaryDeps, { ...record, version: 1 }, items);
    if (w === 0) summaryBytes = encodeChunks(summarizeItems(items).articles).reduce((s, c) => s + c.length, 0);
  }
  const setup_s = (performance.now() - setup0) / 1000;

  const token = signToken({ user_id: user.id }, 'access');
  const yearFrom = new Date(monday0).toISOString().slice(0, 10);
  const yearTo = new Date(monday0 + (opts.weeks * 7 - 1) * 86_400_000).toISOString().slice(0, 10);
  const cases: Array<{ what: string; run: () => Promise<{ statusCode?: number; body?: string }> }> = [
    {
      what: 'GET /api/analytics (default: last 12 weeks with reports)',
      run: () =>
        getHandler(apiEvent({ method: 'GET', path: '/api/analytics', token, headers: { 'accept-encoding': 'gzip' } })),
    },
    {
      what: `GET /api/analytics (${opts.weeks} weeks)`,
      run: () =>
        getHandler(
          apiEvent({
            method: 'GET',
            path: '/api/analytics',
            token,
            query: { from: yearFrom, to: yearTo },
            headers: { 'accept-encoding': 'gzip' },
          }),
        ),
    },
    {
      what: `GET /api/analytics (${opts.weeks} weeks, seller filter)`,
      run: () =>
        getHandler(
          apiEvent({
            method: 'GET',
            path: '/api/analytics',
            token,
            query: { from: yearFrom, to: yearTo, seller_id: seller.id },
            headers: { 'accept-encoding': 'gzip' },
          }),
        ),
    },
    {
      what: `GET /api/analytics (${opts.weeks} weeks + one article's history)`,
      run: () =>
        getHandler(
          apiEvent({
            method: 'GET',
            path: '/api/analytics',
            token,
            query: { from: yearFrom, to: yearTo, article: names[1]! },
            headers: { 'accept-encoding': 'gzip' },
          }),
        ),
    },
    {
      what: `GET /api/analytics/export (${opts.weeks} weeks, XLSX)`,
      run: () =>
        exportHandler(
          apiEvent({ method: 'GET', path: '/api/analytics/export', token, query: { from: yearFrom, to: yearTo } }),
        ),
    },
  ];
  const rows: AnalyticsBenchRow[] = [];
  for (const c of cases) {
    const { last: r, ...t } = await timeRuns(async () => {
      const r = await c.run();
      if (r.statusCode !== 200) throw new Error(`${c.what} answered ${r.statusCode}: ${(r.body ?? '').slice(0, 300)}`);
      return r;
    }, opts.runs);
    rows.push({ what: c.what, ...t, bytes: Buffer.byteLength(r.body ?? '', 'utf8') });
  }
  return {
    weeks: opts.weeks,
    articles: opts.articles,
    setup_s,
    summary_kb: summaryBytes / 1024,
    rows,
    token,
    from: yearFrom,
    to: yearTo,
  };
}

export function formatAnalyticsBench(r: AnalyticsBenchResult): string {
  const lines = [
    `${r.weeks} weekly reports × ${r.articles} articles; one summary ${r.summary_kb.toFixed(0)} KB (gzip JSON); setup ${r.setup_s.toFixed(1)} s`,
    '',
    '| request | median wall s | max wall s | median CPU s (handler process) | body (as sent) |',
    '|---|---|---|---|---|',
    ...r.rows.map(
      (x) =>
        `| ${x.what} | ${x.median_s.toFixed(3)} | ${x.max_s.toFixed(3)} | ${x.cpu_s.toFixed(3)} | ${(x.bytes / 1024).toFixed(0)} KB |`,
    ),
  ];
  const year = r.rows[1]!;
  lines.push('', loadLine());
  lines.push('', `analytics ${r.weeks}w x ${r.articles} articles: ${year.median_s.toFixed(3)} s (target ≤ 1 s)`);
  return lines.join('\n');
}

if (require.main === module)
  benchCli('npm run bench:analytics', { weeks: '52', articles: '5000', runs: '5' }, async (o) =>
    formatAnalyticsBench(await benchAnalytics(o)),
  );
