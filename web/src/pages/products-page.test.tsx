import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { ProductsPage } from './products-page';

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  vi.stubGlobal(
    'fetch',
    vi.fn(
      async () =>
        new Response(
          JSON.stringify({
            items: [
              {
                article: 'A-1',
                cost_price: 350,
                cost_price_set: true,
                cost_prices: [{ valid_from: null, cost_price: 350 }],
                updated_at: '2026-01-01T00:00:00.000Z',
              },
            ],
            next_cursor: null,
          }),
          {
            status: 200,
            headers: { 'Content-Type': 'application/json' },
          },
        ),
    ),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

describe('catalog', () => {
  it('names the column «Себестоимость за шт, ₽» and shows a bad price as an error, not as a success', async () => {
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <ProductsPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const input = await screen.findByTestId('cost-A-1');
    expect(screen.getByRole('columnheader', { name: 'Себестоимость за шт, ₽' })).toBeTruthy();
    fireEvent.change(input, { target: { value: '-5' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    const error = screen.getByTestId('cost-error-A-1');
    expect(error.textContent).toBe('Введите число ≥ 0');
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.className).toContain('save-state-error');
    expect(input.getAttribute('aria-invalid')).toBe('true');
  });
});

describe('catalog import and prices as the server takes them', () => {
  const page = () =>
    render(
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter>
          <ProductsPage />
        </MemoryRouter>
      </QueryClientProvider>,
    );

  it('refuses a price with more than 2 decimals before sending it', async () => {
    page();
    const input = await screen.findByTestId('cost-A-1');
    const calls = (fetch as unknown as ReturnType<typeof vi.fn>).mock.calls.length;
    fireEvent.change(input, { target: { value: '0,001' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(screen.getByTestId('cost-error-A-1').textContent).toBe('Не больше 2 знаков после запятой');
    expect((fetch as unknown as ReturnType<typeof vi.fn>).mock.calls.length).toBe(calls);
  });

  it('lists the articles the catalog does not know and adds them only when asked', async () => {
    const sent: FormData[] = [];
    const list = (fetch as unknown as ReturnType<typeof vi.fn>).getMockImplementation() as (
      url: string,
      init?: RequestInit,
    ) => Promise<Response>;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (!String(url).includes('/products/import')) return list(url, init);
        const form = init!.body as FormData;
        sent.push(form);
        const add = form.get('create_missing') === 'true';
        return new Response(
          JSON.stringify({
            updated: 1,
            created: add ? 2 : 0,
            unknown: add ? { count: 0, articles: [] } : { count: 2, articles: ['НОВЫЙ-1', 'опечатка-2'] },
            errors: [],
          }),
          { status: 200, headers: { 'Content-Type': 'application/json' } },
        );
      }),
    );
    page();
    const file = new File(['Артикул;Себестоимость\nA-1;10\nНОВЫЙ-1;5\nопечатка-2;7\n'], 'prices.csv', {
      type: 'text/csv',
    });
    fireEvent.change(await screen.findByTestId('import-input'), { target: { files: [file] } });
    const unknown = await screen.findByTestId('import-unknown');
    expect(sent[0]!.get('create_missing')).toBeNull();
    expect(Array.from(unknown.querySelectorAll('li')).map((li) => li.textContent)).toEqual(['НОВЫЙ-1', 'опечатка-2']);
    expect(screen.getByTestId('import-result').textContent).toContain('нет в каталоге 2');

    fireEvent.click(screen.getByTestId('import-add-missing'));
    await vi.waitFor(() => expect(screen.getByTestId('import-result').textContent).toContain('добавлено 2'));
    expect(sent[1]!.get('create_missing')).toBe('true');
    expect(screen.queryByTestId('import-unknown')).toBeNull();
  });
});
