/**
 * npm run bench:cashflow [-- --weeks 52 --purchases 500 --readings 730 --runs 5]
 *
 * The cash flow at a big seller's size on DynamoDB Local (started on free ports): `--weeks` weekly
 * reports (the record with its totals, as bench-pnl.ts stores them; the cash flow reads totals, never
 * items), 12 period costs, `--purchases` purchases spread over the year and `--readings` kept readings of
 * WB's balance (about two a day: the sync keeps changes and one a day); then times GET /api/cash-flow over
 * the year through the real handler and its XLSX export. Prints a table (median and max of `--runs` runs)
 * and the median's ratio to the target (0.5 s for the answer).
 */
import { performance } from 'node:perf_hooks';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { benchCli, loadLine, timeRuns } from './local/bench-shell';
import { randomWeekItems, weekDates, weekReportRecord } from './bench-weeks';
import { mulberry32 as rng } from './fixtures/random';

const TARGET_S = 0.5;

async function bench(opts: { weeks: number; purchases: number; readings: number; runs: number }) {
  const { ddb, tableName } = await import('../shared/store/client');
  const { createUser } = await import('../shared/store/users.repo');
  const { ensureSellerByNumber } = await import('../shared/store/sellers.repo');
  const { newReportId, toItem } = await import('../shared/store/report-record');
  const { writeItems } = await import('../shared/store/items.repo');
  const { putPeriodCost } = await import('../shared/store/period-costs.repo');
  const { putPurchases } = await import('../shared/store/purchases.repo');
  const { putBalance } = await import('../shared/store/wb-balance.repo');
  const { signToken } = await import('../shared/auth/tokens');
  const { apiEvent } = await import('../test/support/test-event');
  const { handler: cashFlowHandler } = await import('../functions/cashflow/get.handler');
  const { handler: exportHandler } = await import('../functions/cashflow/export.handler');

  const setup0 = performance.now();
  const user = await createUser({ email: `bench-cashflow-${Date.now()}@example.com`, confirmed: true, limits: 0 });
  const seller = await ensureSellerByNumber(user.id, '4242426');
  const monday0 = Date.UTC(2025, 11, 29);
  const r = rng(7);
  const names = Array.from({ length: 20 }, (_, i) => `ART-${i}`);
  for (let w = 0; w < opts.weeks; w++) {
    const items = randomWeekItems(r, names, { minSales: 1 });
    const { from, to } = weekDates(monday0, w);
    const id = newReportId();
    await writeItems(user.id, id, 1, items);
    const record = weekReportRecord({
      id,
      userId: user.id,
      sellerId: seller.id,
      reportNumber: String(920000000 + w),
      from,
      to,
      rows: 80,
      items,
    });
    await ddb().send(new PutCommand({ TableName: tableName(), Item: toItem({ ...record, status: 'ready' }) }));
  }
  const now = new Date().toISOString();
  for (let m = 1; m <= 12; m++)
    await putPeriodCost(user.id, {
      id: newReportId(),
      seller_id: seller.id,
      name: `Аренда ${m}`,
      category: 'rent',
      amount: 5_000_000,
      kind: 'monthly',
      from_month: `2026-${String(m).padStart(2, '0')}`,
      to_month: `2026-${String(m).padStart(2, '0')}`,
      date: null,
      created_at: now,
      updated_at: now,
    });
  const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
  await putPurchases(
    user.id,
    Array.from({ length: opts.purchases }, (_, i) => ({
      id: newReportId(),
      seller_id: seller.id,
      date: day(Math.floor(r() * 365)),
      amount: 100_00 + Math.floor(r() * 10_000_000),
      article: null,
      quantity: null,
      comment: `Закупка ${i}`,
      created_at: now,
      updated_at: now,
    })),
  );
  let forWithdraw = 50_000_00;
  for (let i = 0; i < opts.readings; i++) {
    forWithdraw = Math.max(0, forWithdraw + Math.floor((r() - 0.45) * 2_000_000));
    await putBalance(user.id, {
      wb_seller_id: '4242426',
      connection_id: 'bench',
      currency: 'RUB',
      current: forWithdraw + 1_000_000,
      for_withdraw: forWithdraw,
      as_of: new Date(Date.UTC(2026, 0, 1) + i * 12 * 3_600_000).toISOString(),
    });
  }
  const setup_s = (performance.now() - setup0) / 1000;

  const token = signToken({ user_id: user.id }, 'access');
  const query = { from: '2026-01', to: '2026-12', seller_id: seller.id };
  const cases: Array<{ what: string; target: number | null; run: () => Promise<unknown> }> = [
    {
      what: 'GET /api/cash-flow (12 months)',
      target: TARGET_S,
      run: async () => {
        const res = await cashFlowHandler(apiEvent({ method: 'GET', path: '/api/cash-flow', token, query }));
        if (res.statusCode !== 200) throw new Error(`cash flow answered ${res.statusCode}: ${res.body}`);
        const body = JSON.parse(res.body ?? '{}') as { payouts?: unknown[] };
        if (!body.payouts?.length) throw new Error('no payouts');
        return res;
      },
    },
    {
      what: 'GET /api/cash-flow/export (12 months, XLSX)',
      target: null,
      run: async () => {
        const res = await exportHandler(apiEvent({ method: 'GET', path: '/api/cash-flow/export', token, query }));
        if (res.statusCode !== 200) throw new Error(`export answered ${res.statusCode}`);
        return res;
      },
    },
  ];
  const rows: string[] = [];
  for (const c of cases) {
    const t = await timeRuns(c.run, opts.runs);
    const ratio = c.target === null ? '—' : `${(t.median_s / c.target).toFixed(2)}× of ${c.target} s`;
    rows.push(`| ${c.what} | ${t.median_s.toFixed(3)} | ${t.max_s.toFixed(3)} | ${t.cpu_s.toFixed(3)} | ${ratio} |`);
  }
  return [
    `${opts.weeks} weekly reports, 12 period costs, ${opts.purchases} purchases, ${opts.readings} balance readings; setup ${setup_s.toFixed(1)} s`,
    '',
    '| request | median wall s | max wall s | median CPU s | median / target |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    loadLine(),
  ].join('\n');
}

if (require.main === module)
  benchCli('npm run bench:cashflow', { weeks: '52', purchases: '500', readings: '730', runs: '5' }, bench);
