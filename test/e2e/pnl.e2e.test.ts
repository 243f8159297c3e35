/**
 * The P&L over real HTTP (serverless-offline, the bundled handlers, DynamoDB Local, s3rver): a seller
 * signs up by mail, uploads three weeks through the API — one straddling January and February 2026 —
 * and adds a monthly period cost; the P&L by month equals the test's own computation from the reports'
 * totals (test/support/pnl-expect.ts); the export opens. A second seller whose corrected realization
 * takes its 2026 income past 20 M ₽ gets the threshold warning with the month VAT applies from.
 */
import { randomUUID } from 'node:crypto';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import type { ApiReport } from '../../shared/reports/present-report';
import type { Pnl } from '../../shared/contract';
import { startE2eStack, uploadFile, type E2eStack } from '../support/e2e-stack';
import { expectedPnl } from '../support/pnl-expect';
import { signUpByMail, type HttpCall } from '../support/sign-up';

let stack: E2eStack;
let call: HttpCall;

beforeAll(async () => {
  stack = await startE2eStack();
  call = stack.call;
}, 240_000);
afterAll(async () => {
  await stack?.stop();
});

const signUp = async (email: string) =>
  (await signUpByMail(stack.offline.apiUrl, stack.emulators.env.SES_ENDPOINT!, email)).token;

/** upload-url → PUT to S3 → upload, as the page does: the report. */
const upload = (token: string, file: { filename: string; file: Buffer }) => uploadFile(call, token, file);

async function readyReport(token: string, id: string): Promise<ApiReport> {
  for (let i = 0; i < 60; i++) {
    const r = await call<{ report: ApiReport }>('GET', `/reports/${id}`, { token });
    if (r.body.report.status === 'ready') return r.body.report;
    await new Promise((res) => setTimeout(res, 500));
  }
  throw new Error(`report ${id} not ready`);
}

const week = (w: number, seller: string) => {
  const g = generateReport({ rows: 160, layout: '2026', format: 'xlsx', seed: 300 + w, week: w, articles: 8 });
  return { filename: `Еженедельный детализированный отчет №${g.expected.report_number}_${seller}.xlsx`, file: g.file };
};

describe('P&L over HTTP', () => {
  it('two months with a straddling week and a period cost: the numbers of the test’s own computation', async () => {
    const token = await signUp(`pnl-e2e-${randomUUID()}@example.com`);
    const reports: ApiReport[] = [];
    for (const w of [2, 3, 4]) reports.push(await readyReport(token, (await upload(token, week(w, '616161'))).id));
    expect(reports[1]!.period_from! < '2026-02-01' && reports[1]!.period_to! >= '2026-02-01').toBe(true);
    const cost = await call('POST', '/period-costs', {
      token,
      body: {
        name: 'Аренда офиса',
        category: 'rent',
        amount: 30_000,
        kind: 'monthly',
        from_month: '2026-01',
        to_month: '2026-02',
      },
    });
    expect(cost.status).toBe(201);

    const r = await call<Pnl>('GET', '/pnl?from=2026-01&to=2026-02', { token });
    expect(r.status).toBe(200);
    const want = expectedPnl(
      reports,
      [{ amount: 30_000, kind: 'monthly', from_month: '2026-01', to_month: '2026-02' }],
      ['2026-01', '2026-02'],
    );
    for (const m of r.body.months) {
      for (const key of ['revenue', 'commission', 'logistics', 'cost_of_goods', 'usn', 'period_costs'])
        expect(Math.round(m.lines[key]! * 100), `${m.month} ${key}`).toBe(want[m.month]![key]);
      expect(Math.round(m.net_profit * 100), `${m.month} net`).toBe(want[m.month]!.net_profit);
    }
    const feb = r.body.months[1]!;
    expect(feb.reports.map((x) => x.report_id)).toContain(reports[1]!.id);

    const res = await fetch(`${stack.offline.apiUrl}/pnl/export?from=2026-01&to=2026-02`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await res.arrayBuffer());
    const ws = wb.getWorksheet('P&L')!;
    expect(ws.getCell('B4').value).toBe('Январь 2026');
    expect(ws.getCell('B5').value).toBe(r.body.months[0]!.lines.revenue);
  }, 240_000);

  it('a seller crossing 20 M ₽ in 2026 gets the warning and the month VAT applies from', async () => {
    const token = await signUp(`pnl-vat-e2e-${randomUUID()}@example.com`);
    const rep = await readyReport(token, (await upload(token, week(5, '626262'))).id);
    const item = rep.items.find((i) => i.article !== '')!;
    const put = await call('PUT', `/reports/items/${item.item_id}/manual-value`, {
      token,
      body: { field: 'realization', value: 20_500_000 },
    });
    expect(put.status).toBe(200);
    const r = await call<Pnl>('GET', '/pnl?from=2026-01&to=2026-03', { token });
    const t = r.body.thresholds[0]!;
    expect(t.level).toBe('crossed');
    expect(t.vat_from).toEqual({ month: '2026-02', from: '2026-03-01' });
    expect(t.proposals[0]).toMatchObject({ valid_from: '2026-03-01', vat_rate: 5 });
    const alone = await call<{ thresholds: Pnl['thresholds'] }>('GET', '/tax-thresholds?year=2026', { token });
    expect(alone.body.thresholds[0]!.message).toContain('01.03.2026');
  }, 240_000);
});
