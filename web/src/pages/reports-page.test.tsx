// Issue 13 on the reports list: one card per report on a phone (title, period, realization, profit,
// status), and the summary XLS and combine buttons always shown, disabled with a hint until reports are ticked.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { ReportSummary } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { UploadsProvider } from '../lib/uploads';
import { ReportsPage } from './reports-page';

const summary = (id: string, profit: number): ReportSummary => ({
  id,
  status: 'ready',
  title: `Отчёт ${id}`,
  report_number: null,
  seller: null,
  period_from: '2025-12-01',
  period_to: '2025-12-07',
  rows: 10,
  is_combined: false,
  source_path: null,
  source_available: true,
  created_at: '2025-12-08T10:00:00Z',
  totals: { realization: 1234.5, profit },
});

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      if (url.startsWith('/api/reports'))
        return json({ items: [summary('a', 100), summary('b', -5)], next_cursor: null });
      if (url === '/api/sellers') return json({ items: [] });
      return json({});
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPage() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <UploadsProvider>
          <ReportsPage />
        </UploadsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('reports list', () => {
  it('labels each cell so a row reads as a card on a phone: period, realization, profit, status', async () => {
    renderPage();
    const row = await screen.findByTestId('report-row-a');
    const labelled = Object.fromEntries(
      [...row.querySelectorAll('td[data-label]')].map((td) => [
        td.getAttribute('data-label'),
        (td.textContent ?? '').replace(/[\u00a0\u202f]/g, ' '),
      ]),
    );
    expect(labelled).toMatchObject({
      Период: '01.12.2025 — 07.12.2025',
      Реализация: '1 234,50 ₽',
      Прибыль: '100,00 ₽',
      Статус: 'Готов',
    });
    expect(row.querySelector('td.card-title')?.textContent).toContain('Отчёт a');
  });

  it('shows summary XLS and combine disabled with a hint until enough reports are ticked', async () => {
    renderPage();
    await screen.findByTestId('report-row-a');
    const bar = screen.getByTestId('selection-bar');
    const summaryButton = within(bar).getByTestId('summary-button') as HTMLButtonElement;
    const combineButton = within(bar).getByTestId('combine-button') as HTMLButtonElement;
    expect(summaryButton.disabled).toBe(true);
    expect(combineButton.disabled).toBe(true);
    expect(screen.getByTestId('selection-hint').textContent).toContain('Отметьте отчёты галочками');

    fireEvent.click(screen.getByLabelText('Выбрать отчёт Отчёт a'));
    expect(summaryButton.disabled).toBe(false);
    expect(combineButton.disabled).toBe(true);
    expect(screen.getByTestId('selection-hint').textContent).toBe('Для объединения отметьте ещё хотя бы один отчёт.');

    fireEvent.click(screen.getByLabelText('Выбрать отчёт Отчёт b'));
    expect(combineButton.disabled).toBe(false);
  });
});
