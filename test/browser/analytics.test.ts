/**
 * The «Аналитика» page in a real browser (Debian's Chromium) against the whole local stack on free ports:
 * the demo account (one sample report) uploads three weekly reports of one seller through the upload
 * panel, with a week missing between them; the landing page becomes analytics; the page shows the
 * weeks chart (the gap hatched and named), the figures and the article table with ABC letters, exactly
 * as GET /api/analytics answers; the ABC chip filters, an article opens its weekly history, the seller
 * filter narrows it all. Screenshots in test-artifacts/screenshots/.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../scripts/fixtures/generate';
import { rub, screenshot, squash, type ConsoleIssue } from './support/browser';
import { openBrowserSession, type BrowserSession } from './support/session';
import type { TestStack } from './support/stack';
import { openDevice, signInDemo } from './support/devices';

let session: BrowserSession;
let stack: TestStack;
let page: Page;
let issues: ConsoleIssue[];
let tmp: string;

beforeAll(async () => {
  session = await openBrowserSession('browser-analytics-');
  ({ stack, page, issues, tmp } = session);
});

afterAll(async () => {
  await session?.close();
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
    // One report (the demo's): the landing page is still the reports page.
    await signInDemo(page, stack);

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

  it('on a phone (390×844): the page fits the screen, the charts and the table are on it, labels readable', async () => {
    const phone = await openDevice(session.browser, 'phone');
    try {
      const { page: p, issues: phoneIssues } = phone;
      await signInDemo(p, stack, '**/analytics');
      await p.getByTestId('weeks-chart').waitFor();
      await p.getByTestId('article-row').first().waitFor();

      const width = await p.evaluate(() => {
        const g = globalThis as unknown as {
          innerWidth: number;
          document: { documentElement: { scrollWidth: number } };
        };
        return { scroll: g.document.documentElement.scrollWidth, inner: g.innerWidth };
      });
      expect(width.inner).toBe(390);
      expect(width.scroll, 'no sideways scroll of the page').toBeLessThanOrEqual(width.inner);

      // The period picker, the figures, both charts and the table are on screen, each within its width.
      for (const testId of ['analytics-figures', 'weeks-chart', 'margin-groups-chart', 'articles-table']) {
        const el = p.getByTestId(testId);
        expect(await el.isVisible(), testId).toBe(true);
        const box = (await el.boundingBox())!;
        expect(box.x, testId).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${testId} within the screen`).toBeLessThanOrEqual(390);
      }
      // The table's header row sits at the top of its box (no gap a group row would fill).
      const tableTop = (await p.getByTestId('articles-table').boundingBox())!.y;
      const headTop = (await p.locator('[data-testid="articles-table"] thead th').first().boundingBox())!.y;
      expect(Math.abs(headTop - tableTop), 'the table header at the top of its box').toBeLessThanOrEqual(2);
      // The controls are folded under one line on a phone (the chart first): open them.
      await p.getByTestId('phone-controls').locator('summary').click();
      for (const control of await p.locator('.analytics-controls > *').all()) {
        const box = (await control.boundingBox())!;
        expect(box.x + box.width, 'the period picker within the screen').toBeLessThanOrEqual(390);
      }
      // Chart labels are drawn at a readable size, not a desktop chart shrunk to the phone.
      const sizes = await p
        .locator('[data-testid="weeks-chart"] text, [data-testid="margin-groups-chart"] text')
        .evaluateAll((els) =>
          els.map(
            (e) => (e as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height,
          ),
        );
      expect(sizes.length).toBeGreaterThan(5);
      expect(Math.min(...sizes), 'the smallest chart label, px').toBeGreaterThanOrEqual(10);
      // Every margin-group amount is inside the screen.
      const rights = await p
        .locator('[data-testid="margin-groups-chart"] text')
        .evaluateAll((els) =>
          els.map(
            (e) => (e as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect().right,
          ),
        );
      for (const right of rights) expect(right).toBeLessThanOrEqual(390);

      await screenshot(p, '20-analytics-phone');
      expect(phoneIssues, 'console errors or uncaught exceptions on the phone').toEqual([]);
    } finally {
      await phone.context.close().catch(() => undefined);
    }
  });
});
