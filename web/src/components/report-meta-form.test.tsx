import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { TOKEN_KEY } from '../api/session';
import type { Report } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { ReportMetaForm } from './report-meta-form';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
let patchAnswer: () => Response;

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  // What the server answers: the report's summary (the contract's ReportSummary; checked in tests).
  patchAnswer = () =>
    json(200, {
      report: {
        id: 'r1',
        title: 'Отчёт за 18.05–24.05.2026',
        report_number: null,
        seller: null,
        period_from: '2026-05-18',
        period_to: '2026-05-24',
        rows: 10,
        is_combined: false,
        source_path: null,
        source_available: false,
        created_at: '2026-05-25T10:00:00.000Z',
        totals: {},
        status: 'ready',
      },
    });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      calls.push({ url, method: init.method ?? 'GET', body: init.body ? JSON.parse(String(init.body)) : undefined });
      if (url === '/api/sellers')
        return json(200, {
          items: [
            { id: 's1', number: '849901', name: 'ИП Иванов', tax: null, tax_periods: null, allocation: null },
            { id: 's2', number: '322244', name: '', tax: null, tax_periods: null, allocation: null },
          ],
        });
      if (url === '/api/reports/r1') return patchAnswer();
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

const report = { id: 'r1', title: 'Отчёт за 18.05–24.05.2026', seller: null } as unknown as Report;

function renderForm() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ReportMetaForm report={report} />
    </QueryClientProvider>,
  );
}

describe('report rename and seller link', () => {
  it('sends only what changed: the new title and the chosen seller', async () => {
    renderForm();
    fireEvent.click(screen.getByTestId('report-meta-edit'));
    await screen.findByRole('option', { name: 'ИП Иванов (849901)' });
    fireEvent.change(screen.getByLabelText('Название отчёта'), { target: { value: ' Май, неделя 3 ' } });
    fireEvent.change(screen.getByLabelText('Продавец отчёта'), { target: { value: 's1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Сохранить' }));
    await vi.waitFor(() => expect(screen.queryByTestId('report-meta-form')).toBeNull());
    expect(calls.find((c) => c.method === 'PATCH')).toEqual({
      url: '/api/reports/r1',
      method: 'PATCH',
      body: { title: 'Май, неделя 3', seller_id: 's1' },
    });
  });

  it('shows a refusal in Russian and keeps the form open', async () => {
    patchAnswer = () => json(404, { error: { code: 'seller_not_found', message: 'Seller not found' } });
    renderForm();
    fireEvent.click(screen.getByTestId('report-meta-edit'));
    await screen.findByRole('option', { name: '322244' });
    fireEvent.change(screen.getByLabelText('Продавец отчёта'), { target: { value: 's2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Сохранить' }));
    expect((await screen.findByTestId('report-meta-error')).textContent).toBe('Продавец не найден.');
    expect(screen.getByTestId('report-meta-form')).toBeTruthy();
  });
});
