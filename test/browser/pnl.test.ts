/**
 * The «P&L» page in a real browser (Debian's Chromium) against the whole local stack on free ports:
 * the demo account uploads two weekly reports through the upload panel (19–25.01 and the week of
 * 26.01–01.02 straddling January and February 2026), opens the P&L of January–February, adds a
 * monthly period cost with the form; the table shows the lines and months as GET /api/pnl answers
 * them, net profit falls by the cost, the export downloads a workbook with the same cells; on a phone
 * the page fits the screen with a month picker. Screenshots in test-artifacts/screenshots/.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
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
  session = await openBrowserSession('browser-pnl-');
  ({ stack, page, issues, tmp } = session);
});
afterAll(async () => {
  await session?.close();
});

interface PnlAnswer {
  months: Array<{ month: string; lines: Record<string, number>; net_profit: number }>;
  totals: { lines: Record<string, number>; net_profit: number };
}

const SELLER = '5550202';

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

function weekFile(week: number): string {
  const g = generateReport({ rows: 200, layout: '2026', format: 'xlsx', seed: 500 + week, week, articles: 10 });
  const file = path.join(tmp, `Еженедельный детализированный отчет №${g.expected.report_number}_${SELLER}.xlsx`);
  writeFileSync(file, g.file);
  return file;
}

const cell = async (line: string, column: number) =>
  squash(await page.locator(`tr[data-line="${line}"] td`).nth(column).textContent());

describe('the P&L page in the browser', () => {
  it('real uploads → the months × lines table as the API answers it, a period cost added, the export', async () => {
    await signInDemo(page, stack, /\/(reports|analytics)$/);
    for (const w of [2, 3]) {
      await page.goto(`${stack.web}/reports`);
      await page.getByTestId('upload-input').setInputFiles(weekFile(w));
      const preview = page.getByTestId('upload-preview');
      await preview.waitFor();
      await preview.getByRole('button', { name: 'Загрузить отчёт' }).click();
      await page.waitForURL(/\/reports\/[0-9A-Z]+$/);
      await page.getByTestId('report-title').waitFor();
    }

    await page.getByRole('link', { name: 'P&L' }).click();
    await page.waitForURL('**/pnl');
    await page.goto(`${stack.web}/pnl?from=2026-01&to=2026-02`);
    await page.getByTestId('pnl-table').waitFor();
    const before = await api<PnlAnswer>('/pnl?from=2026-01&to=2026-02');
    const heads = (await page.locator('[data-testid="pnl-table"] thead th').allTextContents()).map(squash);
    expect(heads).toEqual(['Статья', 'Январь 2026', 'Февраль 2026', 'Итого']);
    expect(await cell('revenue', 0)).toBe(rub(before.months[0]!.lines.revenue!));
    expect(await cell('revenue', 1)).toBe(rub(before.months[1]!.lines.revenue!));
    expect(before.months[1]!.lines.revenue).toBeGreaterThan(0); // the straddling week's last day
    expect(squash(await page.getByTestId('pnl-net-total').textContent())).toBe(rub(before.totals.net_profit));

    // A monthly cost of 10 000 ₽ for January and February: net profit falls by 20 000 ₽.
    const costs = page.getByTestId('period-costs');
    await costs.getByLabel('Название').fill('Зарплата упаковщика');
    await costs.getByLabel('Категория').selectOption('salaries');
    await costs.getByLabel('Сумма, ₽').fill('10000');
    await costs.getByLabel('С месяца').fill('2026-01');
    await costs.getByLabel('По месяц (необязательно)').fill('2026-02');
    await costs.getByRole('button', { name: 'Добавить' }).click();
    await costs.getByTestId('period-cost').first().waitFor();
    const after = await api<PnlAnswer>('/pnl?from=2026-01&to=2026-02');
    expect(Math.round((before.totals.net_profit - after.totals.net_profit) * 100)).toBe(2_000_000);
    await expect
      .poll(async () => squash(await page.getByTestId('pnl-net-total').textContent()))
      .toBe(rub(after.totals.net_profit));
    expect(await cell('period_costs', 0)).toBe(rub(10_000));
    await screenshot(page, '30-pnl');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Скачать XLSX' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const file = path.join(tmp, 'pnl.xlsx');
    await download.saveAs(file);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.getWorksheet('P&L')!;
    expect(ws.getCell('C4').value).toBe('Февраль 2026');
    expect(ws.getCell('B5').value).toBe(after.months[0]!.lines.revenue);
    expect(issues, 'console errors or uncaught exceptions on the page').toEqual([]);
  });

  it('on a phone (390×844): the page fits the screen, one month beside «Итого» with a month picker', async () => {
    const phone = await openDevice(session.browser, 'phone');
    try {
      const { page: p, issues: phoneIssues } = phone;
      await signInDemo(p, stack, /\/(reports|analytics)$/);
      await p.goto(`${stack.web}/pnl?from=2026-01&to=2026-02`);
      await p.getByTestId('pnl-table').waitFor();
      const heads = (await p.locator('[data-testid="pnl-table"] thead th').allTextContents()).map(squash);
      expect(heads).toEqual(['Статья', 'Февраль 2026', 'Итого']);
      await p.getByTestId('pnl-month-picker').selectOption('2026-01');
      await expect
        .poll(async () => (await p.locator('[data-testid="pnl-table"] thead th').allTextContents()).map(squash))
        .toEqual(['Статья', 'Январь 2026', 'Итого']);
      const width = await p.evaluate(() => {
        const g = globalThis as unknown as {
          innerWidth: number;
          document: { documentElement: { scrollWidth: number } };
        };
        return { scroll: g.document.documentElement.scrollWidth, inner: g.innerWidth };
      });
      expect(width.scroll).toBeLessThanOrEqual(width.inner);
      await screenshot(p, '31-pnl-phone');
      expect(phoneIssues).toEqual([]);
    } finally {
      await phone.context.close();
    }
  });
});
