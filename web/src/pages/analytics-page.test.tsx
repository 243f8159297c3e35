import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { TOKEN_KEY } from '../api/session';
import type { Analytics, AnalyticsArticle } from '../api/contract';
import { createQueryClient } from '../lib/query-client';
import { AnalyticsPage, hasPrevious, presetRange, PROCESSING_POLL_MS } from './analytics-page';

const plain = (s: string | null | undefined) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const fig = (realization: number, profit: number, extra: Partial<Analytics['totals']> = {}) => ({
  realization,
  for_pay: realization * 0.8,
  payout: realization * 0.6,
  profit,
  margin: realization > 0 ? Math.round((profit / realization) * 10000) / 100 : null,
  sales_qty: 10,
  returns_qty: 2,
  expenses: realization - profit,
  ...extra,
});
const art = (article: string, abc: 'A' | 'B' | 'C', group: AnalyticsArticle['margin_group']): AnalyticsArticle => ({
  article,
  realization: 1000,
  profit: group === 'loss' ? -50 : 300,
  margin: group === 'loss' ? -5 : 30,
  sales_qty: 3,
  returns_qty: 0,
  abc_revenue: abc,
  abc_profit: abc,
  margin_group: group,
});

function sample(counted: number): Analytics {
  return {
    range: { from: '2026-05-04', to: '2026-05-24' },
    previous_range: { from: '2026-04-13', to: '2026-05-03' },
    seller_id: null,
    available: { report_count: counted, first_week: '2026-05-04', last_week: '2026-05-18' },
    weeks: [
      { period_from: '2026-05-04', period_to: '2026-05-10', report_ids: ['r1'], ...fig(10000, 2500) },
      { period_from: '2026-05-11', period_to: '2026-05-17', report_ids: [], ...fig(0, 0) },
      { period_from: '2026-05-18', period_to: '2026-05-24', report_ids: ['r2'], ...fig(12000, -300) },
    ],
    totals: fig(22000, 2200, { expenses: 19800 }),
    previous: {
      ...fig(20000, 2000, { expenses: 18000 }),
      change: {
        realization: 10,
        for_pay: 10,
        payout: 10,
        profit: 10,
        margin: 0,
        sales_qty: 0,
        returns_qty: null,
        expenses: 10,
      },
    },
    articles: [art('ART-1', 'A', 'high'), art('ART-2', 'B', 'low'), art('ART-3', 'C', 'loss')],
    margin_groups: {
      high: { count: 1, realization: 1000, profit: 300 },
      low: { count: 1, realization: 1000, profit: 300 },
      loss: { count: 1, realization: 1000, profit: -50 },
    },
    warnings: [
      {
        code: 'missing_week',
        message: 'нет отчёта за 11.05–17.05',
        details: { period_from: '2026-05-11', period_to: '2026-05-17' },
      },
    ],
  };
}

let answer: (url: string) => Response;
let urls: string[];
const heightDescriptor = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 700 });
});
afterAll(() => {
  if (heightDescriptor) Object.defineProperty(HTMLElement.prototype, 'clientHeight', heightDescriptor);
});
/** A USN seller at 85 % of the 2026 VAT threshold (docs/METRICS.md, «Tax thresholds»). */
const THRESHOLD = {
  seller_id: null,
  seller_name: 'Без продавца',
  tax_system: 'usn_income',
  year: 2026,
  as_of: '2026-03',
  income: 17_000_000,
  previous_year_income: 0,
  exemption_threshold: 20_000_000,
  rate5_limit: 272_500_000,
  rate7_limit: 490_500_000,
  source: 'НК РФ ст. 145',
  share: 85,
  level: 'approaching',
  warning_share: 80,
  vat_from: null,
  rate7_from: null,
  usn_lost_from: null,
  vat_rate: 0,
  message: 'Доход 2026 года 17 млн ₽ — 85 % порога освобождения от НДС 20 млн ₽.',
  proposals: [],
};

beforeEach(() => {
  window.localStorage.setItem(TOKEN_KEY, 'jwt');
  urls = [];
  answer = () => json(200, sample(2));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = String(input);
      urls.push(url);
      if (url.startsWith('/api/tax-thresholds')) return json(200, { thresholds: [THRESHOLD] });
      if (url === '/api/sellers')
        return json(200, {
          items: [{ id: 's1', number: '42', name: 'ИП Иванов', tax: null, tax_periods: null, allocation: null }],
        });
      return answer(url);
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.localStorage.clear();
});

function renderPage(path = '/analytics') {
  return render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/analytics" element={<AnalyticsPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('analytics page', () => {
  it('presets end with the newest week that has a report', () => {
    expect(presetRange('2026-05-18', 4)).toEqual({ from: '2026-04-27', to: '2026-05-24' });
    expect(presetRange('2026-05-18', 1)).toEqual({ from: '2026-05-18', to: '2026-05-24' });
  });

  it('shows the figures with their change, green or red in the right sense, and the weeks with the gap', async () => {
    renderPage();
    expect(plain((await screen.findByTestId('figure-profit')).textContent)).toBe('2 200,00 ₽');
    expect(screen.getByTestId('change-profit').className).toContain('change-good');
    expect(plain(screen.getByTestId('change-profit').textContent)).toContain('+10');
    // Costs rising is bad.
    expect(screen.getByTestId('change-expenses').className).toContain('change-bad');
    expect(screen.getAllByTestId('week-group')).toHaveLength(3);
    expect(screen.getAllByTestId('week-missing')).toHaveLength(1);
    expect(screen.getByTestId('analytics-warnings').textContent).toContain('нет отчёта за 11.05–17.05');
    expect(screen.getAllByTestId('article-row')).toHaveLength(3);
  });

  it('warns as the VAT threshold approaches (from 80 %)', async () => {
    renderPage();
    const banner = await screen.findByTestId('tax-threshold');
    expect(banner.dataset.level).toBe('approaching');
    expect(banner.textContent).toContain('85 % порога');
  });

  it('filters articles by ABC letter and margin group chips, and searches', async () => {
    renderPage();
    await screen.findByTestId('articles-table');
    fireEvent.click(screen.getByTestId('chip-abc-A').querySelector('input') as HTMLInputElement);
    await waitFor(() => expect(screen.getAllByTestId('article-row').map((r) => r.dataset.article)).toEqual(['ART-1']));
    fireEvent.click(screen.getByTestId('chip-abc-A').querySelector('input') as HTMLInputElement);
    fireEvent.click(screen.getByTestId('chip-mg-loss').querySelector('input') as HTMLInputElement);
    await waitFor(() => expect(screen.getAllByTestId('article-row').map((r) => r.dataset.article)).toEqual(['ART-3']));
    fireEvent.click(screen.getByTestId('chip-mg-loss').querySelector('input') as HTMLInputElement);
    fireEvent.change(screen.getByLabelText('Поиск по артикулу'), { target: { value: 'art-2' } });
    await waitFor(() => expect(screen.getAllByTestId('article-row').map((r) => r.dataset.article)).toEqual(['ART-2']));
  });

  it('opens an article weekly history', async () => {
    answer = (url) => {
      const a = sample(2);
      if (url.includes('article=ART-1'))
        a.history = {
          article: 'ART-1',
          weeks: a.weeks.map((w, i) => ({ ...w, profit: [100, 0, -40][i]!, realization: 500 })),
        };
      return json(200, a);
    };
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'ART-1' }));
    expect(await screen.findByTestId('article-history-chart')).toBeTruthy();
    expect(urls.some((u) => u.includes('article=ART-1'))).toBe(true);
  });

  it('says what to upload when there is nothing to compare yet', async () => {
    answer = () => json(200, { ...sample(0), weeks: [], articles: [], warnings: [] });
    renderPage();
    expect((await screen.findByTestId('analytics-empty')).textContent).toContain('Загрузите еженедельные');
  });

  it('the period picker opens on the weeks shown (those with reports), not empty', async () => {
    renderPage();
    await screen.findByTestId('analytics-figures');
    await waitFor(() => expect((screen.getByLabelText('Начало периода') as HTMLInputElement).value).toBe('2026-05-04'));
    expect((screen.getByLabelText('Конец периода') as HTMLInputElement).value).toBe('2026-05-24');
  });

  it('a preset asks for its range', async () => {
    renderPage('/analytics?weeks=4');
    await screen.findByTestId('weeks-chart');
    await waitFor(() => expect(urls).toContain('/api/analytics?from=2026-04-27&to=2026-05-24'));
  });
});

describe('analytics page notes', () => {
  it('says nothing of the previous period when it had no report (no «было 0,00 ₽» on every card)', async () => {
    const zero = fig(0, 0, { for_pay: 0, payout: 0, margin: null, sales_qty: 0, returns_qty: 0, expenses: 0 });
    const change = Object.fromEntries(Object.keys(zero).map((k) => [k, null])) as Analytics['previous']['change'];
    answer = () => json(200, { ...sample(2), previous: { ...zero, change } });
    renderPage();
    await screen.findByTestId('figure-profit');
    expect(screen.queryByTestId('previous-profit')).toBeNull();
    expect(screen.getByTestId('analytics-figures').textContent).not.toContain('было');
    expect(screen.getByTestId('analytics-figures').textContent).toContain('нет данных для сравнения');
  });

  it('shows what the previous period was when it had reports', async () => {
    renderPage();
    expect(plain((await screen.findByTestId('previous-profit')).textContent)).toBe('было 2 000,00 ₽');
    expect(hasPrevious(sample(2))).toBe(true);
  });

  it('asks again while a report is still processing, until it counts', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      let calls = 0;
      answer = () => {
        calls++;
        const a = sample(2);
        if (calls === 1)
          a.warnings = [
            ...a.warnings,
            {
              code: 'report_processing',
              message: 'отчёт «Б» за 18.05–24.05 ещё обрабатывается и не учтён',
              details: {},
            },
          ];
        return json(200, a);
      };
      renderPage();
      expect((await screen.findByTestId('analytics-warnings')).textContent).toContain('ещё обрабатывается');
      await vi.advanceTimersByTimeAsync(PROCESSING_POLL_MS + 100);
      await waitFor(() => expect(screen.getByTestId('analytics-warnings').textContent).not.toContain('обрабатывается'));
      const asked = calls;
      // Nothing processing any more: no further polling.
      await vi.advanceTimersByTimeAsync(PROCESSING_POLL_MS * 3);
      expect(calls).toBe(asked);
    } finally {
      vi.useRealTimers();
    }
  });
});
