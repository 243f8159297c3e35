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
        new Response(JSON.stringify({ items: [{ article: 'A-1', cost_price: 350 }], next_cursor: null }), {
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
