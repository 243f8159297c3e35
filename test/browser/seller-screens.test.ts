/**
 * Issue 13 in a real browser (Debian's Chromium) against the whole local stack with its demo account:
 * every main page at 1440×900 and on a phone (390×844, touch), saved as screenshots in
 * test-artifacts/screenshots/13-*.png, and what a seller sees there — the sign-in page's explanation
 * and demo hint, report cards on the phone, a waterfall that fits the width, a capped article column,
 * corrections by tap with the computed value and a refusal shown as an error and what changed
 * downstream, a text file renamed .xlsx refused as «не является таблицей», limits that add up with the
 * history naming its reports, the operator's contact, and a password change that ends the other
 * session, whose sign-in page then offers its email again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { BROWSER_401, launchChromium, screenshot, squash } from './support/browser';
import { closeAll, journeySteps, openDevice, signInDemo, type Device } from './support/devices';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
let browser: Browser;
let tmp: string;

let desktop: Device;
let phone: Device;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'browser-screens-'));
  stack = await startTestStack();
  browser = await launchChromium();
  desktop = await openDevice(browser, 'desktop');
  phone = await openDevice(browser, 'phone', { phoneTimezoneId: 'Asia/Yekaterinburg' });
});

afterAll(async () => {
  await closeAll([desktop, phone], browser, stack);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const step = journeySteps(() => ({ desktop, phone, stack }));

const shot = (d: Device, name: string) => screenshot(d.page, `13-${d.name}-${name}`);
const text = async (d: Device, testId: string) => squash(await d.page.getByTestId(testId).first().textContent());

/** Nothing sticks out sideways: the page is no wider than the screen. */
async function noSidewaysScroll(d: Device) {
  const widths = await d.page.evaluate(() => {
    const doc = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return { scroll: doc.scrollWidth, client: doc.clientWidth };
  });
  expect(widths.scroll, `${d.name}: page width`).toBeLessThanOrEqual(widths.client + 1);
}

let reportId = '';

describe('issue 13: every main page on a desktop and on a phone', () => {
  step('sign-in page: what to upload, where WB gives it, and the demo account', async () => {
    for (const d of [desktop, phone]) {
      await d.page.goto(`${stack.web}/login`);
      const explain = await text(d, 'first-visit');
      expect(explain).toContain('Детализированный отчёт о реализации');
      expect(explain).toContain('«Финансовые отчёты»');
      expect(await text(d, 'demo-hint')).toContain(stack.demo.email);
      await shot(d, '01-sign-in');
      await noSidewaysScroll(d);
    }
  });

  step('reports list: a table on the desktop, one card per report on the phone', async () => {
    for (const d of [desktop, phone]) {
      await signInDemo(d.page, stack);
      await d.page.locator('[data-testid^="report-row-"]').first().waitFor();
      const bar = d.page.getByTestId('selection-bar');
      expect(await bar.getByTestId('summary-button').isDisabled()).toBe(true);
      expect(await bar.getByTestId('combine-button').isDisabled()).toBe(true);
      expect(await text(d, 'selection-hint')).toContain('Отметьте отчёты галочками');
      await shot(d, '02-reports');
    }
    // On the phone, period, realization, profit and status of the card are on screen.
    const row = phone.page.locator('[data-testid^="report-row-"]').first();
    reportId = ((await row.getAttribute('data-testid')) ?? '').replace('report-row-', '');
    for (const label of ['Период', 'Реализация', 'Прибыль', 'Статус']) {
      const cell = row.locator(`td[data-label="${label}"]`);
      expect(await cell.isVisible(), label).toBe(true);
      const box = await cell.boundingBox();
      expect(box, label).not.toBeNull();
      expect(box!.x + box!.width, `${label} within the screen`).toBeLessThanOrEqual(390);
    }
    await noSidewaysScroll(phone);
  });

  step('report page: the waterfall fits the phone, the article column is capped', async () => {
    for (const d of [desktop, phone]) {
      await d.page.goto(`${stack.web}/reports/${encodeURIComponent(reportId)}`);
      await d.page.getByTestId('report-title').waitFor();
      expect(await text(d, 'figure-hint-payout')).toContain('займов');
    }
    const chart = phone.page.getByTestId('waterfall-chart');
    expect(await chart.getAttribute('data-layout')).toBe('narrow');
    const box = (await chart.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // Every amount is drawn inside the chart's box.
    const amounts = await chart
      .locator('text.chart-value')
      .evaluateAll((els) =>
        els.map((e) => (e as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect().right),
      );
    expect(amounts.length).toBeGreaterThan(5);
    for (const right of amounts) expect(right).toBeLessThanOrEqual(390);
    expect(await desktop.page.getByTestId('waterfall-chart').getAttribute('data-layout')).toBeNull();

    // The phone shows a card per article until the seller asks for every column (issue 21).
    await phone.page.getByTestId('preset-all').tap();
    const table = (await phone.page.getByTestId('items-table').boundingBox())!;
    const article = (await phone.page.locator('.items-table thead th.col-article').boundingBox())!;
    expect(article.width / table.width, 'the sticky article column share of the table').toBeLessThan(0.4);
    expect(await text(phone, 'correction-hint')).not.toMatch(/наведите/i);
    for (const d of [desktop, phone]) await shot(d, '03-report');
    await noSidewaysScroll(phone);
  });

  step('correction by tap: the editor shows the computed value, a refusal as an error, then what changed', async () => {
    const p = phone.page;
    const cell = p.locator('td[data-testid$="-logistics"] button.cell-edit').first();
    // Columns are windowed (only those near the visible part render): swipe the table sideways, as a
    // seller does, until the logistics column is drawn.
    const box = p.getByTestId('items-table');
    await expect
      .poll(
        async () => {
          if ((await cell.count()) > 0) return true;
          await box.evaluate((el) => {
            (el as unknown as { scrollLeft: number }).scrollLeft += 300;
          });
          return false;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe(true);
    await cell.scrollIntoViewIfNeeded();
    const label = (await cell.getAttribute('aria-label')) ?? '';
    const article = label.replace('Изменить: Логистика, ', '');
    await cell.tap();
    const panel = p.getByTestId('editor-panel');
    await panel.waitFor();
    expect(squash(await panel.getByTestId('editor-computed').textContent())).toMatch(/^Рассчитано: [\d ]+,\d\d ₽$/);
    const input = p.getByRole('textbox', { name: `Логистика, ${article}` });
    await input.fill('много');
    await panel.getByRole('button', { name: 'Сохранить' }).tap();
    const error = panel.getByTestId('editor-error');
    expect(await error.textContent()).toBe('Введите число, например 1234,56');
    // Red, not green: the error colour of the style sheet.
    expect(
      await error.evaluate(
        (e) =>
          (globalThis as unknown as { getComputedStyle(el: unknown): { color: string } }).getComputedStyle(e).color,
      ),
    ).toBe('rgb(192, 57, 43)');
    await shot(phone, '04-report-correction-refused');

    await input.fill('1234,56');
    await panel.getByRole('button', { name: 'Сохранить' }).tap();
    const note = p.getByTestId('correction-change');
    await note.waitFor();
    const said = squash(await note.textContent());
    expect(said).toContain(`${article} · Логистика:`);
    expect(said).toContain('→ 1 234,56 ₽');
    expect(said).toMatch(/прибыль .* → .*к выплате .* → /);
    await shot(phone, '05-report-corrected');
  });

  step(
    'a text file renamed .xlsx is refused as not a spreadsheet',
    async () => {
      const file = path.join(tmp, 'report.xlsx');
      writeFileSync(file, 'Артикул;Продажи\nA-1;3\n');
      const d = desktop;
      await d.page.goto(`${stack.web}/reports`);
      await d.page.getByTestId('upload-input').setInputFiles(file);
      const failed = d.page.getByTestId('upload-failed');
      await failed.waitFor();
      expect(squash(await failed.textContent())).toContain('Файл не является таблицей');
      await shot(d, '06-upload-not-a-spreadsheet');
    },
    (i) => i.text.startsWith('Failed to load resource: the server responded with a status of 415'),
  );

  step('products page on both screens', async () => {
    for (const d of [desktop, phone]) {
      await d.page.goto(`${stack.web}/products`);
      await d.page.getByTestId('products-table').waitFor();
      expect(await d.page.getByRole('columnheader', { name: 'Себестоимость за шт, ₽' }).isVisible()).toBe(true);
      await shot(d, '07-products');
    }
  });

  step('settings: limits that add up, the history naming reports, the operator contact', async () => {
    for (const d of [desktop, phone]) {
      await d.page.goto(`${stack.web}/settings`);
      await d.page.getByTestId('limit-history').waitFor();
      await expect.poll(() => text(d, 'limits-charged')).not.toBe('…');
      const left = Number((await text(d, 'limits-left')).replace(/\s/g, ''));
      const charged = Number((await text(d, 'limits-charged')).replace(/\s/g, ''));
      const topped = Number((await text(d, 'limits-topped-up')).replace(/\s/g, ''));
      const granted = Number((await text(d, 'limits-granted')).replace(/\s/g, ''));
      expect(granted + topped - charged).toBe(left);
      expect(charged).toBeGreaterThan(0);
      const history = squash(await d.page.getByTestId('limit-history').textContent());
      expect(history).not.toContain('открыть');
      expect(await d.page.getByTestId('limit-history').getByRole('link').count()).toBeGreaterThan(0);
      expect(await text(d, 'support-contact')).toBe('support@report-profitability.local');
      await shot(d, '08-settings');
    }
  });

  step(
    'password change on the phone ends the desktop session; its sign-in page offers the email again',
    async () => {
      const p = phone.page;
      const panel = p.getByRole('region', { name: 'Смена пароля' });
      await panel.getByTestId('current-password').fill(stack.demo.password);
      await panel.getByTestId('new-password').fill('a-new-demo-password');
      await panel.getByTestId('repeat-password').fill('a-new-demo-password');
      await panel.getByTestId('change-password').tap();
      expect(squash(await panel.getByRole('status').textContent())).toBe('✓ Пароль изменён');
      // The phone carries on with the fresh token.
      await p.goto(`${stack.web}/reports`);
      await p.locator('[data-testid^="report-row-"]').first().waitFor();

      // The desktop's session is over: its next request is refused and the sign-in page has the email.
      await desktop.page.goto(`${stack.web}/reports`);
      await desktop.page.waitForURL('**/login');
      await desktop.page.getByTestId('session-ended').waitFor();
      expect(await desktop.page.getByLabel('Email').inputValue()).toBe(stack.demo.email);
      await shot(desktop, '09-session-ended');
      await desktop.page.getByLabel('Пароль').fill('a-new-demo-password');
      await desktop.page.getByRole('button', { name: 'Войти' }).click();
      await desktop.page.waitForURL('**/reports');
    },
    (i) => i.text.startsWith(BROWSER_401),
  );
});
