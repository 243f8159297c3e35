/**
 * Browser-test plumbing: Debian's Chromium driven by playwright-core (never a downloaded browser),
 * console watching, screenshots, and numbers formatted the way the web app formats them.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const screenshotDir = path.join(repoRoot, 'test-artifacts', 'screenshots');

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ConsoleIssue {
  kind: 'console' | 'pageerror';
  text: string;
  /** The page's URL when it happened. */
  url: string;
  /** For a console message: where it came from (the failed resource, for the browser's own lines). */
  source?: string;
}

/**
 * Every console error and uncaught exception of a page, from now on. The browser's own resource
 * failure lines ("Failed to load resource: … 401") are console errors too; the tests decide which
 * of them are expected.
 */
export function watchConsole(page: Page): ConsoleIssue[] {
  const issues: ConsoleIssue[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error')
      issues.push({ kind: 'console', text: msg.text(), url: page.url(), source: msg.location().url || undefined });
  });
  page.on('pageerror', (err) =>
    issues.push({ kind: 'pageerror', text: `${err.name}: ${err.message}`, url: page.url() }),
  );
  return issues;
}

export const BROWSER_401 = 'Failed to load resource: the server responded with a status of 401';

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  // A full-page shot of a scrolled page paints the sticky top bar where the viewport was.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Text as a person reads it: every run of spaces (incl. the no-break ones Intl puts in numbers) is one space. */
export const squash = (s: string | null | undefined): string => (s ?? '').replace(/[\s\u00a0\u202f]+/g, ' ').trim();

const money = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 0 });

/** Roubles as the page shows them in the figures: "1 234,56 ₽" (spaces squashed). */
export const rub = (roubles: number): string => squash(`${money.format(roubles)} ₽`);
/** Roubles in table cells: "1 234,56". */
export const roubles = (value: number): string => squash(money.format(value));
export const int = (n: number): string => squash(integer.format(n));

/** "240 строк", "1 строка", "3 строки" — the page's Russian plural of rows. */
export function rowsWord(n: number): string {
  const mod10 = n % 10;
  const mod100 = n % 100;
  const word =
    mod10 === 1 && mod100 !== 11
      ? 'строка'
      : mod10 >= 2 && mod10 <= 4 && (mod100 < 12 || mod100 > 14)
        ? 'строки'
        : 'строк';
  return `${int(n)} ${word}`;
}
