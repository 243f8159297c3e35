import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { Link, MemoryRouter, Route, Routes } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import { createQueryClient } from '../lib/query-client';
import { UploadTray, UploadsProvider } from '../lib/uploads';
import { UploadPanel } from './upload-panel';
import { generateReport } from '../../../scripts/fixtures/generate';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** A stand-in for the browser's XMLHttpRequest: the test drives upload progress and completion. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown = null;
  status = 0;
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.onabort?.();
  }
}

type Call = { url: string; method: string; body: unknown };
const me = {
  id: 'u1',
  email: 'seller@example.ru',
  role: 'seller',
  confirmed: true,
  limits: 0,
  initial_limits: 10_000,
  tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  tax_periods: [{ valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 }],
  allocation: 'realization',
};
/** The caller's rows left, as GET /api/auth/me answers. */
let meLimits: number;
let calls: Call[];
let countAnswer: Response;
let uploadAnswer: () => Response;
/** What GET /api/reports/rep-9 answers, one after the other (the last one repeats). */
let reportAnswers: unknown[];

/** The server's answer to the upload: a whole report as the contract has it (checked in tests). */
const uploadedReport = {
  id: 'rep-9',
  title: 'Отчёт 123',
  report_number: '123',
  seller: null,
  period_from: '2026-01-05',
  period_to: '2026-01-11',
  rows: 1_234,
  is_combined: false,
  source_path: 'sources/u1/rep-9/report.zip',
  source_available: true,
  created_at: '2026-01-12T10:00:00.000Z',
  totals: {},
  status: 'ready',
  tax_profile: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
  allocation: null,
  cost_attribution: null,
  items: [],
  commission_by_category: [],
  warnings: [],
  stale: false,
  stale_reason: null,
  costs_pending: [],
};

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  calls = [];
  meLimits = 5000;
  FakeXhr.last = null;
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  uploadAnswer = () => json(201, { report: uploadedReport });
  reportAnswers = [];
  countAnswer = json(200, {
    rows: 1200,
    limits: 5000,
    limits_after: 3800,
    enough: true,
    format: 'zip',
    report_number: '777',
    seller_number: '42',
    duplicate_of: null,
  });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = String(input);
      // The caller's limits, asked before a file is sent (not one of the upload's own calls).
      if (url === '/api/auth/me') return json(200, { user: { ...me, limits: meLimits } });
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ url, method: init.method ?? 'GET', body });
      if (url === '/api/reports/upload-url')
        return json(200, {
          upload_id: 'up-1',
          url: 'https://bucket.s3/uploads/u/up-1/report.zip?sig=1',
          method: 'PUT',
          headers: { 'Content-Type': 'application/zip' },
          expires_in: 900,
        });
      if (url === '/api/reports/count-rows') return countAnswer;
      if (url === '/api/config')
        return json(200, { product_name: 'Сервис', support_contact: 'support@example.ru', demo_email: null });
      if (url === '/api/reports/upload') return uploadAnswer();
      if (url.includes('/api/reports/rep-9')) {
        const next = reportAnswers.length > 1 ? reportAnswers.shift() : reportAnswers[0];
        // GET /reports/{id}?items=columns: the items as columns (none while processing or failed).
        const { items: _items, ...rest } = next as { items?: unknown };
        const item_columns = {
          count: 0,
          fields: [],
          item_id: [],
          article: [],
          category: [],
          nm_id: [],
          brand: [],
          effective: [],
          computed: {},
          manual_values: {},
          null_reasons: {},
        };
        return json(200, { report: { ...rest, item_columns } });
      }
      return json(404, { error: { code: 'not_found', message: 'Not found' } });
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPanel() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/reports']}>
        <UploadsProvider>
          <Routes>
            <Route
              path="/reports"
              element={
                <>
                  <UploadPanel />
                  <Link to="/products">Себестоимость</Link>
                </>
              }
            />
            <Route path="/reports/:id" element={<div data-testid="opened-report">открыт отчёт</div>} />
            <Route path="/products" element={<div data-testid="products-page">себестоимость</div>} />
          </Routes>
          <UploadTray />
        </UploadsProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const processing = (rows_read: number, step = 'reading') => ({
  ...uploadedReport,
  title: 'report 42',
  status: 'processing',
  task: 'upload',
  rows: 1200,
  items: [],
  totals: {},
  progress: { step, rows_read, rows_total: 1200, items_written: 0, items_total: 0 },
});
const readyReport = { ...uploadedReport, title: 'report 42', status: 'ready', rows: 1200 };

/** Preview → confirm, with the upload answered 202 (the worker is still on it). */
async function confirmProcessing() {
  uploadAnswer = () => json(202, { report: processing(0, 'queued') });
  renderPanel();
  await pickAndTransfer();
  await screen.findByTestId('upload-preview');
  fireEvent.click(screen.getByRole('button', { name: 'Загрузить отчёт' }));
  return screen.findByTestId('tray-upload-rep-9');
}

const file = () => new File([new Uint8Array(2000)], 'report 42.zip', { type: 'application/zip' });

/** Picks a file in the panel and lets the PUT to the presigned URL succeed. */
async function pickAndTransfer() {
  fireEvent.change(screen.getByTestId('upload-input'), { target: { files: [file()] } });
  await vi.waitFor(() => expect(FakeXhr.last).not.toBeNull());
  const xhr = FakeXhr.last as FakeXhr;
  xhr.status = 200;
  act(() => xhr.onload?.());
}

describe('limits before the bytes travel', () => {
  const week = (rows: number) => {
    const g = generateReport({ layout: '2026', format: 'xlsx', rows, seed: 9 });
    return new File([new Uint8Array(g.file)], g.filename);
  };

  it('counts the rows in the browser and refuses a file the limits cannot take: nothing sent', async () => {
    meLimits = 100;
    renderPanel();
    fireEvent.change(screen.getByTestId('upload-input'), { target: { files: [week(150)] } });
    const refused = await screen.findByTestId('upload-blocked-early');
    await screen.findByTestId('support-contact');
    expect(plain(refused.textContent)).toContain(
      'Недостаточно лимитов: в отчёте 150 строк, а у вас осталось 100 строк. Не хватает 50 строк. Файл не отправлен. Обратитесь к администратору сервиса, чтобы пополнить лимит: support@example.ru.',
    );
    expect(calls.filter((c) => c.url.startsWith('/api/reports'))).toEqual([]);
    expect(FakeXhr.last).toBeNull();
    // Another file can be chosen at once.
    expect(screen.getByTestId('upload-input')).toBeTruthy();
  });

  it('sends a file the limits can take, and the server counts it again', async () => {
    meLimits = 150;
    renderPanel();
    fireEvent.change(screen.getByTestId('upload-input'), { target: { files: [week(150)] } });
    await vi.waitFor(() => expect(FakeXhr.last).not.toBeNull());
    expect(calls[0]?.url).toBe('/api/reports/upload-url');
    expect(screen.queryByTestId('upload-blocked-early')).toBeNull();
  });
});

describe('upload panel', () => {
  it('puts the file to the presigned URL with real progress, previews the charge, and opens the report after confirmation', async () => {
    renderPanel();
    fireEvent.change(screen.getByTestId('upload-input'), { target: { files: [file()] } });

    await vi.waitFor(() => expect(FakeXhr.last).not.toBeNull());
    const xhr = FakeXhr.last as FakeXhr;
    expect(calls[0]).toEqual({
      url: '/api/reports/upload-url',
      method: 'POST',
      body: { filename: 'report 42.zip', size: 2000 },
    });
    expect(xhr.method).toBe('PUT');
    expect(xhr.url).toBe('https://bucket.s3/uploads/u/up-1/report.zip?sig=1');
    expect(xhr.headers).toEqual({ 'Content-Type': 'application/zip' });
    expect(xhr.body).toBeInstanceOf(File);

    act(() => xhr.upload.onprogress?.({ loaded: 1000, total: 2000, lengthComputable: true }));
    const bar = screen.getByRole('progressbar', { name: 'Передаём файл' });
    expect(bar.getAttribute('aria-valuenow')).toBe('50');
    expect(plain(screen.getByTestId('upload-progress').textContent)).toContain('1000 Б из 2,0 КБ · 50 %');

    xhr.status = 200;
    act(() => xhr.onload?.());

    const preview = await screen.findByTestId('upload-preview');
    expect(calls[1]).toEqual({ url: '/api/reports/count-rows', method: 'POST', body: { upload_id: 'up-1' } });
    expect(plain(screen.getByTestId('upload-charge').textContent)).toBe(
      'Будет списано 1 200 строк, у вас 5 000, останется 3 800.',
    );
    expect(preview.textContent).toContain('777');

    fireEvent.click(screen.getByRole('button', { name: 'Загрузить отчёт' }));
    await screen.findByTestId('opened-report');
    expect(calls[2]).toEqual({ url: '/api/reports/upload', method: 'POST', body: { upload_id: 'up-1' } });
  });

  it('says why it cannot proceed when limits are short, and charges nothing', async () => {
    countAnswer = json(200, {
      rows: 1200,
      limits: 1000,
      limits_after: -200,
      enough: false,
      format: 'xlsx',
      report_number: null,
      seller_number: null,
      duplicate_of: null,
    });
    renderPanel();
    await pickAndTransfer();

    const blocked = await screen.findByTestId('upload-blocked');
    expect(plain(blocked.textContent)).toContain(
      'Недостаточно лимитов: в отчёте 1 200 строк, а у вас осталось 1 000 строк. Не хватает 200 строк.',
    );
    // How to get more rows: the operator's contact (GET /api/config), one space after the sentence.
    await vi.waitFor(() =>
      expect(plain(blocked.textContent)).toContain(
        'Не хватает 200 строк. Обратитесь к администратору сервиса, чтобы пополнить лимит: support@example.ru.',
      ),
    );
    expect((screen.getByRole('button', { name: 'Загрузить отчёт' }) as HTMLButtonElement).disabled).toBe(true);
    expect(calls.some((c) => c.url === '/api/reports/upload')).toBe(false);
  });

  it('shows a bad file as a Russian message from the API error', async () => {
    countAnswer = json(422, { error: { code: 'empty_report', message: 'The report has no data rows' } });
    renderPanel();
    await pickAndTransfer();
    expect((await screen.findByTestId('upload-error')).textContent).toBe('В отчёте нет ни одной строки с данными.');
  });

  it('refuses a file of another type before sending anything', async () => {
    renderPanel();
    fireEvent.change(screen.getByTestId('upload-input'), { target: { files: [new File(['x'], 'notes.pdf')] } });
    expect((await screen.findByTestId('upload-error')).textContent).toBe(
      'Этот тип файла не поддерживается. Загрузите отчёт в формате .zip, .xlsx или .xls.',
    );
    expect(calls).toHaveLength(0);
  });

  it('follows a report still processing (202) in the tray with moving progress, and opens it from the reports page', async () => {
    reportAnswers = [processing(600), processing(1200, 'writing'), readyReport];
    const card = await confirmProcessing();
    // The panel is free again at once; the tray says what the server is doing.
    expect(await screen.findByTestId('dropzone')).toBeTruthy();
    expect(card.textContent).toContain('Обрабатываем «report 42»');
    await vi.waitFor(() => expect(plain(screen.getByTestId('tray-progress').textContent)).toContain('600 из 1 200'), {
      timeout: 3000,
    });
    await screen.findByTestId('opened-report', {}, { timeout: 5000 });
    expect(screen.queryByTestId('tray-upload-rep-9')).toBeNull();
  });

  it('keeps an upload visible after leaving the reports pages and ends it with a toast there, not a jump', async () => {
    reportAnswers = [processing(300), processing(300), readyReport];
    await confirmProcessing();
    fireEvent.click(screen.getByRole('link', { name: 'Себестоимость' }));
    expect(await screen.findByTestId('products-page')).toBeTruthy();
    expect(screen.getByTestId('tray-upload-rep-9')).toBeTruthy();
    const toast = await screen.findByTestId('toast', {}, { timeout: 5000 });
    expect(toast.textContent).toContain('Отчёт «report 42» готов.');
    expect(screen.getByTestId('products-page')).toBeTruthy();
    expect(screen.queryByTestId('opened-report')).toBeNull();
    fireEvent.click(screen.getByRole('link', { name: 'Открыть отчёт' }));
    expect(await screen.findByTestId('opened-report')).toBeTruthy();
  });

  it('says in Russian why a processed upload failed and that the limits came back', async () => {
    reportAnswers = [
      {
        ...readyReport,
        status: 'failed',
        refunded_rows: 1200,
        error: {
          code: 'processing_failed',
          message: 'Не удалось обработать отчёт из-за сбоя на сервере. Лимиты возвращены; загрузите файл ещё раз.',
        },
      },
    ];
    await confirmProcessing();
    const toast = await screen.findByTestId('toast', {}, { timeout: 5000 });
    expect(toast.getAttribute('role')).toBe('alert');
    expect(toast.textContent).toContain('«report 42» не обработан: Не удалось обработать отчёт');
    expect(toast.textContent).toContain('Лимиты возвращены');
    expect(screen.queryByTestId('opened-report')).toBeNull();
  });

  it('says the report is already uploaded before anything is charged, and uploads again only when asked', async () => {
    countAnswer = json(200, {
      rows: 1200,
      limits: 5000,
      limits_after: 3800,
      enough: true,
      format: 'xls',
      report_number: '777',
      seller_number: '42',
      duplicate_of: { id: 'rep-1', title: 'Отчёт №777', created_at: '2026-05-25T10:00:00.000Z' },
    });
    renderPanel();
    await pickAndTransfer();

    const dup = await screen.findByTestId('upload-duplicate');
    expect(plain(dup.textContent)).toBe(
      'Этот отчёт уже загружен: «Отчёт №777» от 25.05.2026. Повторная загрузка спишет лимиты ещё раз, и отчёт будет в списке дважды.',
    );
    expect(screen.getByRole('link', { name: '«Отчёт №777»' }).getAttribute('href')).toBe('/reports/rep-1');
    // Nothing is uploaded (so nothing charged) until the user confirms the second copy.
    expect(calls.some((c) => c.url === '/api/reports/upload')).toBe(false);
    expect(screen.queryByRole('button', { name: 'Загрузить отчёт' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Всё равно загрузить' }));
    await screen.findByTestId('opened-report');
    expect(calls.find((c) => c.url === '/api/reports/upload')).toEqual({
      url: '/api/reports/upload',
      method: 'POST',
      body: { upload_id: 'up-1', allow_duplicate: true },
    });
  });

  it('shows a refused duplicate (409) in Russian with the existing report', async () => {
    renderPanel();
    await pickAndTransfer();
    await screen.findByTestId('upload-preview');
    vi.mocked(fetch).mockImplementationOnce(async () =>
      json(409, {
        error: {
          code: 'duplicate_report',
          message: 'You already have this report',
          details: { report_id: 'rep-1', title: 'Отчёт №777', created_at: '2026-05-25T10:00:00.000Z' },
        },
      }),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Загрузить отчёт' }));
    expect((await screen.findByTestId('upload-error')).textContent).toBe(
      'Этот отчёт уже загружен: «Отчёт №777». Повторная загрузка спишет лимиты ещё раз.',
    );
  });
});
