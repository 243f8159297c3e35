import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { api, fileNameFromDisposition, resolveApiBase, TRY_AGAIN_RETRIES, tryAgainDelayMs } from './client';
import { ApiError } from './errors';
import { EMAIL_KEY, TOKEN_KEY } from './session';
import { AuthProvider } from '../lib/auth';
import { createQueryClient } from '../lib/query-client';
import { LoginPage } from '../pages/login-page';

type Handler = (url: string, init: RequestInit) => Response | Promise<Response>;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let reload: ReturnType<typeof vi.fn<() => void>>;
let fetchMock: ReturnType<typeof vi.fn>;

function mockFetch(handler: Handler) {
  fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => handler(String(input), init));
  vi.stubGlobal('fetch', fetchMock);
}

/** The sign-in page with the reports page behind it, as the app routes them. */
function renderLogin() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/login']}>
        <AuthProvider>
          <Routes>
            <Route path="/login" element={<LoginPage />} />
            <Route path="/reports" element={<div>Список отчётов</div>} />
            <Route path="/" element={<div>Главная: аналитика или отчёты</div>} />
          </Routes>
        </AuthProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  reload = vi.fn<() => void>();
  vi.spyOn(window.location, 'reload').mockImplementation(reload);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  window.localStorage.clear();
});

describe('session handling', () => {
  it('sends the stored token, and on 401 clears svc_token and svc_email and reloads the page', async () => {
    window.localStorage.setItem(TOKEN_KEY, 'jwt-1');
    window.localStorage.setItem(EMAIL_KEY, 'seller@example.ru');
    mockFetch(() => json(401, { error: { code: 'unauthorized', message: 'Token expired' } }));

    const error = await api.listReports({}).catch((e: unknown) => e);

    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/reports');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer jwt-1');
    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(EMAIL_KEY)).toBeNull();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(window.sessionStorage.getItem('svc_session_ended')).toBe('1');
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe('Сессия истекла. Войдите снова.');
  });

  it('treats 403 on an authenticated request the same way', async () => {
    window.localStorage.setItem(TOKEN_KEY, 'jwt-2');
    window.localStorage.setItem(EMAIL_KEY, 'seller@example.ru');
    mockFetch(() => json(403, { error: { code: 'forbidden', message: 'Forbidden' } }));

    await expect(api.me()).rejects.toBeInstanceOf(ApiError);

    expect(window.localStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(window.localStorage.getItem(EMAIL_KEY)).toBeNull();
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('keeps the session on other errors of an authenticated request', async () => {
    window.localStorage.setItem(TOKEN_KEY, 'jwt-3');
    window.localStorage.setItem(EMAIL_KEY, 'seller@example.ru');
    mockFetch(() =>
      json(402, {
        error: { code: 'insufficient_limits', message: 'Not enough limits', details: { rows: 1200, limits: 1000 } },
      }),
    );

    const error = (await api.upload('u1').catch((e: unknown) => e)) as ApiError;

    expect(error.message).toBe(
      'Недостаточно лимитов: в отчёте 1 200 строк, а у вас осталось 1 000 строк.'.replace(/ (?=\d{3} )/g, '\u00a0'),
    );
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe('jwt-3');
    expect(reload).not.toHaveBeenCalled();
  });

  it('shows a failed sign-in as a message: no token sent, nothing cleared, no reload', async () => {
    mockFetch(() => json(401, { error: { code: 'invalid_credentials', message: 'Invalid email or password' } }));
    renderLogin();

    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'seller@example.ru' } });
    fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'wrong-password' } });
    fireEvent.click(screen.getByRole('button', { name: 'Войти' }));

    const alert = await screen.findByTestId('login-error');
    expect(alert.textContent).toBe('Неверный email или пароль (или адрес ещё не подтверждён).');
    expect(alert.textContent).not.toContain('invalid_credentials');
    // (the sign-in page also reads the public /api/config)
    const [url, init] = fetchMock.mock.calls.find(([u]) => String(u) === '/api/auth/login') as [string, RequestInit];
    expect(url).toBe('/api/auth/login');
    expect(JSON.parse(String(init.body))).toEqual({ email: 'seller@example.ru', password: 'wrong-password' });
    expect((init.headers as Record<string, string>).Authorization).toBeUndefined();
    expect(reload).not.toHaveBeenCalled();
    expect(screen.queryByText('Список отчётов')).toBeNull();
  });

  it('stores the token and email after a successful sign-in and opens the landing page', async () => {
    mockFetch((url) =>
      url === '/api/config'
        ? json(200, { product_name: 'Прибыльность WB', support_contact: null, demo_email: null })
        : json(200, {
            token: 'jwt-new',
            user: {
              id: 'u1',
              email: 'seller@example.ru',
              role: 'seller',
              confirmed: true,
              limits: 10_000,
              initial_limits: 10_000,
              tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
              tax_periods: [],
              allocation: 'realization',
            },
          }),
    );
    renderLogin();
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: ' seller@example.ru ' } });
    fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'Secret-pass-42' } });
    fireEvent.click(screen.getByRole('button', { name: 'Войти' }));

    await screen.findByText('Главная: аналитика или отчёты');
    expect(window.localStorage.getItem(TOKEN_KEY)).toBe('jwt-new');
    expect(window.localStorage.getItem(EMAIL_KEY)).toBe('seller@example.ru');
  });
});

describe('error messages', () => {
  beforeEach(() => window.localStorage.setItem(TOKEN_KEY, 'jwt'));

  const cases: Array<[number, Record<string, unknown>, string]> = [
    [
      415,
      { code: 'unsupported_format', message: 'Unsupported' },
      'Этот тип файла не поддерживается. Загрузите отчёт в формате .zip, .xlsx или .xls.',
    ],
    [
      415,
      { code: 'not_a_spreadsheet', message: 'Not a zip, xlsx or xls file: this looks like CSV/text.' },
      'Файл не является таблицей: внутри не Excel (.xlsx/.xls) и не zip-архив, хотя расширение похоже. Скачайте детализированный отчёт из личного кабинета WB ещё раз и загрузите его без изменений.',
    ],
    [413, { code: 'file_too_large', message: 'Too large' }, 'Файл слишком большой.'],
    [
      409,
      { code: 'source_missing', message: 'No source' },
      'Исходный файл этого отчёта не сохранён, поэтому действие недоступно.',
    ],
    [422, { code: 'field_not_correctable', message: 'nope' }, 'Это поле нельзя скорректировать вручную.'],
    [400, { code: 'invalid_token', message: 'bad token' }, 'Ссылка недействительна или устарела. Запросите новую.'],
    [
      429,
      { code: 'rate_limited', message: 'slow down' },
      'Слишком много запросов. Подождите немного и попробуйте снова.',
    ],
    [
      400,
      { code: 'validation_error', message: 'Invalid body', details: { issues: [] } },
      'Проверьте введённые данные.',
    ],
    [404, { code: 'not_found', message: 'Not found' }, 'Не найдено: возможно, запись уже удалена.'],
    [
      404,
      { code: 'job_not_found', message: 'Not found' },
      'Задача объединения не найдена: возможно, сервер был перезапущен. Запустите объединение ещё раз.',
    ],
    [
      500,
      { code: 'internal_error', message: 'internal error' },
      'На сервере произошла ошибка. Попробуйте ещё раз чуть позже.',
    ],
    [502, {}, 'На сервере произошла ошибка. Попробуйте ещё раз чуть позже.'],
    [418, { code: 'some_new_code', message: 'teapot' }, 'Что-то пошло не так. Попробуйте ещё раз.'],
  ];

  it.each(cases)('HTTP %i %o → a Russian message', async (status, body, expected) => {
    mockFetch(() => json(status, Object.keys(body).length ? { error: body } : { message: 'Bad Gateway' }));
    const error = (await api.getReport('r1').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe(expected);
    expect(error.message).not.toMatch(/[a-z]+_[a-z]+/);
  });

  it('names the missing columns of a bad file in Russian, without the API English text', async () => {
    mockFetch(() =>
      json(422, {
        error: {
          code: 'missing_headers',
          message:
            'Not a Wildberries detailed report: missing columns «Тип документа», «К перечислению Продавцу за реализованный Товар».',
          details: { missing: ['Тип документа', 'К перечислению Продавцу за реализованный Товар'] },
        },
      }),
    );
    const error = (await api.countRows('up1').catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe(
      'Файл не похож на детализированный отчёт Wildberries: в нём нет нужных колонок. Не найдены: «Тип документа», «К перечислению Продавцу за реализованный Товар».',
    );
    expect(error.serverMessage).toBeUndefined();
  });

  it('keeps a Russian API text about a bad file as a detail, and drops an English one', async () => {
    mockFetch(() => json(422, { error: { code: 'corrupt_file', message: 'Лист «Отчёт» обрывается на строке 812' } }));
    const russian = (await api.countRows('up1').catch((e: unknown) => e)) as ApiError;
    expect(russian.message).toBe('Файл повреждён или не читается.');
    expect(russian.serverMessage).toBe('Лист «Отчёт» обрывается на строке 812');

    mockFetch(() => json(422, { error: { code: 'corrupt_file', message: 'Unexpected end of central directory' } }));
    const english = (await api.countRows('up1').catch((e: unknown) => e)) as ApiError;
    expect(english.message).toBe('Файл повреждён или не читается.');
    expect(english.serverMessage).toBeUndefined();
  });

  it('reports a network failure in Russian', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    const error = (await api.listProducts('').catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('network_error');
    expect(error.message).toBe('Нет связи с сервером. Проверьте подключение к интернету и попробуйте ещё раз.');
    expect(reload).not.toHaveBeenCalled();
  });

  it('reports a server answer that is not JSON (an HTML error page) without internals', async () => {
    mockFetch(() => new Response('<html>Internal Server Error at Object.<anonymous></html>', { status: 500 }));
    const error = (await api.me().catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe('На сервере произошла ошибка. Попробуйте ещё раз чуть позже.');
  });
});

describe('503 try_again: a store did not answer in time', () => {
  const tryAgain = (retryAfter?: string) =>
    new Response(JSON.stringify({ error: { code: 'try_again', message: 'A store did not answer in time' } }), {
      status: 503,
      headers: { 'Content-Type': 'application/json', ...(retryAfter ? { 'Retry-After': retryAfter } : {}) },
    });

  it('is sent again after the Retry-After wait and the second answer is the result', async () => {
    vi.useFakeTimers();
    try {
      let n = 0;
      mockFetch(() => (++n === 1 ? tryAgain('5') : json(200, { items: [], next_cursor: null })));
      const pending = api.listProducts('');
      await vi.advanceTimersByTimeAsync(4_900);
      expect(fetchMock).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(200);
      await expect(pending).resolves.toEqual({ items: [], next_cursor: null });
      expect(fetchMock).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('after TRY_AGAIN_RETRIES repeats the Russian message is shown; other 5xx are not repeated', async () => {
    vi.useFakeTimers();
    try {
      mockFetch(() => tryAgain());
      const pending = api.countRows('up-1').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(10_000);
      const error = (await pending) as ApiError;
      expect(fetchMock).toHaveBeenCalledTimes(1 + TRY_AGAIN_RETRIES);
      expect([error.status, error.code]).toEqual([503, 'try_again']);
      expect(error.message).toMatch(/^Сервер не успел ответить вовремя/);
    } finally {
      vi.useRealTimers();
    }
    mockFetch(() => json(500, { error: { code: 'internal_error', message: 'x' } }));
    await api.me().catch(() => undefined);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('waits the Retry-After (at most 10 s), else 1 s then 2 s', () => {
    expect(tryAgainDelayMs(1, '5')).toBe(5_000);
    expect(tryAgainDelayMs(1, '120')).toBe(10_000);
    expect(tryAgainDelayMs(1, null)).toBe(1_000);
    expect(tryAgainDelayMs(2, null)).toBe(2_000);
  });
});

describe('request details', () => {
  it('resolves the API base: relative by default, VITE_API_BASE with or without /api', () => {
    expect(resolveApiBase(undefined)).toBe('/api');
    expect(resolveApiBase('')).toBe('/api');
    expect(resolveApiBase('https://abc.cloudfront.net')).toBe('https://abc.cloudfront.net/api');
    expect(resolveApiBase('https://abc.cloudfront.net/api/')).toBe('https://abc.cloudfront.net/api');
  });

  it('reads Cyrillic file names from Content-Disposition', () => {
    expect(
      fileNameFromDisposition(
        `attachment; filename="report.xlsx"; filename*=UTF-8''${encodeURIComponent('Отчёт 123.xlsx')}`,
      ),
    ).toBe('Отчёт 123.xlsx');
    expect(fileNameFromDisposition('attachment; filename="summary.xls"')).toBe('summary.xls');
    expect(fileNameFromDisposition(null)).toBeNull();
  });

  it('sends the manual value in roubles as JSON to the item route', async () => {
    window.localStorage.setItem(TOKEN_KEY, 'jwt');
    const item = {
      item_id: 'item/7',
      article: 'A-1',
      category: 'Платья',
      nm_id: '1',
      brand: 'B',
      computed: { realization: 1000 },
      manual_values: { realization: 1500.5 },
      effective: { realization: 1500.5 },
      null_reasons: {},
    };
    mockFetch(() => json(200, { item, totals: { realization: 1500.5 } }));
    await api.setManualValue('item/7', 'realization', 1500.5);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/reports/items/item%2F7/manual-value');
    expect(init.method).toBe('PUT');
    expect(JSON.parse(String(init.body))).toEqual({ field: 'realization', value: 1500.5 });
  });
});

describe('report items as columns', () => {
  it('asks for columns and gives the page items as objects, with corrections and computed values kept', async () => {
    let asked = '';
    mockFetch((url) => {
      asked = url;
      return json(200, {
        report: {
          id: 'R1',
          title: 'Отчёт R1',
          report_number: null,
          seller: null,
          period_from: null,
          period_to: null,
          rows: 2,
          is_combined: false,
          source_path: null,
          source_available: false,
          created_at: '2026-11-01T00:00:00.000Z',
          totals: {},
          status: 'ready',
          tax_profile: { tax_system: 'none', usn_rate: 0, vat_rate: 0 },
          allocation: null,
          cost_attribution: null,
          commission_by_category: [],
          warnings: [],
          stale: false,
          stale_reason: null,
          costs_pending: [],
          item_columns: {
            count: 2,
            item_id: ['R1.1000001', 'R1.1000002'],
            article: ['A', 'B'],
            category: ['c', 'c'],
            nm_id: ['1', '2'],
            brand: ['b', 'b'],
            fields: ['logistics', 'profit'],
            effective: [
              [10, 50.5],
              [1, 2],
            ],
            computed: { logistics: { 1: 20 }, profit: { 1: -28.5 } },
            manual_values: { logistics: { 1: 50.5 } },
            null_reasons: { margin: { 0: 'no_cost_price' } },
          },
        },
      });
    });
    const { report } = await api.getReport('R1');
    expect(asked).toContain('/reports/R1?items=columns');
    expect(report.items).toEqual([
      {
        item_id: 'R1.1000001',
        article: 'A',
        category: 'c',
        nm_id: '1',
        brand: 'b',
        computed: { logistics: 10, profit: 1 },
        manual_values: {},
        effective: { logistics: 10, profit: 1 },
        null_reasons: { margin: 'no_cost_price' },
      },
      {
        item_id: 'R1.1000002',
        article: 'B',
        category: 'c',
        nm_id: '2',
        brand: 'b',
        computed: { logistics: 20, profit: -28.5 },
        manual_values: { logistics: 50.5 },
        effective: { logistics: 50.5, profit: 2 },
        null_reasons: {},
      },
    ]);
    expect('item_columns' in report).toBe(false);
  });
});
