import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { Product } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { ProductsPage } from './products-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const priced: Product = {
  article: 'PRICED',
  cost_price: 120,
  cost_price_set: true,
  cost_prices: [{ valid_from: null, cost_price: 120 }],
  updated_at: '2026-01-01T00:00:00.000Z',
};
const unpriced: Product = {
  article: 'NEW-1',
  cost_price: 0,
  cost_price_set: false,
  cost_prices: [],
  updated_at: '2026-01-01T00:00:00.000Z',
};

type Call = { url: string; method: string; body: unknown };
let calls: Call[];

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      const method = init.method ?? 'GET';
      calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
      if (method === 'PUT')
        return json(200, {
          ...unpriced,
          cost_price: 0,
          cost_price_set: true,
          cost_prices: [{ valid_from: null, cost_price: 0, updated_at: '2026-01-01T00:00:00.000Z' }],
        });
      if (url.startsWith('/api/products?') && url.includes('missing=1'))
        return json(200, { items: [unpriced], next_cursor: null });
      if (url.startsWith('/api/products')) return json(200, { items: [unpriced, priced], next_cursor: null });
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderAt(path: string) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <ProductsPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('products page: cost prices not set', () => {
  it('flags the products without a price; the others are not flagged', async () => {
    renderAt('/products');
    expect(await screen.findByTestId('cost-missing-NEW-1')).toBeTruthy();
    expect(screen.getByTestId('product-row-NEW-1').className).toContain('product-missing');
    expect(screen.queryByTestId('cost-missing-PRICED')).toBeNull();
    expect((screen.getByTestId('missing-filter').querySelector('input') as HTMLInputElement).checked).toBe(false);
  });

  it('?missing=1 (the report banner’s link) asks the API for those only, with the filter on', async () => {
    renderAt('/products?missing=1');
    await screen.findByTestId('cost-missing-NEW-1');
    expect(screen.queryByTestId('product-row-PRICED')).toBeNull();
    expect(calls.some((c) => c.url.includes('missing=1'))).toBe(true);
    expect((screen.getByTestId('missing-filter').querySelector('input') as HTMLInputElement).checked).toBe(true);
  });

  it('a never-priced product saved at 0 is sent (0 is a price the seller gives) and loses its flag', async () => {
    renderAt('/products');
    const input = await screen.findByTestId('cost-NEW-1');
    fireEvent.change(input, { target: { value: '0' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await vi.waitFor(() =>
      expect(calls.filter((c) => c.method === 'PUT')).toEqual([
        { url: '/api/products/NEW-1', method: 'PUT', body: { cost_price: 0 } },
      ]),
    );
    await vi.waitFor(() => expect(screen.queryByTestId('cost-missing-NEW-1')).toBeNull());
  });
});
