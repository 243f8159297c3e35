/**
 * The «Аналитика» page in a real browser (Debian's Chromium) against the whole local stack on free ports:
 * the demo account (one sample report) uploads three weekly reports of one seller through the upload
 * panel, with a week missing between them; the landing page becomes analytics; the page shows the
 * weeks chart (the gap hatched and named), the figures and the article table with ABC letters, exactly
 * as GET /api/analytics answers; the ABC chip filters, an article opens its weekly history, the seller
 * filter narrows it all. Screenshots in test-artifacts/screenshots/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import { launchChromium, rub, screenshot, squash, watchConsole, type ConsoleIssue } from './support/browser';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let issues: ConsoleIssue[];
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'browser-analytics-'));
  stack = await startTestStack();
  browser = await launchChromium();
  context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1440, height: 900 },
    locale: 'ru-RU',
  });
  page = await context.newPage();
  page.setDefaultTimeout(30_000);
  issues = watchConsole(page);
});

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  await stack?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

interface Analytics {
  range: { from: string; to: string };
  weeks: Array<{ period_from: string; period_to: string; report_ids: string[]; profit: number }>;
  totals: Record<string, number | null>;
  articles: Array<{ article: string; abc_revenue: string | null; profit: number }>;
  warnings: Array<{ code: string; message: string }>;
}

const SELLER = '5550101';
const text = async (testId: string) => squash(await page.getByTestId(testId).first().textContent());

async function api<T>(route: string): Promise<T> {
  const token = await page.evaluate(() =>
    (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
      'svc_token',
    ),
  );
  const res = await fetch(`${stack.urls.api}${route}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, `GET ${route}`).toBe(200);
  return (await res.json()) as T;
}

/** Week of 2026-01-05 + 7·(seed mod 20), renamed to one seller. */
function weekFile(seed: number): string {
  const g = generateReport({ rows: 300, layout: '2026', format: 'xlsx', seed, articles: 14 });
  const file = path.join(tmp, `Еженедельный детализированный отчет №${g.expected.report_number}_${SELLER}.xlsx`);
  writeFileSync(file, g.file);
  return file;
}

describe('the analytics page in the browser', () => {
  it('real uploads → weeks chart, figures and the ABC table as the API answers them', async () => {
    await page.goto(`${stack.web}/login`);
    await page.getByLabel('Email').fill(stack.demo.email);
    await page.getByLabel('Пароль').fill(stack.demo.password);
    await page.getByRole('button', { name: 'Войти' }).click();
    // One report (the demo's): the landing page is still the reports page.
    await page.waitForURL('**/reports');

    // Weeks 2, 3 and 5 of 2026 (19.01, 26.01, 09.02); week 4 (02.02) is missing.
    for (const seed of [2, 3, 5]) {
      await page.goto(`${stack.web}/reports`);
      await page.getByTestId('upload-input').setInputFiles(weekFile(seed));
      const preview = page.getByTestId('upload-preview');
      await preview.waitFor();
      await preview.getByRole('button', { name: 'Загрузить отчёт' }).click();
      await page.waitForURL(/\/reports\/[0-9A-Z]+$/);
      await page.getByTestId('report-title').waitFor();
    }

    // Two or more reports: the landing page is analytics.
    await page.goto(`${stack.web}/`);
    await page.waitForURL('**/analytics');
    await page.getByRole('link', { name: 'Аналитика' }).waitFor();
    await page.getByTestId('weeks-chart').waitFor();

    const data = await api<Analytics>('/analytics');
    expect(data.weeks.length).toBeGreaterThanOrEqual(5);
    await expect.poll(() => page.getByTestId('week-group').count()).toBe(data.weeks.length);
    expect(await page.getByTestId('week-missing').count()).toBe(
      data.weeks.filter((w) => w.report_ids.length === 0).length,
    );
    const missing = data.weeks.find((w) => w.period_from === '2026-02-02');
    expect(missing?.report_ids).toEqual([]);
    expect(await text('analytics-warnings')).toContain('нет отчёта за 02.02–08.02');
    expect(await text('figure-profit')).toBe(rub(data.totals.profit as number));
    expect(await text('figure-realization')).toBe(rub(data.totals.realization as number));
    expect(await text('articles-count')).toBe(`Артикулов: ${data.articles.length}`);
    // The tooltip of a week names its figures.
    const week2 = page.locator('[data-week="2026-01-19"] title');
    expect(squash(await week2.textContent())).toContain(
      `Прибыль: ${rub(data.weeks.find((w) => w.period_from === '2026-01-19')?.profit as number)}`,
    );
    await screenshot(page, '20-analytics');

    // ABC: the chip A leaves exactly the A articles.
    const aArticles = data.articles
      .filter((a) => a.abc_revenue === 'A')
      .map((a) => a.article)
      .sort();
    expect(aArticles.length).toBeGreaterThan(0);
    await page.getByTestId('chip-abc-A').click();
    await expect
      .poll(async () =>
        (
          await page
            .getByTestId('article-row')
            .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { article: string } }).dataset.article))
        ).sort(),
      )
      .toEqual(aArticles);
    for (const cell of await page.locator('[data-testid="article-row"] td[data-col="abc_revenue"]').all())
      expect(squash(await cell.textContent())).toBe('A');
    await screenshot(page, '21-analytics-abc-a');

    // An article's weekly history.
    const top = aArticles[0];
    await page
      .getByTestId('article-row')
      .filter({ has: page.getByRole('button', { name: top, exact: true }) })
      .getByRole('button')
      .click();
    await page.getByTestId('article-history-chart').waitFor();
    expect(await text('article-history')).toContain(top);
    await screenshot(page, '22-analytics-article-history');

    // The seller filter: only that seller's weeks (the demo's sample report is another seller's).
    const sellers = await api<{ items: Array<{ id: string; number: string }> }>('/sellers');
    const mine = sellers.items.find((s) => s.number === SELLER) as { id: string };
    await page.getByTestId('seller-filter').selectOption(mine.id);
    const filtered = await api<Analytics>(`/analytics?seller_id=${mine.id}`);
    await expect.poll(() => text('figure-profit')).toBe(rub(filtered.totals.profit as number));
    expect(filtered.weeks.flatMap((w) => w.report_ids)).toHaveLength(3);

    expect(issues, 'console errors or uncaught exceptions on the page').toEqual([]);
  });
});
