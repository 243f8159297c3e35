/**
 * One browser-test file's set-up: the whole stack on free ports, Chromium, one desktop page (1440×900,
 * Russian locale, downloads allowed) watched for console errors, and a temporary folder for the files the
 * test writes. `close()` undoes it all; every part tolerates a set-up that failed half-way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, watchConsole, type ConsoleIssue } from './browser';
import { startTestStack, type TestStack } from './stack';

export interface BrowserSession {
  stack: TestStack;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  issues: ConsoleIssue[];
  tmp: string;
  close(): Promise<void>;
}

export async function openBrowserSession(tmpPrefix: string): Promise<BrowserSession> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  let stack: TestStack | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await stack?.stop();
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    stack = await startTestStack();
    browser = await launchChromium();
    context = await browser.newContext({
      acceptDownloads: true,
      viewport: { width: 1440, height: 900 },
      locale: 'ru-RU',
    });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    return { stack, browser, context, page, issues: watchConsole(page), tmp, close };
  } catch (e) {
    await close();
    throw e;
  }
}
