import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { OwnCostsPage } from './own-costs-page';

type Line = {
  article: string | null;
  name: string;
  amount: number;
  amounts: Array<{ valid_from: string | null; amount: number }>;
};

/** A fake API: the lines in memory, as the server keeps them; every request recorded. */
let lines: Line[];
let requests: Array<{ method: string; url: string; body: unknown }>;
let importAnswer: unknown;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  lines = [
    {
      article: null,
      name: 'Упаковка',
      amount: 15,
      amounts: [
        { valid_from: null, amount: 12.5 },
        { valid_from: '2026-03-01', amount: 15 },
      ],
    },
    { article: 'A-1', name: 'Упаковка', amount: 40, amounts: [{ valid_from: null, amount: 40 }] },
  ];
  requests = [];
  importAnswer = null;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      const method = init?.method ?? 'GET';
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
      requests.push({ method, url: url.pathname + url.search, body });
      if (url.pathname.endsWith('/own-costs/import')) return json(200, importAnswer);
      if (method === 'GET') return json(200, { items: lines, updated_at: '2026-04-01T10:00:00.000Z' });
      if (method === 'PUT') {
        const b = body as { article: string | null; name: string; amount: number; valid_from?: string };
        const line: Line = {
          article: b.article,
          name: b.name,
          amount: b.amount,
          amounts: [{ valid_from: b.valid_from ?? null, amount: b.amount }],
        };
        lines = [...lines.filter((l) => !(l.article === b.article && l.name === b.name)), line];
        return json(200, line);
      }
      if (method === 'DELETE') {
        const article = url.searchParams.get('article');
        const name = url.searchParams.get('name');
        lines = lines.filter((l) => !(l.article === article && l.name === name));
        return new Response(null, { status: 204 });
      }
      return json(404, { error: { code: 'not_found', message: 'x' } });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

const renderPage = () =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <OwnCostsPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );

describe('own costs page', () => {
  it('lists the default and article lines with their dated amounts', async () => {
    renderPage();
    const table = await screen.findByTestId('own-costs-table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]!.textContent)).toEqual(['Все артикулы', 'A-1']);
    expect(rows[0]!.textContent).toContain('с начала: 12,50');
    expect(rows[0]!.textContent).toContain('с 01.03.2026: 15,00');
  });

  it('adds a line for every article with a date, refuses fractions of a kopeck, deletes a line', async () => {
    renderPage();
    await screen.findByTestId('own-costs-table');
    fireEvent.change(screen.getByTestId('own-cost-name'), { target: { value: 'Фулфилмент' } });
    fireEvent.change(screen.getByTestId('own-cost-amount'), { target: { value: '30,001' } });
    fireEvent.click(screen.getByTestId('own-cost-save'));
    expect((await screen.findByTestId('own-cost-invalid')).textContent).toBe('Не больше 2 знаков после запятой');
    expect(requests.some((r) => r.method === 'PUT')).toBe(false);

    fireEvent.change(screen.getByTestId('own-cost-amount'), { target: { value: '30,5' } });
    fireEvent.change(screen.getByTestId('own-cost-valid-from'), { target: { value: '2026-02-01' } });
    fireEvent.click(screen.getByTestId('own-cost-save'));
    await screen.findByText('Фулфилмент');
    expect(requests.find((r) => r.method === 'PUT')!.body).toEqual({
      article: null,
      name: 'Фулфилмент',
      amount: 30.5,
      valid_from: '2026-02-01',
    });

    fireEvent.click(screen.getByTestId(`own-cost-delete-${JSON.stringify(['A-1', 'Упаковка'])}`));
    await waitFor(() => expect(screen.queryByTestId(`own-cost-row-${JSON.stringify(['A-1', 'Упаковка'])}`)).toBeNull());
    expect(requests.find((r) => r.method === 'DELETE')!.url).toBe(
      `/api/own-costs?name=${encodeURIComponent('Упаковка')}&article=A-1`,
    );
  });

  it('an import that is not applied says so and lists the rows and articles to fix', async () => {
    importAnswer = {
      applied: false,
      created: 0,
      updated: 0,
      unknown: { count: 1, articles: ['ZZ-9'] },
      errors: [{ row: 3, message: 'Сумма «12,345»: больше 2 знаков после запятой' }],
    };
    renderPage();
    await screen.findByTestId('own-costs-table');
    const file = new File(['Артикул;Статья;Сумма за шт\n'], 'расходы.csv', { type: 'text/csv' });
    fireEvent.change(screen.getByTestId('own-costs-import-input'), { target: { files: [file] } });
    const result = await screen.findByTestId('own-costs-import-result');
    expect(result.textContent).toContain('расходы.csv: не применён, ничего не изменено');
    expect(
      within(screen.getByTestId('own-costs-import-errors')).getByText('Сумма «12,345»: больше 2 знаков после запятой'),
    ).toBeTruthy();
    expect(screen.getByTestId('own-costs-import-unknown').textContent).toContain('ZZ-9');
  });
});
