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
  balance_status: {
    connected: 0,
    notes: [
      {
        wb_seller_id: null,
        code: 'wb_not_connected',
        message: 'WB не подключён: баланс читается из API WB по токену с категорией «Финансы».',
        at: null,
      },
    ],
  },
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
      paid_by: null,
      paid_on: null,
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
      paid_by: null,
      paid_on: null,
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
let importAnswer: { status: number; body: unknown } = { status: 200, body: { created: 0, errors: [] } };
let imports: Array<{ name: string }> = [];
beforeEach(() => {
  imports = [];
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
      if (url === '/api/purchases/import' && init?.method === 'POST') {
        const file = (init.body as FormData).get('file') as File;
        imports.push({ name: file.name });
        return json(importAnswer.status, importAnswer.body);
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

  it('says why there is no balance: WB not connected (uploads alone still work)', async () => {
    renderPage();
    const notes = await screen.findByTestId('cash-balance-notes');
    expect(text(notes)).toContain('WB не подключён');
    expect(
      within(notes)
        .getByText(/WB не подключён/)
        .getAttribute('data-code'),
    ).toBe('wb_not_connected');
    // The payouts are still there.
    expect(screen.getByTestId('cash-payouts')).toBeTruthy();
  });

  it('says why WB refused the balance (scope), with the time of the call, beside the last reading', async () => {
    flow = {
      ...FLOW,
      balance: { currency: 'RUB', current: 10, for_withdraw: 5, as_of: '2026-03-31T09:00:00Z', accounts: 1 },
      balance_status: {
        connected: 1,
        notes: [
          {
            wb_seller_id: '4242',
            code: 'wb_balance_scope',
            message: 'WB 4242: WB не даёт баланс по этому токену (401: token scope not allowed).',
            at: '2026-04-01T08:00:00Z',
          },
        ],
      },
    };
    renderPage();
    await screen.findByTestId('cash-balance');
    const notes = screen.getByTestId('cash-balance-notes');
    expect(text(notes)).toContain('WB не даёт баланс по этому токену (401: token scope not allowed)');
    expect(text(notes)).toMatch(/запрос 01\.04\.2026/);
  });

  it('a paid payout says how the balance showed it', async () => {
    flow = {
      ...FLOW,
      payouts: [
        { ...FLOW.payouts[0]!, status: 'paid', paid_by: 'balance_rise', paid_on: '2026-03-24' },
        FLOW.payouts[1],
      ],
    };
    renderPage();
    const payouts = within(await screen.findByTestId('cash-payouts')).getAllByRole('row');
    expect(text(payouts[1]!)).toContain('Выплачен');
    expect(text(payouts[1]!)).toContain('«Можно вывести» выросло на сумму выплаты 24.03.2026');
  });

  it('imports purchases from a file: the count added and the rows refused with their numbers', async () => {
    importAnswer = {
      status: 200,
      body: { created: 2, errors: [{ row: 4, message: 'Сумма: больше нуля, не больше 1 000 000 000 ₽' }] },
    };
    renderPage();
    await screen.findByTestId('purchases-table');
    const input = screen.getByTestId('purchases-file');
    const file = new File(['Дата;Сумма\n'], 'закупки.csv', { type: 'text/csv' });
    fireEvent.change(input, { target: { files: [file] } });
    const result = await screen.findByTestId('purchases-import-result');
    expect(imports).toEqual([{ name: 'закупки.csv' }]);
    expect(text(result)).toContain('Добавлено закупок: 2.');
    expect(text(result)).toContain('Строка 4: Сумма: больше нуля');
    expect(result.className).toContain('alert-warning');
  });

  it('a file the server refuses shows its message', async () => {
    importAnswer = {
      status: 422,
      body: {
        error: { code: 'purchase_columns_missing', message: 'В файле нет столбцов «Дата» и «Сумма»', details: {} },
      },
    };
    renderPage();
    await screen.findByTestId('purchases-table');
    fireEvent.change(screen.getByTestId('purchases-file'), {
      target: { files: [new File(['x'], 'x.csv', { type: 'text/csv' })] },
    });
    await waitFor(() => expect(imports).toHaveLength(1));
    const alert = await screen.findByRole('alert');
    expect(text(alert)).toContain('В файле нет нужных столбцов: «Дата» и «Сумма»');
    expect(screen.queryByTestId('purchases-import-result')).toBeNull();
  });
});
