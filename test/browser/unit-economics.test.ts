/**
 * «Юнит-экономика» in a real browser (Debian's Chromium) against the whole local stack: the demo account
 * enters cost prices, connects the WB emulator's demo token and the sync imports the demo seller's weeks
 * (they differ week to week, scripts/local/wb/weeks.ts DEMO_PLAN). On a phone (390×844) and a desktop
 * (1440×900): the report page opens an article's unit economics; its profit and margin per unit are on the
 * first screen; the per-unit table fits or scrolls in its own box with a hint, the page never sideways; the
 * weeks used are the last four; the what-if answers the price for 20 %; an article without a cost price reads
 * «—» with the catalog link. Screenshots: test-artifacts/screenshots/34-*-unit-economics*.png.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { DEMO_PLAN } from '../../scripts/local/wb/weeks';
import { launchChromium, screenshot } from './support/browser';
import { closeAll, journeySteps, openDevice, signInDemo, type Device } from './support/devices';
import { startTestStack, type TestStack } from './support/stack';
import { noTableOverflows, onFirstScreen, top } from './support/layout';

let stack: TestStack;
let browser: Browser;
let desktop: Device;
let phone: Device;

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
  desktop = await openDevice(browser, 'desktop');
  phone = await openDevice(browser, 'phone');
}, 900_000);
afterAll(() => closeAll([desktop, phone], browser, stack));

const step = journeySteps(() => ({ desktop, phone, stack }));

/** The generator's first article (articles are named by index, whatever the seed): the shop's best seller. */
const PRICED = 'MFG1BUM000-w';
/** Left without a cost price. */
const UNPRICED = 'ФУТ-черн-2';

let reportId = '';
let weeks = 0;

describe('«Юнит-экономика» on a phone and a desktop', () => {
  step('cost prices entered, the WB emulator connected; the demo weeks arrive', async () => {
    for (const d of [desktop, phone]) await signInDemo(d.page, stack);
    const token = (await desktop.page.evaluate(() =>
      (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
        'svc_token',
      ),
    ))!;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // Before the sync, so the weeks are built with them (a first price applies from the beginning).
    for (const [article, price] of [
      [PRICED, 250],
      [DEMO_PLAN.lossArticle, 300],
    ] as const) {
      const r = await fetch(`${stack.urls.api}/products/${encodeURIComponent(article)}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ cost_price: price }),
      });
      expect(r.status, article).toBe(200);
    }
    const res = await fetch(`${stack.urls.api}/wb/connections`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ token: stack.wb.emulator!.token }),
    });
    expect(res.status).toBe(201);
    weeks = stack.wb.emulator!.weeks.length;
    await expect
      .poll(
        async () => {
          const list = (await (await fetch(`${stack.urls.api}/reports`, { headers: auth })).json()) as {
            items: Array<{ id: string; status: string; source?: string; period_to: string }>;
          };
          const synced = list.items.filter((r) => r.source === 'wb_api' && r.status === 'ready');
          reportId = synced.sort((a, b) => b.period_to.localeCompare(a.period_to))[0]?.id ?? '';
          return synced.length;
        },
        { timeout: 200_000, interval: 2000 },
      )
      .toBe(weeks);
  });

  step(
    'the report page opens an article’s unit economics; profit and margin per unit on the first screen',
    async () => {
      for (const d of [desktop, phone]) {
        await top(d, `${stack.web}/reports/${encodeURIComponent(reportId)}`);
        // Each article of the report links to its page: found by the search, then its row (or card) clicked.
        await d.page.getByLabel('Поиск по артикулам').fill(PRICED);
        await d.page.getByTestId(`ue-link-${PRICED}`).first().click();
        await d.page.waitForURL(`**/articles/${encodeURIComponent(PRICED)}/unit-economics**`);
        await d.page.evaluate('window.scrollTo(0, 0)');
        await onFirstScreen(d, 'profit per unit', d.page.getByTestId('ue-profit'));
        await onFirstScreen(d, 'margin', d.page.getByTestId('ue-margin'));
        expect(await d.page.getByTestId('ue-profit').textContent()).toMatch(/\d,\d{2}\s₽$/);
        expect(await d.page.getByTestId('ue-margin').textContent()).toMatch(/%$/);
        // The last four weeks (or as many as the emulator has), each a link to its report.
        await expect.poll(() => d.page.getByTestId('ue-weeks-used').locator('a').count()).toBe(Math.min(4, weeks));
        await d.page.getByTestId('ue-table').waitFor();
        for (const line of ['price', 'commission', 'logistics', 'storage', 'ads', 'usn', 'cost_price', 'profit'])
          expect(await d.page.locator(`[data-testid="ue-table"] tr[data-line="${line}"]`).count(), line).toBe(1);
        expect(
          await d.page.locator('[data-testid="ue-table"] tr[data-line="cost_price"] td').first().textContent(),
        ).toContain('250,00');
        await noTableOverflows(d);
        await screenshot(d.page, `34-${d.name}-unit-economics`);
      }
    },
  );

  step('the weeks selector and the what-if: the price for 20 % margin', async () => {
    for (const d of [desktop, phone]) {
      await d.page.getByTestId('ue-weeks').selectOption('2');
      await expect.poll(() => d.page.getByTestId('ue-weeks-used').locator('a').count()).toBe(Math.min(2, weeks));
      await d.page.getByLabel('Целевая маржа, %').fill('20');
      await d.page.getByRole('button', { name: 'Найти цену' }).click();
      const answer = d.page.getByTestId('ue-price-for-margin');
      await answer.waitFor();
      expect(await answer.textContent()).toMatch(/маржа 20,00 %\.$|не получить ни при какой цене/);
      await noTableOverflows(d);
    }
  });

  step('the loss-making article: a negative profit per unit', async () => {
    for (const d of [desktop, phone]) {
      await top(d, `${stack.web}/articles/${encodeURIComponent(DEMO_PLAN.lossArticle)}/unit-economics`);
      const profit = d.page.getByTestId('ue-profit');
      await onFirstScreen(d, 'profit per unit', profit);
      expect(await profit.textContent()).toMatch(/^[−-]/);
      expect(await profit.getAttribute('class')).toContain('negative');
    }
  });

  step(
    'an article without a cost price: «—» with the reason and the catalog link',
    async () => {
      for (const d of [desktop, phone]) {
        await top(d, `${stack.web}/articles/${encodeURIComponent(UNPRICED)}/unit-economics`);
        await onFirstScreen(d, '«—»', d.page.getByTestId('ue-profit'));
        expect(await d.page.getByTestId('ue-profit').textContent()).toBe('—');
        await onFirstScreen(d, 'the catalog link', d.page.getByTestId('ue-catalog-link'));
        expect(await d.page.getByTestId('ue-catalog-link').getAttribute('href')).toBe(
          `/products?search=${encodeURIComponent(UNPRICED)}`,
        );
        await screenshot(d.page, `34-${d.name}-unit-economics-no-cost`);
      }
    },
    // The browser logs the 422 it is answered with (cost_price_missing) as a failed resource.
    (i) => i.kind === 'console' && /422/.test(i.text),
  );
});
