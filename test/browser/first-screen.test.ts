/**
 * The answer first, in a real browser (Debian's Chromium) against the whole local stack: the demo account
 * connects the WB emulator's demo token, the sync imports its weeks, and on a phone (390×844) and a desktop
 * (1440×900) each page shows on its first screen, without scrolling, the figure a seller came for — a
 * report: profit, margin, payout and «Сходится с WB»; the P&L (opened with no months asked): the newest
 * month with a report and its revenue and net profit; the analytics: the weekly trend. Every table either
 * fits the screen or scrolls in its own box with a visible «листайте» hint, and the page itself never scrolls
 * sideways. Screenshots: test-artifacts/screenshots/34-*.png.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
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
  // A machine shared by several test runs compiles the API slowly (OFFLINE_START_TIMEOUT_S).
}, 900_000);
afterAll(() => closeAll([desktop, phone], browser, stack));

const step = journeySteps(() => ({ desktop, phone, stack }));

let token = '';
let reportId = '';

describe('the answer on the first screen, on a phone and a desktop', () => {
  step(
    'the demo account connects the WB emulator; the sync imports its weeks, each agreeing with WB',
    async () => {
      for (const d of [desktop, phone]) await signInDemo(d.page, stack);
      token = (await desktop.page.evaluate(() =>
        (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
          'svc_token',
        ),
      ))!;
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const res = await fetch(`${stack.urls.api}/wb/connections`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ token: stack.wb.emulator!.token }),
      });
      expect(res.status).toBe(201);
      const weeks = stack.wb.emulator!.weeks.length;
      await expect
        .poll(
          async () => {
            const list = (await (await fetch(`${stack.urls.api}/reports`, { headers: auth })).json()) as {
              items: Array<{
                id: string;
                status: string;
                source?: string;
                period_to: string;
                reconciliation?: { status: string };
              }>;
            };
            const synced = list.items.filter(
              (r) => r.source === 'wb_api' && r.status === 'ready' && r.reconciliation?.status === 'match',
            );
            reportId = synced.sort((a, b) => b.period_to.localeCompare(a.period_to))[0]?.id ?? '';
            return synced.length;
          },
          { timeout: 200_000, interval: 2000 },
        )
        .toBe(weeks);
    },
    () => false,
  );

  step('a report: profit, margin, payout and «Сходится с WB» before any scrolling', async () => {
    for (const d of [desktop, phone]) {
      await top(d, `${stack.web}/reports/${encodeURIComponent(reportId)}`);
      await onFirstScreen(d, 'profit', d.page.getByTestId('figure-profit'));
      await onFirstScreen(d, 'margin', d.page.getByTestId('figure-margin'));
      await onFirstScreen(d, 'payout', d.page.getByTestId('figure-payout'));
      await onFirstScreen(d, 'reconciliation status', d.page.getByTestId('report-reconciliation'));
      expect(await d.page.getByTestId('report-reconciliation').textContent()).toContain('Сходится с WB');
      await noTableOverflows(d);
      await screenshot(d.page, `34-${d.name}-report`);
    }
  });

  step('the P&L opens on the months with reports; the newest of them is on the first screen', async () => {
    for (const d of [desktop, phone]) {
      await top(d, `${stack.web}/pnl`);
      const table = d.page.getByTestId('pnl-table');
      await table.waitFor();
      const month = await table.getAttribute('data-latest-month');
      expect(month).toMatch(/^\d{4}-\d{2}$/);
      await onFirstScreen(d, 'the newest month with reports', table.locator(`th[data-month="${month}"]`));
      await onFirstScreen(d, 'its revenue', table.locator(`tr[data-line="revenue"] td[data-month="${month}"]`));
      await noTableOverflows(d);
      await screenshot(d.page, `34-${d.name}-pnl`);
    }
  });

  step('the analytics: the weekly trend on the first screen', async () => {
    for (const d of [desktop, phone]) {
      await top(d, `${stack.web}/analytics`);
      await onFirstScreen(d, 'the weekly chart', d.page.getByTestId('weeks-trend'));
      await noTableOverflows(d);
      await screenshot(d.page, `34-${d.name}-analytics`);
    }
  });
});
