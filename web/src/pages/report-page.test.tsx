// Issue 13 on the report page: one line under each headline figure, one rebuild button on the stale
// banner, the commission table without an empty «—» row.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { Report, ReportColumns } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { ReportPage } from './report-page';

const report: Report = {
  id: 'r1',
  status: 'ready',
  title: 'Отчёт № 555',
  report_number: '555',
  seller: null,
  period_from: '2025-12-01',
  period_to: '2025-12-07',
  rows: 10,
  is_combined: false,
  source_path: 'sources/r1',
  source_available: true,
  created_at: '2025-12-08T10:00:00Z',
  totals: { realization: 1000, for_pay: 800, payout: 700, profit: 250, margin: 25 },
  tax_profile: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  allocation: null,
  cost_attribution: null,
  costs_pending: [],
  items: [],
  commission_by_category: [
    { category: 'Платья', realization: 1000, commission: 200, percent: 20 },
    { category: '', realization: 0, commission: 0, percent: null },
  ],
  warnings: [],
  stale: true,
  stale_reason:
    'Себестоимость, налоговые настройки или способ распределения расходов изменились после построения отчёта.',
};

const { items: _items, ...reportWithoutItems } = report;
const reportAsColumns: ReportColumns = {
  ...reportWithoutItems,
  item_columns: {
    count: 0,
    item_id: [],
    article: [],
    category: [],
    nm_id: [],
    brand: [],
    fields: [],
    effective: [],
    computed: {},
    manual_values: {},
    null_reasons: {},
  },
};

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  vi.stubGlobal(
    'fetch',
    vi.fn(
      async () =>
        // The page asks GET /api/reports/r1?items=columns: the items travel as columns.
        new Response(JSON.stringify({ report: reportAsColumns }), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
    ),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPage(state?: unknown) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[{ pathname: '/reports/r1', state }]}>
        <Routes>
          <Route path="/reports/:id" element={<ReportPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('report page wording', () => {
  it('explains «К перечислению» and «К выплате» in a line under each figure', async () => {
    renderPage();
    await screen.findByTestId('figure-payout');
    expect(screen.getByTestId('figure-hint-for_pay').textContent).toBe(
      'За товар, после комиссии WB, до логистики и услуг',
    );
    expect(screen.getByTestId('figure-hint-payout').textContent).toBe(
      'Итог WB: после логистики, хранения, штрафов, удержаний и займов',
    );
    expect(screen.getByTestId('figure-margin').textContent?.replace(/\u00a0/g, ' ')).toBe('25,00 %');
  });

  it('a WB week whose ad and storage figures are still coming says so, above the numbers', async () => {
    vi.mocked(fetch).mockImplementation(
      async () =>
        new Response(JSON.stringify({ report: { ...reportAsColumns, costs_pending: ['ads', 'storage'] } }), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
    );
    renderPage();
    const note = await screen.findByTestId('costs-pending');
    expect(note.textContent).toBe(
      'Данные о рекламе и о хранении от WB ещё загружаются. Пока эти расходы распределены по продажам и не окончательны; отчёт пересчитается сам, когда WB их отдаст.',
    );
  });

  it('no note once WB’s figures are in', async () => {
    renderPage();
    await screen.findByTestId('figure-payout');
    expect(screen.queryByTestId('costs-pending')).toBeNull();
  });

  it('the stale banner has one clear action button', async () => {
    renderPage();
    const banner = await screen.findByTestId('stale-banner');
    const buttons = within(banner).getAllByRole('button');
    expect(buttons.map((b) => b.textContent)).toEqual(['Пересобрать отчёт']);
    expect(banner.textContent).not.toContain('(пересобрать сейчас)');
  });

  it('the commission table leaves out an empty category with nothing in it', async () => {
    renderPage();
    const table = await screen.findByTestId('commission-table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(2);
    expect(table.textContent).not.toContain('—');
  });
});

describe('a combined report opened by its combine', () => {
  it('names the sources that were stale when it was combined', async () => {
    const combined = {
      ...reportAsColumns,
      is_combined: true,
      stale: false,
      stale_reason: null,
      source_report_ids: ['a', 'b'],
    };
    vi.stubGlobal(
      'fetch',
      vi.fn(
        async () =>
          new Response(JSON.stringify({ report: combined }), {
            status: 200,
            headers: { 'Content-Type': 'application/json' },
          }),
      ),
    );
    renderPage({ combinedFromStale: [{ id: 'a', title: 'Неделя 49', reason: 'Себестоимость товаров изменилась.' }] });
    const line = await screen.findByTestId('combined-from-stale');
    expect(line.textContent).toContain('Отчёт собран из устаревших отчётов: «Неделя 49».');
  });

  it('says nothing without that state', async () => {
    renderPage();
    await screen.findByTestId('figure-payout');
    expect(screen.queryByTestId('combined-from-stale')).toBeNull();
  });
});
