/**
 * The two screens a browser journey is checked on — a 1440×900 desktop and a 390×844 touch phone,
 * Russian locale — and its steps: each an `it` that is not run once an earlier step failed, fails on a
 * console error or uncaught exception of either screen (unless `allow`ed), and adds the stack's last
 * server lines to a failure. Used by report-table.test.ts and seller-screens.test.ts; the phone screen and the demo's sign-in
 * by the other browser tests too.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { watchConsole, type ConsoleIssue } from './browser';
import type { TestStack } from './stack';

export interface Device {
  name: 'desktop' | 'phone';
  context: BrowserContext;
  page: Page;
  issues: ConsoleIssue[];
}

/** A fresh context and page of one screen; `timezoneId` of the phone when a journey needs another zone. */
export async function openDevice(
  browser: Browser,
  name: Device['name'],
  opts: { phoneTimezoneId?: string } = {},
): Promise<Device> {
  const context = await browser.newContext(
    name === 'desktop'
      ? { viewport: { width: 1440, height: 900 }, locale: 'ru-RU', timezoneId: 'Europe/Moscow' }
      : {
          viewport: { width: 390, height: 844 },
          deviceScaleFactor: 2,
          isMobile: true,
          hasTouch: true,
          locale: 'ru-RU',
          ...(opts.phoneTimezoneId ? { timezoneId: opts.phoneTimezoneId } : {}),
        },
  );
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { name, context, page, issues: watchConsole(page) };
}

/** Signs the demo account in on `page` and waits for the page it lands on (`landing`, a URL pattern). */
export async function signInDemo(
  page: Page,
  stack: Pick<TestStack, 'web' | 'demo'>,
  landing: string | RegExp = '**/reports',
): Promise<void> {
  await page.goto(`${stack.web}/login`);
  await page.getByLabel('Email').fill(stack.demo.email);
  await page.getByLabel('Пароль').fill(stack.demo.password);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.waitForURL(landing);
}

/** Closes both screens, the browser and the stack (whatever of them was started). */
export async function closeAll(
  devices: Array<Device | undefined>,
  browser: Browser | undefined,
  stack: TestStack | undefined,
): Promise<void> {
  for (const d of devices) await d?.context.close().catch(() => undefined);
  await browser?.close().catch(() => undefined);
  await stack?.stop();
}

/** The `step` of a journey over `screens()` (read when a step runs: they are opened in beforeAll). */
export function journeySteps(screens: () => { desktop: Device; phone: Device; stack: TestStack }) {
  let failedStep: string | null = null;
  return function step(name: string, fn: () => Promise<void>, allow: (i: ConsoleIssue) => boolean = () => false) {
    it(name, async () => {
      if (failedStep) throw new Error(`not run: the step "${failedStep}" failed first`);
      const { desktop, phone, stack } = screens();
      const seen = { d: desktop.issues.length, p: phone.issues.length };
      try {
        await fn();
        const fresh = [...desktop.issues.slice(seen.d), ...phone.issues.slice(seen.p)].filter((i) => !allow(i));
        expect(fresh, 'console errors or uncaught exceptions').toEqual([]);
      } catch (e) {
        failedStep = name;
        if (e instanceof Error) e.message += `\n--- last server lines ---\n${stack.logTail()}`;
        throw e;
      }
    });
  };
}
