// Issue 13 on the sign-in page: what to upload and where WB gives it, the demo account when the
// local stack has one, and the address of the session that just ended filled in.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { clearSession, EMAIL_KEY, saveSession, TOKEN_KEY } from '../api/session';
import { AuthProvider } from '../lib/auth';
import { createQueryClient } from '../lib/query-client';
import { LoginPage } from './login-page';

let demoEmail: string | null;

beforeEach(() => {
  demoEmail = null;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      if (String(input) === '/api/config')
        return new Response(
          JSON.stringify({ product_name: 'Прибыльность WB', support_contact: null, demo_email: demoEmail }),
          { status: 200, headers: { 'Content-Type': 'application/json' } },
        );
      return new Response('{}', { status: 404 });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderLogin() {
  const client = createQueryClient();
  render(
    <QueryClientProvider client={client}>
      <AuthProvider>
        <MemoryRouter>
          <LoginPage />
        </MemoryRouter>
      </AuthProvider>
    </QueryClientProvider>,
  );
}

describe('sign-in page', () => {
  it('explains what to upload and where the weekly detailed report is in the WB seller portal', () => {
    renderLogin();
    const text = screen.getByTestId('first-visit').textContent ?? '';
    expect(text).toContain('Детализированный отчёт о реализации');
    expect(text).toContain('личном кабинете продавца WB');
    expect(text).toContain('«Финансовые отчёты»');
    expect(text).toContain('«Скачать детализацию»');
  });

  it('names the demo account when the stack has one, and fills it in on request', async () => {
    demoEmail = 'demo@example.com';
    renderLogin();
    const hint = await screen.findByTestId('demo-hint');
    expect(hint.textContent).toContain('demo@example.com');
    expect(hint.textContent).toContain('.data/demo-password');
    fireEvent.click(screen.getByRole('button', { name: 'Подставить адрес' }));
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('demo@example.com');
  });

  it('has no demo hint without a demo account', async () => {
    renderLogin();
    await vi.waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalled());
    expect(screen.queryByTestId('demo-hint')).toBeNull();
  });

  it('pre-fills the email of the session that ended (svc_email is read before it is cleared)', () => {
    saveSession('jwt', 'seller@example.ru');
    clearSession();
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(EMAIL_KEY)).toBeNull();
    renderLogin();
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('seller@example.ru');
  });
});
