import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { monthTitle } from '../../../shared/engine/months';
import { addMonths, latestWithData, PnlPage } from './pnl-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const LINES = [
  { key: 'revenue', title: 'Выручка (реализация)', sign: 1 },
  { key: 'returns', title: 'в т. ч. возвраты по цене продавца (справочно)', sign: 0 },
  { key: 'commission', title: 'Комиссия WB', sign: -1 },
  { key: 'period_costs', title: 'Расходы периода', sign: -1 },
];
const month = (m: string, revenue: number, net: number) => ({
  month: m,
  lines: { revenue, returns: 10, commission: revenue / 5, period_costs: 1000 },
  net_profit: net,
  margin: Math.round((net / revenue) * 10_000) / 100,
  income: revenue,
  covered_days: 31,
  days: 31,
  reports: [{ report_id: 'R1', days: 6, share: 85.71 }],
  costs_pending: [] as string[],
  period_costs: [{ id: 'c1', name: 'Аренда', category: 'rent', amount: 1000 }],
});
const PNL = {
  from: '2026-01',
  to: '2026-02',
  seller_id: null,
  lines: LINES,
  months: [month('2026-01', 100_000, 20_000), month('2026-02', 50_000, -5_000)],
  totals: {
    lines: { revenue: 150_000, returns: 20, commission: 30_000, period_costs: 2000 },
    net_profit: 15_000,
    margin: 10,
    income: 150_000,
    covered_days: 59,
    days: 59,
  },
  sources: [{ report_id: 'R1', title: 'Отчёт 1', period_from: '2026-01-26', period_to: '2026-02-01', split: [] }],
  split_rule: 'days',
  thresholds: [
    {
      seller_id: null,
      seller_name: 'Без продавца',
      tax_system: 'usn_income',
      year: 2026,
      as_of: '2026-02',
      income: 21_000_000,
      previous_year_income: 0,
      exemption_threshold: 20_000_000,
      rate5_limit: 272_500_000,
      rate7_limit: 490_500_000,
      source: 'НК РФ ст. 145',
      share: 105,
      level: 'crossed',
      warning_share: 80,
      vat_from: { month: '2026-01', from: '2026-02-01' },
      rate7_from: null,
      usn_lost_from: null,
      vat_rate: 5,
      message: 'Доход 2026 года превысил порог освобождения от НДС 20 млн ₽ в январе 2026: НДС 5 % с 01.02.2026.',
      proposals: [{ valid_from: '2026-02-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 }],
    },
  ],
  warnings: [],
};

const USER = {
  id: 'u1',
  email: 'seller@example.ru',
  role: 'seller',
  confirmed: true,
  limits: 7_500,
  initial_limits: 10_000,
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
  allocation: 'realization',
};
let posted: unknown[] = [];
let pnlUrls: string[] = [];
let pnlBody: unknown = PNL;
let patched: unknown[] = [];
beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  posted = [];
  patched = [];
  pnlUrls = [];
  pnlBody = PNL;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.startsWith('/api/pnl')) {
        pnlUrls.push(url);
        return json(200, pnlBody);
      }
      if (url === '/api/sellers') return json(200, { items: [] });
      if (url === '/api/auth/me' && init?.method === 'PATCH') {
        const body = JSON.parse(String(init.body)) as { tax_periods: unknown[] };
        patched.push(body);
        return json(200, { user: { ...USER, tax_periods: body.tax_periods } });
      }
      if (url === '/api/auth/me') return json(200, { user: USER });
      if (url.startsWith('/api/period-costs') && init?.method === 'POST') {
        const body = JSON.parse(String(init.body)) as Record<string, unknown>;
        posted.push(body);
        return json(201, {
          id: 'c2',
          seller_id: null,
          from_month: null,
          to_month: null,
          date: null,
          created_at: 'x',
          updated_at: 'x',
          ...body,
        });
      }
      if (url.startsWith('/api/period-costs'))
        return json(200, {
          costs: [
            {
              id: 'c1',
              seller_id: null,
              name: 'Аренда',
              category: 'rent',
              amount: 1000,
              kind: 'monthly',
              from_month: '2026-01',
              to_month: null,
              date: null,
              created_at: 'x',
              updated_at: 'x',
            },
          ],
        });
      return json(404, { error: { code: 'not_found', message: 'x', details: {} } });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPage(path = '/pnl?from=2026-01&to=2026-02') {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/pnl" element={<PnlPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}
const plain = (s: string | null | undefined) => (s ?? '').replace(/\s/g, ' ');

describe('P&L page', () => {
  it('months and their titles', () => {
    expect(monthTitle('2026-02')).toBe('Февраль 2026');
    expect(addMonths('2026-01', -2)).toBe('2025-11');
    expect(addMonths('2026-11', 3)).toBe('2027-02');
  });

  it('shows months as columns, lines as rows, net profit, and the threshold crossed with its proposal', async () => {
    renderPage();
    const table = await screen.findByTestId('pnl-table');
    const heads = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(heads).toEqual(['Статья', 'Январь 2026', 'Февраль 2026', 'Итого']);
    const revenue = table.querySelector('tr[data-line="revenue"]')!;
    expect(plain(revenue.textContent)).toContain('100 000,00 ₽');
    expect(table.querySelector('tr[data-line="commission"] th')!.textContent).toBe('− Комиссия WB');
    expect(plain(screen.getByTestId('pnl-net-total').textContent)).toBe('15 000,00 ₽');
    const banner = screen.getByTestId('tax-threshold');
    expect(banner.dataset.level).toBe('crossed');
    expect(screen.getByTestId('threshold-proposal').textContent).toContain('с 01.02.2026: УСН 6 %, НДС 5 %');
  });

  it('a month whose WB report still waits for WB’s ad figures says so; the others say nothing', async () => {
    const pending = { ...PNL, months: [PNL.months[0]!, { ...PNL.months[1]!, costs_pending: ['ads'] }] };
    vi.mocked(fetch).mockImplementation(async (input: RequestInfo | URL) =>
      String(input).startsWith('/api/pnl') ? json(200, pending) : json(200, { items: [], costs: [] }),
    );
    renderPage();
    const note = await screen.findByTestId('pnl-costs-pending');
    expect(
      within(note)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['Февраль 2026: данные о рекламе от WB ещё загружаются; цифры месяца по этим расходам не окончательны.']);
  });

  it('no note while nothing is pending', async () => {
    renderPage();
    await screen.findByTestId('pnl-table');
    expect(screen.queryByTestId('pnl-costs-pending')).toBeNull();
  });

  it('adds the proposed tax period to the user’s default profile in one click', async () => {
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Добавить период' }));
    await screen.findByTestId('threshold-added');
    expect(patched).toEqual([
      {
        tax_periods: [
          { valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
          { valid_from: '2026-02-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
        ],
      },
    ]);
  });

  it('opens on the months the API finds with reports; the pickers and «3 месяца» start there', async () => {
    // The API's default: the 3 months ending with the newest month holding a report (May 2026).
    pnlBody = {
      ...PNL,
      from: '2026-03',
      to: '2026-05',
      months: [
        { ...month('2026-03', 0, 0), covered_days: 0, reports: [] },
        { ...month('2026-04', 0, 0), covered_days: 0, reports: [] },
        month('2026-05', 8_220, 1_000),
      ],
    };
    renderPage('/pnl');
    await screen.findByTestId('pnl-table');
    expect(pnlUrls[0]).toBe('/api/pnl');
    expect((screen.getByLabelText('Первый месяц') as HTMLInputElement).value).toBe('2026-03');
    expect((screen.getByLabelText('Последний месяц') as HTMLInputElement).value).toBe('2026-05');
    fireEvent.click(screen.getByTestId('pnl-preset-3'));
    await waitFor(() => expect(pnlUrls.at(-1)).toBe('/api/pnl?from=2026-03&to=2026-05'));
  });

  it('on a phone the month picker opens on the newest month with a report, not an empty one', async () => {
    vi.stubGlobal('matchMedia', (q: string) => ({
      matches: q.includes('max-width'),
      addEventListener: () => {},
      removeEventListener: () => {},
    }));
    pnlBody = {
      ...PNL,
      months: [month('2026-01', 100_000, 20_000), { ...month('2026-02', 0, 0), covered_days: 0, reports: [] }],
    };
    renderPage();
    const picker = (await screen.findByTestId('pnl-month-picker')) as HTMLSelectElement;
    expect(picker.value).toBe('2026-01');
    expect(latestWithData({ months: [] })).toBeNull();
  });

  it('a monthly cost reads «с января 2026», the banner sums by size', async () => {
    renderPage();
    const cost = await screen.findByTestId('period-cost');
    expect(plain(cost.textContent)).toContain('1 000,00 ₽ в месяц с января 2026');
    expect(plain(screen.getByTestId('tax-threshold').textContent)).toContain('Доход с начала года 21 млн ₽');
  });

  it('adds a monthly period cost', async () => {
    renderPage();
    await screen.findByTestId('period-cost');
    fireEvent.change(screen.getByLabelText('Название'), { target: { value: 'Зарплата' } });
    fireEvent.change(screen.getByLabelText('Категория'), { target: { value: 'salaries' } });
    fireEvent.change(screen.getByLabelText('Сумма, ₽'), { target: { value: '60 000,50' } });
    fireEvent.change(screen.getByLabelText('С месяца'), { target: { value: '2026-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Добавить' }));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({
      name: 'Зарплата',
      category: 'salaries',
      amount: 60_000.5,
      kind: 'monthly',
      from_month: '2026-01',
      to_month: null,
      seller_id: null,
    });
  });
});
