import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { UnitEconomicsPage } from './unit-economics-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
/** Text with the thin and non-breaking spaces of money as plain ones. */
const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const ARTICLE = 'платье-синее-41/1';
const UE = {
  article: ARTICLE,
  seller_id: null,
  weeks_asked: 4,
  weeks: [
    { report_id: 'R2', title: 'Отчёт №2', period_from: '2026-11-16', period_to: '2026-11-22' },
    { report_id: 'R1', title: 'Отчёт №1', period_from: '2026-11-09', period_to: '2026-11-15' },
  ],
  sales_qty: 42,
  returns_qty: 2,
  units: 40,
  return_rate: 4.76,
  price: 1500,
  price_before_discount: 1875,
  discount_rate: 20,
  commission_rate: 15,
  acquiring_rate: 1.5,
  tax_rate: 6,
  drr: 4,
  per_unit: {
    commission: 225,
    acquiring: 22.5,
    logistics: 80,
    reverse_logistics: 10,
    storage: 5,
    acceptance: 1,
    penalties: 2.5,
    ads: 60,
    vat: 0,
    usn: 90,
    cost_price: 600,
    own_costs: 50,
    other: 4,
    profit: 350,
  },
  margin: 23.33,
};
const WHAT_IF = {
  article: ARTICLE,
  report_ids: ['R2', 'R1'],
  price_before_discount: 1620.84,
  price: 1296.67,
  profit: 259.33,
  margin: 20,
  reason: null,
};

let urls: string[] = [];
let posted: unknown[] = [];
let answer: () => Response = () => json(200, UE);
beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  urls = [];
  posted = [];
  answer = () => json(200, UE);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      urls.push(url);
      if (url.includes('/what-if')) {
        const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
        posted.push(body);
        if (body.margin === 95)
          return json(200, {
            ...WHAT_IF,
            price: null,
            price_before_discount: null,
            profit: null,
            margin: null,
            reason: 'unreachable',
          });
        return json(
          200,
          body.price !== undefined ? { ...WHAT_IF, price_before_discount: body.price, margin: 31.2 } : WHAT_IF,
        );
      }
      if (url.includes('/unit-economics')) return answer();
      return json(404, { error: { code: 'not_found', message: 'x', details: {} } });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPage(path = `/articles/${encodeURIComponent(ARTICLE)}/unit-economics`) {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/articles/:article/unit-economics" element={<UnitEconomicsPage />} />
          <Route path="/products" element={<p>каталог</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('the unit economics page', () => {
  it('asks the article’s last 4 weeks and shows profit, margin and the per-unit lines', async () => {
    renderPage();
    expect(plain((await screen.findByTestId('ue-profit')).textContent)).toBe('350,00 ₽');
    expect(urls[0]).toBe(`/api/articles/${encodeURIComponent(ARTICLE)}/unit-economics?weeks=4`);
    expect(plain(screen.getByTestId('ue-margin').textContent)).toBe('23,33 %');
    expect(plain(screen.getByTestId('ue-price').textContent)).toBe('1 500,00 ₽');
    const table = screen.getByTestId('ue-table');
    const row = (line: string) => plain(table.querySelector(`tr[data-line="${line}"]`)?.textContent);
    expect(row('commission')).toBe('− Комиссия WB225,00 ₽15,00 %');
    // A line without its own rate shows its share of the price: 600 / 1 500.
    expect(row('cost_price')).toBe('− Себестоимость600,00 ₽40,00 %');
    expect(row('ads')).toContain('4,00 %'); // ДРР
    expect(row('profit')).toBe('= Прибыль350,00 ₽23,33 %');
    expect(plain(screen.getByTestId('ue-price-note').textContent)).toContain('Цена продавца до скидки WB — 1 875,00 ₽');
    // The weeks used, each a link to its report.
    const weeks = screen.getByTestId('ue-weeks-used').querySelectorAll('a');
    expect([...weeks].map((a) => a.getAttribute('href'))).toEqual(['/reports/R2', '/reports/R1']);
  });

  it('the weeks selector asks again with the weeks chosen', async () => {
    renderPage();
    await screen.findByTestId('ue-profit');
    fireEvent.change(screen.getByTestId('ue-weeks'), { target: { value: '8' } });
    await waitFor(() => expect(urls.at(-1)).toContain('/unit-economics?weeks=8'));
  });

  it('what-if: the price for a target margin, the margin at a typed price, and a margin out of reach', async () => {
    renderPage();
    await screen.findByTestId('ue-profit');
    fireEvent.click(screen.getByRole('button', { name: 'Найти цену' }));
    expect(plain((await screen.findByTestId('ue-price-for-margin')).textContent)).toBe(
      'Цена до скидки WB — 1 620,84 ₽ (после скидки 1 296,67 ₽): прибыль 259,33 ₽ за шт, маржа 20,00 %.',
    );
    expect(posted[0]).toEqual({ margin: 20, weeks: 4 });

    fireEvent.change(screen.getByLabelText('Цена до скидки WB, ₽'), { target: { value: '2 000,50' } });
    fireEvent.click(screen.getByRole('button', { name: 'Посчитать маржу' }));
    expect(plain((await screen.findByTestId('ue-margin-at-price')).textContent)).toContain('маржа 31,20 %');
    expect(posted[1]).toEqual({ price: 2000.5, weeks: 4 });

    fireEvent.change(screen.getByLabelText('Целевая маржа, %'), { target: { value: '95' } });
    fireEvent.click(screen.getByRole('button', { name: 'Найти цену' }));
    await waitFor(() =>
      expect(screen.getByTestId('ue-price-for-margin').textContent).toContain('не получить ни при какой цене'),
    );
  });

  it('without a cost price: «—» with the reason and a link to the catalog', async () => {
    answer = () =>
      json(422, {
        error: {
          code: 'cost_price_missing',
          message: `Нет себестоимости артикула «${ARTICLE}»`,
          details: { article: ARTICLE, report_ids: ['R2'] },
        },
      });
    renderPage();
    expect((await screen.findByTestId('ue-profit')).textContent).toBe('—');
    expect(screen.getByTestId('ue-no-cost-price').textContent).toContain('Нет себестоимости');
    expect(screen.getByTestId('ue-catalog-link').getAttribute('href')).toBe(
      `/products?search=${encodeURIComponent(ARTICLE)}`,
    );
    expect(screen.queryByTestId('ue-table')).toBeNull();
  });
});
