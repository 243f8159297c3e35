import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { CashFlowPage } from './cash-flow-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const line = (key: string, title: string, sign: number, amount: number) => ({ key, title, sign, amount });
const FLOW = {
  from: '2026-03',
  to: '2026-05',
  seller_id: null,
  today: '2026-04-01',
  balance: null,
  payouts: [
    {
      report_id: 'R1',
      wb_report_id: '220048062',
      period_from: '2026-03-09',
      period_to: '2026-03-15',
      amount: 12345.67,
      amount_source: 'wb_bank_payment',
      formed_date: '2026-03-16',
      approved_date: '2026-03-23',
      expected_date: '2026-03-23',
      status: 'approved',
    },
    {
      report_id: 'R2',
      wb_report_id: null,
      period_from: '2026-03-23',
      period_to: '2026-03-29',
      amount: 1000,
      amount_source: 'report_payout',
      formed_date: '2026-03-30',
      approved_date: '2026-04-20',
      expected_date: '2026-04-20',
      status: 'held',
    },
  ],
  months: [
    {
      month: '2026-03',
      inflow: 12345.67,
      outflow: 2000,
      net: 10345.67,
      position: 10345.67,
      lines: [line('payouts', 'Выплаты WB', 1, 12345.67), line('purchases', 'Закупки товара', -1, 2000)],
    },
    { month: '2026-04', inflow: 1000, outflow: 15000, net: -14000, position: -3654.33, lines: [] },
    { month: '2026-05', inflow: 0, outflow: 0, net: 0, position: -3654.33, lines: [] },
  ],
  forecast: [{ week_start: '2026-04-20', inflow: 1000, outflow: 0 }],
  tax_calendar: [{ due_date: '2026-04-28', kind: 'usn_advance', period: '2026-Q1', amount: 740.74 }],
  rules: [{ valid_from: '2026-03-20', objection_days: 21, payout_weekdays: [1, 2, 3, 4, 5], source: 'WB' }],
};
const PURCHASE = {
  id: 'p1',
  seller_id: null,
  date: '2026-03-10',
  amount: 2000,
  article: null,
  quantity: null,
  comment: 'Ткань',
  created_at: 'x',
  updated_at: 'x',
};

/** A P&L answer of its default range (its months left out: the page reads only `to`). */
const EMPTY_PNL = {
  from: '2026-02',
  to: '2026-04',
  seller_id: null,
  lines: [],
  months: [],
  totals: { lines: {}, net_profit: 0, margin: null, income: 0, covered_days: 0, days: 89 },
  sources: [],
  split_rule: 'days',
  thresholds: [],
  warnings: [],
};
/** Text with the thin and non-breaking spaces of money as plain ones. */
const text = (el: Element) => (el.textContent ?? '').replace(/[\u00a0\u202f]/g, ' ');

let cashUrls: string[] = [];
let posted: unknown[] = [];
let purchases: unknown[] = [];
let flow: unknown = FLOW;
beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  cashUrls = [];
  posted = [];
  purchases = [PURCHASE];
  flow = FLOW;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.startsWith('/api/cash-flow')) {
        cashUrls.push(url);
        return json(200, flow);
      }
      // The P&L's default range names the newest month that holds a report.
      if (url.startsWith('/api/pnl')) return json(200, EMPTY_PNL);
      if (url === '/api/purchases' && init?.method === 'POST') {
        const body = JSON.parse(String(init.body)) as Record<string, unknown>;
        posted.push(body);
        purchases = [...purchases, { ...PURCHASE, id: 'p2', ...body }];
        return json(201, { ...PURCHASE, id: 'p2', ...body });
      }
      if (url === '/api/purchases') return json(200, { purchases });
      return json(404, { error: { code: 'not_found', message: 'x', details: {} } });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPage(path = '/cash-flow?from=2026-03&to=2026-05') {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/cash-flow" element={<CashFlowPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the cash flow page', () => {
  it('shows the months, the payouts with their dates and status, the forecast and the USN dates', async () => {
    renderPage();
    const months = await screen.findByTestId('cash-months');
    const rows = within(months).getAllByRole('row');
    expect(text(rows[1]!)).toContain('Март 2026');
    expect(text(rows[1]!)).toContain('12 345,67');
    expect(text(rows[2]!)).toContain('-14 000,00');
    const payouts = within(screen.getByTestId('cash-payouts')).getAllByRole('row');
    expect(text(payouts[1]!)).toContain('23.03.2026');
    expect(text(payouts[1]!)).toContain('Одобрен, ждёт выплаты');
    expect(text(payouts[2]!)).toContain('На проверке WB');
    expect(text(screen.getByTestId('cash-forecast'))).toContain('20.04.2026');
    expect(text(screen.getByTestId('cash-tax'))).toContain('28.04.2026: Аванс УСН за 2026-Q1 — 740,74');
    // No balance read from WB yet: said so, no zeros in its place.
    expect(screen.getByTestId('cash-balance-none')).toBeTruthy();
  });

  it('shows WB’s balance with the time WB said so', async () => {
    flow = {
      ...FLOW,
      balance: { currency: 'RUB', current: 5000.5, for_withdraw: 4000, as_of: '2026-04-01T09:00:00Z', accounts: 1 },
    };
    renderPage();
    const balance = await screen.findByTestId('cash-balance');
    expect(text(balance)).toContain('На балансе');
    expect(text(balance)).toContain('5 000,50');
    expect(text(balance)).toContain('Можно вывести');
    expect(text(balance)).toContain('4 000,00');
  });

  it('opens on the months around the newest month that holds a report', async () => {
    renderPage('/cash-flow');
    await screen.findByTestId('cash-months');
    expect(cashUrls[0]).toContain('from=2026-02');
    expect(cashUrls[0]).toContain('to=2026-05');
  });

  it('adds a purchase and lists it', async () => {
    renderPage();
    await screen.findByTestId('purchases-table');
    const form = screen.getByTestId('purchase-form');
    fireEvent.change(within(form).getByLabelText('Дата'), { target: { value: '2026-04-02' } });
    fireEvent.change(within(form).getByLabelText('Сумма, ₽'), { target: { value: '1 500,50' } });
    fireEvent.submit(form);
    await waitFor(() => expect(posted).toEqual([{ date: '2026-04-02', amount: 1500.5, comment: null }]));
    await waitFor(() => expect(within(screen.getByTestId('purchases-table')).getAllByRole('row')).toHaveLength(3));
  });
});
