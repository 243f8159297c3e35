// Stale in sight: the list marks stale single and combined reports «Устарел» with the reason, offers
// «Пересобрать устаревшие (N)» (rebuild-many for uploaded reports, recombine for combined ones), and asks
// before the summary XLS or combine use a stale report.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { ReportSummary } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { UploadsProvider } from '../lib/uploads';
import { ReportsPage } from './reports-page';

const summary = (id: string, over: Partial<ReportSummary> = {}): ReportSummary => ({
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
  totals: { realization: 100, profit: 10 },
  stale: false,
  stale_reason: null,
  ...over,
});

const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });

let calls: Array<{ url: string; method: string; body: unknown }> = [];
/** The summary export's X-Stale-Reports answer. */
let staleHeader = '';

beforeEach(() => {
  calls = [];
  staleHeader = '';
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const method = init?.method ?? 'GET';
      calls.push({ url, method, body: init?.body ? JSON.parse(String(init.body)) : null });
      if (url === '/api/reports/rebuild') return json({ rebuilt: ['a'], processing: [], skipped: [] });
      if (url === '/api/reports/summary-export')
        return new Response(new Blob(['xls']), {
          status: 200,
          headers: {
            'Content-Type': 'application/vnd.ms-excel',
            'Content-Disposition': 'attachment; filename="summary.xls"',
            'X-Stale-Reports': staleHeader,
          },
        });
      if (method === 'GET' && url.startsWith('/api/reports'))
        return json({
          items: [
            summary('a', { stale: true, stale_reason: 'Себестоимость товаров изменилась после сборки отчёта.' }),
            summary('b'),
            summary('c', {
              is_combined: true,
              source_report_ids: ['a', 'b'],
              stale: true,
              stale_reason: 'Исходный отчёт «Отчёт a» пересобран.',
            }),
          ],
          next_cursor: null,
        });
      if (url === '/api/sellers') return json({ items: [] });
      return json({});
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
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

describe('stale reports in the list', () => {
  it('shows «Устарел» with the reason on single and combined reports, not on fresh ones', async () => {
    renderPage();
    const a = await screen.findByTestId('stale-badge-a');
    expect(a.textContent).toBe('Устарел');
    expect(a.getAttribute('title')).toContain('Себестоимость');
    expect(screen.getByTestId('stale-badge-c').getAttribute('title')).toContain('пересобран');
    expect(screen.queryByTestId('stale-badge-b')).toBeNull();
  });

  it('«Пересобрать устаревшие (2)» rebuilds the uploaded ones in one request and recombines the combined one', async () => {
    renderPage();
    const button = await screen.findByTestId('rebuild-stale-button');
    expect(button.textContent).toBe('Пересобрать устаревшие (2)');
    fireEvent.click(button);
    await waitFor(() => expect(calls.some((c) => c.url === '/api/reports/c/recombine')).toBe(true));
    const rebuild = calls.find((c) => c.url === '/api/reports/rebuild');
    expect(rebuild).toMatchObject({ method: 'POST', body: { report_ids: ['a'] } });
  });

  it('asks before the summary XLS uses a stale report; «no» sends nothing', async () => {
    const confirm = vi.fn((_text?: string) => false);
    vi.stubGlobal('confirm', confirm);
    window.confirm = confirm;
    renderPage();
    fireEvent.click(await screen.findByLabelText('Выбрать отчёт Отчёт a'));
    fireEvent.click(screen.getByTestId('summary-button'));
    expect(confirm).toHaveBeenCalledOnce();
    expect(confirm.mock.calls[0]![0]).toContain('«Отчёт a» устарел');
    expect(calls.some((c) => c.url === '/api/reports/summary-export')).toBe(false);
  });

  it('after the summary XLS, names the reports the API says went in stale; none: no line', async () => {
    vi.stubGlobal('confirm', () => true);
    window.confirm = () => true;
    URL.createObjectURL = vi.fn(() => 'blob:summary');
    URL.revokeObjectURL = vi.fn();
    staleHeader = 'a';
    renderPage();
    fireEvent.click(await screen.findByLabelText('Выбрать отчёт Отчёт a'));
    fireEvent.click(screen.getByLabelText('Выбрать отчёт Отчёт b'));
    fireEvent.click(screen.getByTestId('summary-button'));
    const line = await screen.findByTestId('summary-stale-note');
    expect(line.textContent).toContain('В сводную вошли устаревшие отчёты: «Отчёт a».');
    expect(calls.find((c) => c.url === '/api/reports/summary-export')?.body).toEqual({ report_ids: ['a', 'b'] });

    staleHeader = '';
    fireEvent.click(screen.getByTestId('summary-button'));
    await waitFor(() => expect(calls.filter((c) => c.url === '/api/reports/summary-export')).toHaveLength(2));
    await waitFor(() => expect(screen.queryByTestId('summary-stale-note')).toBeNull());
  });

  it('does not ask when nothing selected is stale', async () => {
    const confirm = vi.fn((_text?: string) => false);
    vi.stubGlobal('confirm', confirm);
    window.confirm = confirm;
    renderPage();
    fireEvent.click(await screen.findByLabelText('Выбрать отчёт Отчёт b'));
    fireEvent.click(screen.getByTestId('summary-button'));
    expect(confirm).not.toHaveBeenCalled();
  });
});
