import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { LimitHistoryEntry, Seller, User } from '../api/contract';
import { AuthProvider } from '../lib/auth';
import { createQueryClient } from '../lib/query-client';
import { SettingsPage } from './settings-page';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const user: User = {
  id: 'u1',
  email: 'seller@example.ru',
  role: 'seller',
  confirmed: true,
  limits: 7_500,
  initial_limits: 10_000,
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
  allocation: 'realization',
};
const seller: Seller = {
  id: 's1',
  number: '42',
  name: 'ИП Иванов',
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
  tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 }],
  allocation: null,
};
const entry = (
  id: string,
  operation: LimitHistoryEntry['operation'],
  rows: number,
  after: number,
): LimitHistoryEntry => ({
  id,
  operation,
  rows,
  limits_after: after,
  report_id: null,
  created_at: '2026-03-01T10:00:00.000Z',
  report_title: null,
  report_deleted: false,
});

type Call = { url: string; method: string; body: unknown };
let calls: Call[];
let patchAnswer: () => Response;
let passwordAnswer: () => Response;

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  patchAnswer = () => json(200, {});
  passwordAnswer = () => json(200, { token: 'jwt-fresh', user });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      const method = init.method ?? 'GET';
      calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
      if (method === 'PATCH') return patchAnswer();
      if (url === '/api/auth/change-password') return passwordAnswer();
      if (url === '/api/config')
        return json(200, { product_name: 'Прибыльность WB', support_contact: 'help@example.org', demo_email: null });
      if (url === '/api/auth/me') return json(200, { user });
      if (url === '/api/sellers') return json(200, { items: [seller] });
      if (url === '/api/wb/connections') return json(200, { items: [] });
      if (url === '/api/auth/limit-history')
        return json(200, {
          items: [
            entry('h1', 'expense', 2_500, 7_500),
            {
              ...entry('h3', 'expense', 300, 7_200),
              report_id: 'r9',
              report_title: 'Неделя 49',
              report_deleted: false,
            },
            { ...entry('h4', 'expense', 200, 7_000), report_id: 'r8', report_title: null, report_deleted: true },
          ],
          next_cursor: 'c2',
          // 229 898 received in all: 10 000 granted + 219 898 topped up; 222 398 charged net (2 137 refunded).
          totals: { charged: 224_535, refunded: 2_137, topped_up: 219_898 },
        });
      if (url === '/api/auth/limit-history?cursor=c2')
        return json(200, { items: [entry('h2', 'topup', 10_000, 10_000)], next_cursor: null });
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
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
      <AuthProvider>
        <MemoryRouter>
          <SettingsPage />
        </MemoryRouter>
      </AuthProvider>
    </QueryClientProvider>,
  );
}

const writes = () => calls.filter((c) => c.method !== 'GET');

describe('settings page', () => {
  it('pages the limit history with "show more" until the last page', async () => {
    renderPage();
    const table = await screen.findByTestId('limit-history');
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    fireEvent.click(screen.getByRole('button', { name: 'Показать ещё' }));
    await vi.waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(5));
    const rows = within(table)
      .getAllByRole('row')
      .map((r) => plain(r.textContent));
    expect(rows[1]).toContain('Списание−2 5007 500');
    expect(rows[4]).toContain('Пополнение+10 00010 000');
    expect(screen.queryByRole('button', { name: 'Показать ещё' })).toBeNull();
  });

  it('saves the default tax profile and says so; a change hides "saved" again', async () => {
    renderPage();
    patchAnswer = () => json(200, { user: { ...user, tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 7 } } });
    fireEvent.change(await screen.findByLabelText('НДС', { selector: '#default-tax-vat' }), { target: { value: '7' } });
    fireEvent.click(screen.getByTestId('save-default-tax'));
    const panel = screen.getByRole('region', { name: 'Налоговый профиль по умолчанию' });
    expect((await within(panel).findByRole('status')).textContent).toContain('Сохранено');
    expect(writes()).toEqual([
      { url: '/api/auth/me', method: 'PATCH', body: { tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 7 } } },
    ]);
    fireEvent.change(screen.getByLabelText('НДС', { selector: '#default-tax-vat' }), { target: { value: '5' } });
    expect(within(panel).queryByRole('status')).toBeNull();
  });

  it('dated tax periods: a 2026 period with VAT 22 % goes as tax_periods; 22 % dated in 2025 is refused in Russian', async () => {
    renderPage();
    patchAnswer = () => json(200, { user });
    fireEvent.click(await screen.findByTestId('add-tax-period'));
    const panel = screen.getByRole('region', { name: 'Налоговый профиль по умолчанию' });
    fireEvent.change(screen.getByLabelText('НДС', { selector: '#default-tax-1-vat' }), { target: { value: '22' } });
    fireEvent.change(screen.getByLabelText(/Действует с/, { selector: '#default-tax-from-1' }), {
      target: { value: '2025-06-01' },
    });
    fireEvent.click(screen.getByTestId('save-default-tax'));
    expect(within(panel).getByRole('alert').textContent).toBe('НДС 22 % действует только с 01.01.2026.');
    expect(writes()).toEqual([]);
    fireEvent.change(screen.getByLabelText(/Действует с/, { selector: '#default-tax-from-1' }), {
      target: { value: '2026-01-01' },
    });
    fireEvent.click(screen.getByTestId('save-default-tax'));
    await vi.waitFor(() =>
      expect(writes()).toEqual([
        {
          url: '/api/auth/me',
          method: 'PATCH',
          body: {
            tax_periods: [
              { valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
              { valid_from: '2026-01-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 22 },
            ],
          },
        },
      ]),
    );
  });

  it('a seller’s own profile by periods goes as tax_periods', async () => {
    renderPage();
    patchAnswer = () => json(200, seller);
    const card = await screen.findByTestId('seller-42');
    fireEvent.click(within(card).getByTestId('add-tax-period-42'));
    fireEvent.change(within(card).getByLabelText(/Действует с/, { selector: '#seller-s1-from-1' }), {
      target: { value: '2026-01-01' },
    });
    fireEvent.change(within(card).getByLabelText('НДС', { selector: '#seller-s1-1-vat' }), { target: { value: '22' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Сохранить' }));
    await vi.waitFor(() =>
      expect(writes()).toEqual([
        {
          url: '/api/sellers/s1',
          method: 'PATCH',
          body: {
            name: 'ИП Иванов',
            tax_periods: [
              { valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
              { valid_from: '2026-01-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 22 },
            ],
          },
        },
      ]),
    );
  });

  it('sets the allocation of costs without an article for the user and for a seller', async () => {
    renderPage();
    patchAnswer = () => json(200, { user: { ...user, allocation: 'quantity' } });
    fireEvent.change(await screen.findByLabelText('Способ', { selector: '#allocation-method' }), {
      target: { value: 'quantity' },
    });
    fireEvent.click(screen.getByTestId('save-allocation'));
    await vi.waitFor(() =>
      expect(writes()).toEqual([{ url: '/api/auth/me', method: 'PATCH', body: { allocation: 'quantity' } }]),
    );
    patchAnswer = () => json(200, seller);
    const card = await screen.findByTestId('seller-42');
    fireEvent.change(within(card).getByLabelText('Расходы без артикула'), { target: { value: 'none' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Сохранить' }));
    await vi.waitFor(() =>
      expect(writes()[1]).toEqual({
        url: '/api/sellers/s1',
        method: 'PATCH',
        body: { name: 'ИП Иванов', tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 }, allocation: 'none' },
      }),
    );
  });

  it('refuses a USN rate above 15 % before sending anything', async () => {
    renderPage();
    fireEvent.change(await screen.findByLabelText('Ставка УСН, %', { selector: '#default-tax-usn' }), {
      target: { value: '20' },
    });
    fireEvent.click(screen.getByTestId('save-default-tax'));
    const panel = screen.getByRole('region', { name: 'Налоговый профиль по умолчанию' });
    expect(within(panel).getByRole('alert').textContent).toBe('Ставка УСН должна быть от 0 до 15 %.');
    expect(writes()).toEqual([]);
  });

  it('renames a seller and returns it to the default profile (tax: null)', async () => {
    renderPage();
    const card = await screen.findByTestId('seller-42');
    fireEvent.change(within(card).getByLabelText('Название'), { target: { value: '  ИП Петров ' } });
    fireEvent.click(within(card).getByLabelText('Свой налоговый профиль'));
    // What the server answers: the seller as stored (the contract's Seller; checked in tests).
    patchAnswer = () => json(200, { ...seller, name: 'ИП Петров', tax: null });
    fireEvent.click(within(card).getByRole('button', { name: 'Сохранить' }));
    expect((await within(card).findByRole('status')).textContent).toContain('Сохранено');
    expect(writes()).toEqual([{ url: '/api/sellers/s1', method: 'PATCH', body: { name: 'ИП Петров', tax: null } }]);
  });

  it('shows a failed seller save in the card and keeps the button usable', async () => {
    renderPage();
    patchAnswer = () => json(500, { error: { code: 'internal_error', message: 'internal error' } });
    const card = await screen.findByTestId('seller-42');
    fireEvent.click(within(card).getByRole('button', { name: 'Сохранить' }));
    expect((await within(card).findByRole('alert')).textContent).toContain('На сервере произошла ошибка.');
    expect((within(card).getByRole('button', { name: 'Сохранить' }) as HTMLButtonElement).disabled).toBe(false);
    expect(within(card).queryByRole('status')).toBeNull();
    expect(writes()).toEqual([
      {
        url: '/api/sellers/s1',
        method: 'PATCH',
        body: { name: 'ИП Иванов', tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 } },
      },
    ]);
  });

  it('shows the balance, the rows charged and topped up from the history, adding up', async () => {
    renderPage();
    const left = await screen.findByTestId('limits-left');
    expect(plain(left.textContent)).toBe('7 500');
    await vi.waitFor(() => expect(plain(screen.getByTestId('limits-charged').textContent)).toBe('222 398'));
    expect(plain(screen.getByTestId('limits-topped-up').textContent)).toBe('219 898');
    expect(plain(screen.getByTestId('limits-granted').textContent)).toBe('10 000');
    expect(plain(screen.getByTestId('limits-sum').textContent)).toContain(
      '10 000 + 219 898 пополнено − 222 398 списано = 7 500 осталось.',
    );
  });

  it('names the reports in the history, «удалён» when gone, and the operator contact for top-ups', async () => {
    renderPage();
    const link = await screen.findByRole('link', { name: 'Неделя 49' });
    expect(link.getAttribute('href')).toBe('/reports/r9');
    expect(screen.getByTestId('history-report-h4').textContent).toBe('удалён');
    expect(screen.queryByText('открыть')).toBeNull();
    const contact = await screen.findByTestId('support-contact');
    expect(contact.textContent).toBe('help@example.org');
    expect(contact.getAttribute('href')).toBe('mailto:help@example.org');
  });

  it('changes the password: checks length and repeat first, then keeps the session with the fresh token', async () => {
    renderPage();
    const panel = await screen.findByRole('region', { name: 'Смена пароля' });
    fireEvent.change(within(panel).getByTestId('current-password'), { target: { value: 'old-password' } });
    fireEvent.change(within(panel).getByTestId('new-password'), { target: { value: 'short' } });
    fireEvent.change(within(panel).getByTestId('repeat-password'), { target: { value: 'short' } });
    fireEvent.click(within(panel).getByTestId('change-password'));
    expect(within(panel).getByRole('alert').textContent).toBe(
      'Новый пароль слишком короткий: нужно не меньше 8 символов.',
    );
    expect(writes()).toEqual([]);

    fireEvent.change(within(panel).getByTestId('new-password'), { target: { value: 'a-new-password' } });
    fireEvent.change(within(panel).getByTestId('repeat-password'), { target: { value: 'a-new-password' } });
    fireEvent.click(within(panel).getByTestId('change-password'));
    expect((await within(panel).findByRole('status')).textContent).toBe('✓ Пароль изменён');
    expect(writes()).toEqual([
      {
        url: '/api/auth/change-password',
        method: 'POST',
        body: { current_password: 'old-password', new_password: 'a-new-password' },
      },
    ]);
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe('jwt-fresh');
  });

  it('shows a wrong current password as an error, not as an ended session', async () => {
    passwordAnswer = () =>
      json(400, { error: { code: 'invalid_current_password', message: 'The current password is wrong' } });
    renderPage();
    const panel = await screen.findByRole('region', { name: 'Смена пароля' });
    fireEvent.change(within(panel).getByTestId('current-password'), { target: { value: 'wrong' } });
    fireEvent.change(within(panel).getByTestId('new-password'), { target: { value: 'a-new-password' } });
    fireEvent.change(within(panel).getByTestId('repeat-password'), { target: { value: 'a-new-password' } });
    fireEvent.click(within(panel).getByTestId('change-password'));
    expect((await within(panel).findByRole('alert')).textContent).toContain('Текущий пароль указан неверно.');
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe('jwt');
  });
});
