/**
 * npm run bench:pnl [-- --weeks 52 --articles 5000 --runs 5]
 *
 * The P&L at a big seller's size on DynamoDB Local (started on free ports): `--weeks` weekly reports of
 * `--articles` articles each (items built by the engine from random aggregates and stored as chunks, the
 * report records with their totals through the repository), 12 monthly period costs; then times
 * GET /api/pnl over the year through the real handler (it reads the report records' totals, no items),
 * GET /api/pnl/export, and — for comparison, the road not taken — reading every report's items and
 * summing them. Prints a table (median and max of `--runs` runs).
 */
import { performance } from 'node:perf_hooks';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { benchCli, loadLine, timeRuns } from './local/bench-shell';
import { randomWeekItems, weekDates, weekReportRecord } from './bench-weeks';
import { mulberry32 as rng } from './fixtures/random';

async function bench(opts: { weeks: number; articles: number; runs: number }) {
  const { ddb, tableName } = await import('../shared/store/client');
  const { createUser } = await import('../shared/store/users.repo');
  const { ensureSellerByNumber } = await import('../shared/store/sellers.repo');
  const { newReportId, toItem } = await import('../shared/store/report-record');
  const { writeItems, getItemsOfGen } = await import('../shared/store/items.repo');
  const { putPeriodCost } = await import('../shared/store/period-costs.repo');
  const { signToken } = await import('../shared/auth/tokens');
  const { apiEvent } = await import('../test/support/test-event');
  const { handler: pnlHandler } = await import('../functions/pnl/get.handler');
  const { handler: exportHandler } = await import('../functions/pnl/export.handler');

  const setup0 = performance.now();
  const user = await createUser({ email: `bench-pnl-${Date.now()}@example.com`, confirmed: true, limits: 0 });
  const seller = await ensureSellerByNumber(user.id, '4242425');
  const names = Array.from({ length: opts.articles }, (_, i) => `ART-${String(i).padStart(5, '0')}`);
  const monday0 = Date.UTC(2025, 11, 29); // weeks from 29.12.2025: the first and several others straddle months
  const ids: string[] = [];
  for (let w = 0; w < opts.weeks; w++) {
    const r = rng(w + 1);
    const items = randomWeekItems(r, names, { nmId: () => String(100000 + w) });
    const { from, to } = weekDates(monday0, w);
    const id = newReportId();
    ids.push(id);
    await writeItems(user.id, id, 1, items);
    const record = weekReportRecord({
      id,
      userId: user.id,
      sellerId: seller.id,
      reportNumber: String(910000000 + w),
      from,
      to,
      rows: opts.articles * 4,
      items,
    });
    await ddb().send(new PutCommand({ TableName: tableName(), Item: toItem({ ...record, status: 'ready' }) }));
  }
  const now = new Date().toISOString();
  for (let m = 1; m <= 12; m++)
    await putPeriodCost(user.id, {
      id: newReportId(),
      seller_id: seller.id,
      name: `Зарплата ${m}`,
      category: 'salaries',
      amount: 10_000_000,
      kind: 'one_off',
      from_month: null,
      to_month: null,
      date: `2026-${String(m).padStart(2, '0')}-05`,
      created_at: now,
      updated_at: now,
    });
  const setup_s = (performance.now() - setup0) / 1000;

  const token = signToken({ user_id: user.id }, 'access');
  const query = { from: '2026-01', to: '2026-12', seller_id: seller.id };
  const cases: Array<{ what: string; run: () => Promise<unknown> }> = [
    {
      what: 'GET /api/pnl (12 months, report totals)',
      run: async () => {
        const r = await pnlHandler(apiEvent({ method: 'GET', path: '/api/pnl', token, query }));
        if (r.statusCode !== 200) throw new Error(`pnl answered ${r.statusCode}: ${r.body}`);
        return r;
      },
    },
    {
      what: 'GET /api/pnl/export (12 months, XLSX)',
      run: async () => {
        const r = await exportHandler(apiEvent({ method: 'GET', path: '/api/pnl/export', token, query }));
        if (r.statusCode !== 200) throw new Error(`export answered ${r.statusCode}`);
        return r;
      },
    },
    {
      what: `for comparison: read and sum every report's items (${opts.weeks} × ${opts.articles})`,
      run: async () => {
        let sum = 0;
        for (const id of ids)
          for (const it of await getItemsOfGen(user.id, id, 1)) sum += it.effective.realization ?? 0;
        return sum;
      },
    },
  ];
  const rows: string[] = [];
  for (const c of cases) {
    const t = await timeRuns(c.run, opts.runs);
    rows.push(`| ${c.what} | ${t.median_s.toFixed(3)} | ${t.max_s.toFixed(3)} | ${t.cpu_s.toFixed(3)} |`);
  }
  return [
    `${opts.weeks} weekly reports × ${opts.articles} articles, 12 period costs; setup ${setup_s.toFixed(1)} s`,
    '',
    '| request | median wall s | max wall s | median CPU s |',
    '|---|---|---|---|',
    ...rows,
    '',
    loadLine(),
  ].join('\n');
}

if (require.main === module) benchCli('npm run bench:pnl', { weeks: '52', articles: '5000', runs: '5' }, bench);
