import type { ReactElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { ForgotPasswordPage } from './forgot-password-page';
import { RegisterPage } from './register-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
let answer: () => Response | Promise<Response>;

beforeEach(() => {
  calls = [];
  // The server's answers (the contract's: register → confirmation_sent, forgot-password → reset_sent).
  answer = () => json(202, { status: calls.at(-1)?.url.endsWith('/register') ? 'confirmation_sent' : 'reset_sent' });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      calls.push({
        url: String(input),
        method: init.method ?? 'GET',
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      });
      return answer();
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const renderPage = (page: ReactElement) => render(<MemoryRouter>{page}</MemoryRouter>);
const typeEmail = (value: string) => fireEvent.change(screen.getByLabelText('Email'), { target: { value } });

describe('registration page', () => {
  it('refuses a malformed address without asking the API', async () => {
    renderPage(<RegisterPage />);
    typeEmail('seller@example');
    fireEvent.click(screen.getByRole('button', { name: 'Зарегистрироваться' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Введите корректный email, например seller@example.ru.',
    );
    expect(calls).toEqual([]);
  });

  it('sends the trimmed address and then says where the mail went', async () => {
    renderPage(<RegisterPage />);
    typeEmail('  seller@example.ru ');
    fireEvent.click(screen.getByRole('button', { name: 'Зарегистрироваться' }));
    const done = await screen.findByTestId('register-done');
    expect(calls).toEqual([{ url: '/api/auth/register', method: 'POST', body: { email: 'seller@example.ru' } }]);
    expect(done.textContent).toContain('Мы отправили письмо на seller@example.ru.');
    expect(screen.queryByRole('form')).toBeNull();
  });

  it('shows a refusal under the field, the button usable again', async () => {
    let release: (r: Response) => void = () => undefined;
    answer = () => new Promise<Response>((resolve) => (release = resolve));
    renderPage(<RegisterPage />);
    typeEmail('seller@example.ru');
    fireEvent.click(screen.getByRole('button', { name: 'Зарегистрироваться' }));
    const sending = await screen.findByRole('button', { name: 'Отправляем…' });
    expect((sending as HTMLButtonElement).disabled).toBe(true);
    release(json(429, { error: { code: 'rate_limited', message: 'Too many requests', details: {} } }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Слишком много запросов. Подождите немного и попробуйте снова.',
    );
    expect((screen.getByRole('button', { name: 'Зарегистрироваться' }) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByTestId('register-done')).toBeNull();
  });
});

describe('password recovery page', () => {
  it('refuses a malformed address without asking the API', async () => {
    renderPage(<ForgotPasswordPage />);
    typeEmail('not an address');
    fireEvent.click(screen.getByRole('button', { name: 'Прислать ссылку' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Введите корректный email.');
    expect(calls).toEqual([]);
  });

  it('asks for a link for the trimmed address and says it was sent', async () => {
    renderPage(<ForgotPasswordPage />);
    typeEmail(' seller@example.ru');
    fireEvent.click(screen.getByRole('button', { name: 'Прислать ссылку' }));
    const done = await screen.findByTestId('forgot-done');
    expect(calls).toEqual([{ url: '/api/auth/forgot-password', method: 'POST', body: { email: 'seller@example.ru' } }]);
    expect(done.textContent).toContain('Она действует один час.');
  });
});
