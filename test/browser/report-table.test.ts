/**
 * Issue 21 in a real browser (Debian's Chromium) against the whole local stack with its demo account:
 * the items table reads like a P&L — at 1440×900 profit, margin and payout are on screen beside the
 * article without scrolling sideways, «Главное» narrows the columns and is remembered — and on a phone
 * (390×844) each article is a card whose name, realization, profit and margin fit the screen.
 * Screenshots: test-artifacts/screenshots/21-*.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import path from 'node:path';
import { launchChromium, screenshot, screenshotDir, squash } from './support/browser';
import { closeAll, journeySteps, openDevice, signInDemo, type Device } from './support/devices';
import { startTestStack, type TestStack } from './support/stack';

let stack: TestStack;
let browser: Browser;

let desktop: Device;
let phone: Device;

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
  desktop = await openDevice(browser, 'desktop');
  phone = await openDevice(browser, 'phone');
});

afterAll(() => closeAll([desktop, phone], browser, stack));

const step = journeySteps(() => ({ desktop, phone, stack }));

const shot = (d: Device, name: string) => screenshot(d.page, `21-${d.name}-${name}`);

/** The right edge of what the box shows (its left edge plus its visible width). */
async function visibleRight(page: Page, testId: string): Promise<number> {
  const box = (await page.getByTestId(testId).boundingBox())!;
  const client = await page
    .getByTestId(testId)
    .evaluate((el) => (el as unknown as { clientWidth: number; scrollLeft: number }).clientWidth);
  return box.x + client;
}

let reportPath = '';

describe('issue 21: the items table reads like a P&L, on a desktop and on a phone', () => {
  step('desktop: profit, margin and payout beside the article, no sideways scrolling', async () => {
    await signInDemo(desktop.page, stack);
    const row = desktop.page.locator('[data-testid^="report-row-"]').first();
    await row.waitFor();
    const id = ((await row.getAttribute('data-testid')) ?? '').replace('report-row-', '');
    reportPath = `/reports/${encodeURIComponent(id)}`;
    const p = desktop.page;
    await p.goto(`${stack.web}${reportPath}`);
    await p.getByTestId('items-table').waitFor();
    await p.locator('tbody tr.item-row').first().waitFor();
    expect(
      await p.getByTestId('items-table').evaluate((el) => (el as unknown as { scrollLeft: number }).scrollLeft),
    ).toBe(0);
    const right = await visibleRight(p, 'items-table');
    const headers = p.locator('.items-table thead tr.header-row th');
    const names = (await headers.allTextContents()).map((t) =>
      squash(t)
        .replace(/[↑↓▲▼]/g, '')
        .trim(),
    );
    expect(names.slice(0, 4)).toEqual(['Артикул', 'Прибыль', 'Маржа, %', 'К выплате']);
    for (const i of [1, 2, 3]) {
      const box = (await headers.nth(i).boundingBox())!;
      expect(box.x + box.width, `${names[i]} within the table's visible part`).toBeLessThanOrEqual(right);
    }
    // The first row's profit is drawn on screen too.
    const profit = p.locator('tbody tr.item-row').first().locator('td[data-testid$="-profit"]');
    const pbox = (await profit.boundingBox())!;
    expect(pbox.x + pbox.width).toBeLessThanOrEqual(1440);
    expect(squash(await profit.textContent())).toMatch(/^-?[\d ]+,\d\d$/);
    // Article names wrap to two lines rather than cut mid-word on one.
    const clamp = await p
      .locator('tbody th.col-article .article-name')
      .first()
      .evaluate((el) => {
        const style = (
          globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
        ).getComputedStyle(el);
        return { clamp: style.webkitLineClamp, space: style.whiteSpace };
      });
    expect(clamp).toEqual({ clamp: '2', space: 'normal' });
    await shot(desktop, '01-all-columns');
  });

  step('desktop: «Главное» keeps the compact columns and is remembered', async () => {
    const p = desktop.page;
    await p.getByTestId('preset-main').click();
    const names = (await p.locator('.items-table thead tr.header-row th').allTextContents()).map((t) =>
      squash(t)
        .replace(/[↑↓▲▼]/g, '')
        .trim(),
    );
    expect(names.slice(0, 4)).toEqual(['Артикул', 'Реализация', 'Прибыль', 'Маржа, %']);
    expect(names).not.toContain('Логистика');
    const table = p.getByTestId('items-table');
    const widths = await table.evaluate((el) => {
      const e = el as unknown as { scrollWidth: number; clientWidth: number };
      return { scroll: e.scrollWidth, client: e.clientWidth };
    });
    expect(widths.scroll, 'every «Главное» column fits without scrolling').toBeLessThanOrEqual(widths.client + 1);
    await shot(desktop, '02-main-preset');
    await p.reload();
    await p.getByTestId('items-table').waitFor();
    expect(await p.getByTestId('preset-main').getAttribute('aria-pressed')).toBe('true');
    await p.getByTestId('preset-all').click();
  });

  step('phone: a card per article with its name, realization, profit and margin on screen', async () => {
    await signInDemo(phone.page, stack);
    const p = phone.page;
    await p.goto(`${stack.web}${reportPath}`);
    const cards = p.getByTestId('items-cards');
    await cards.waitFor();
    const card = p.locator('.item-cards li.item-card').first();
    await card.scrollIntoViewIfNeeded();
    const article = card.locator('.item-card-title');
    expect(squash(await article.textContent()).length).toBeGreaterThan(0);
    const parts = [
      article,
      ...['realization', 'profit', 'margin'].map((f) => card.locator(`dd[data-testid$="-${f}"]`)),
    ];
    for (const part of parts) {
      expect(await part.isVisible()).toBe(true);
      const box = (await part.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    expect(squash(await parts[1]!.textContent())).toMatch(/^-?[\d ]+,\d\d ₽$/);
    // A margin, or «—» with the reason when the article has no cost price.
    expect(squash(await parts[3]!.textContent())).toMatch(/%$|^—нет себестоимости$/);
    const page = await p.evaluate(() => {
      const doc = (
        globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
      ).document.documentElement;
      return { scroll: doc.scrollWidth, client: doc.clientWidth };
    });
    expect(page.scroll, 'no sideways scrolling').toBeLessThanOrEqual(page.client + 1);
    const inner = await cards.evaluate((el) => {
      const e = el as unknown as { scrollWidth: number; clientWidth: number };
      return { scroll: e.scrollWidth, client: e.clientWidth };
    });
    expect(inner.scroll).toBeLessThanOrEqual(inner.client + 1);
    // No figure is cut short (an ellipsis would hide digits), the totals' millions included.
    for (const dd of await p.locator('.item-cards-block dd').all()) {
      const cut = await dd.evaluate((el) => {
        const e = el as unknown as { scrollWidth: number; clientWidth: number };
        return e.scrollWidth > e.clientWidth;
      });
      expect(cut, squash(await dd.textContent())).toBe(false);
    }
    await shot(phone, '03-cards');
    await p.locator('.item-cards-block').screenshot({ path: path.join(screenshotDir, '21-phone-04-cards-close.png') });
  });
});
