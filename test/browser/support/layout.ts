/**
 * What the browser tests check of a page's layout: a figure wholly on the first screen, no table running
 * past the screen without its own scroll box and a visible «листайте» hint, no sideways scrolling of the
 * page itself.
 */
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';
import type { Device } from './devices';

/** The element's box lies wholly inside the first screen (the page scrolled to its top). */
export async function onFirstScreen(d: Device, what: string, locator: Locator) {
  await locator.waitFor();
  const box = await locator.boundingBox();
  const view = d.page.viewportSize()!;
  expect(box, `${d.name}: ${what} is shown`).not.toBeNull();
  const b = box!;
  const where = `${d.name}: ${what} at x=${Math.round(b.x)} y=${Math.round(b.y)} ${Math.round(b.width)}×${Math.round(b.height)} in ${view.width}×${view.height}`;
  expect(b.y, where).toBeGreaterThanOrEqual(0);
  expect(b.x, where).toBeGreaterThanOrEqual(0);
  expect(b.y + b.height, where).toBeLessThanOrEqual(view.height);
  expect(b.x + b.width, where).toBeLessThanOrEqual(view.width + 1);
}

interface TableFit {
  table: string;
  right: number;
  /** The box that scrolls it sideways: its right edge, or null when none does. */
  scroller: { right: number; hint: boolean } | null;
}

/**
 * Every visible table: how far right it reaches and, when that is past the screen, which of its ancestors
 * scrolls it sideways and whether a visible `scroll-hint` sits beside that box. The page's own width too.
 */
async function tableFits(d: Device): Promise<{ tables: TableFit[]; pageScroll: number; pageClient: number }> {
  return d.page.evaluate(() => {
    type El = {
      getBoundingClientRect(): { right: number; width: number; height: number };
      parentElement: El | null;
      scrollWidth: number;
      clientWidth: number;
      getAttribute(n: string): string | null;
      querySelector(s: string): El | null;
      className: string;
    };
    const doc = (
      globalThis as unknown as {
        document: {
          documentElement: { scrollWidth: number; clientWidth: number };
          querySelectorAll(s: string): ArrayLike<El>;
        };
        getComputedStyle(e: El): { overflowX: string };
      }
    ).document;
    const style = (e: El) =>
      (globalThis as unknown as { getComputedStyle(e: El): { overflowX: string } }).getComputedStyle(e);
    const visible = (e: El | null) => {
      if (!e) return false;
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    const tables = Array.from(doc.querySelectorAll('table'))
      .filter(visible)
      .map((t): TableFit => {
        let scroller: TableFit['scroller'] = null;
        for (let e = t.parentElement; e; e = e.parentElement) {
          const o = style(e).overflowX;
          if ((o === 'auto' || o === 'scroll') && e.scrollWidth > e.clientWidth) {
            const around = e.parentElement ?? e;
            scroller = {
              right: e.getBoundingClientRect().right,
              hint: visible(around.querySelector('[data-testid="scroll-hint"]')),
            };
            break;
          }
        }
        return {
          table: t.getAttribute('data-testid') ?? t.className,
          right: t.getBoundingClientRect().right,
          scroller,
        };
      });
    return { tables, pageScroll: doc.documentElement.scrollWidth, pageClient: doc.documentElement.clientWidth };
  });
}

/** The page does not scroll sideways; every visible table fits, or its own box scrolls with a visible hint. */
export async function noTableOverflows(d: Device) {
  const fit = await tableFits(d);
  expect(fit.pageScroll, `${d.name}: the page scrolls sideways`).toBeLessThanOrEqual(fit.pageClient + 1);
  for (const t of fit.tables) {
    if (t.right <= fit.pageClient + 1) continue;
    expect(t.scroller, `${d.name}: table ${t.table} runs past the screen without its own scroll`).not.toBeNull();
    expect(t.scroller!.right, `${d.name}: ${t.table}'s scroll box`).toBeLessThanOrEqual(fit.pageClient + 1);
    expect(t.scroller!.hint, `${d.name}: ${t.table} scrolls sideways without a visible hint`).toBe(true);
  }
}

/** Opens `url` scrolled to its top. */
export async function top(d: Device, url: string) {
  await d.page.goto(url);
  await d.page.evaluate('window.scrollTo(0, 0)');
}
