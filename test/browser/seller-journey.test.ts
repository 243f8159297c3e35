/**
 * A seller's whole path through the web app in a real browser (Debian's Chromium), against the whole
 * local stack (DynamoDB Local, s3rver, the SES emulator, serverless-offline, Vite) on free ports:
 * sign up by mail, upload with the row-count preview, the report page against the API, a correction
 * in place, a rebuild that keeps it, the XLSX export, combining two reports, and the end of a session
 * when the API stops accepting the token. Every page is watched for console errors.
 *
 * The steps share one browser page and build on each other; a failed step marks the rest as not run.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import jwt from 'jsonwebtoken';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport, type GeneratedReport } from '../../scripts/fixtures/generate';
import { isUnknownRate } from '../../shared/engine/fields';
import { columnTitle } from '../../shared/workbooks/columns';
import { FIELDS } from '../../shared/engine/fields';
import { waitForMail } from '../support/emulators';
import { CONFIRM_SUBJECT, PASSWORD_SUBJECT, confirmLinkOf, passwordOf } from '../support/sign-up';
import {
  BROWSER_401,
  int,
  roubles,
  rowsWord,
  rub,
  screenshot,
  squash,
  watchConsole,
  type ConsoleIssue,
} from './support/browser';
import { openBrowserSession, type BrowserSession } from './support/session';
import type { TestStack } from './support/stack';

let session: BrowserSession;
let stack: TestStack;
let context: BrowserContext;
let page: Page;
let issues: ConsoleIssue[];
let tmp: string;

beforeAll(async () => {
  session = await openBrowserSession('browser-files-');
  ({ stack, context, page, issues, tmp } = session);
});

afterAll(async () => {
  await session?.close();
});

// ---------------------------------------------------------------------------------------------
// Steps: each runs only when every earlier one passed, and ends by checking the console.

let failedStep: string | null = null;

function step(name: string, fn: () => Promise<void>, opts: { allowConsole?: (issue: ConsoleIssue) => boolean } = {}) {
  it(name, async () => {
    if (failedStep) throw new Error(`not run: the step "${failedStep}" failed first`);
    const seen = issues.length;
    try {
      await fn();
      const fresh = issues.slice(seen).filter((i) => !(opts.allowConsole?.(i) ?? false));
      expect(fresh, 'console errors or uncaught exceptions on the page').toEqual([]);
    } catch (e) {
      failedStep = name;
      if (e instanceof Error) e.message += `\n--- last server lines ---\n${stack.logTail()}`;
      throw e;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Helpers

const email = `seller-${randomUUID().slice(0, 8)}@example.com`;
let password = '';

/** The page's globals these tests touch (the repo's TypeScript settings carry no DOM types). */
interface PageGlobals {
  localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  __progress?: string[];
}

const storedSession = () =>
  page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    return { token: w.localStorage.getItem('svc_token'), email: w.localStorage.getItem('svc_email') };
  });

const setStoredToken = (token: string) =>
  page.evaluate((t) => (globalThis as unknown as PageGlobals).localStorage.setItem('svc_token', t), token);

async function apiGet<T>(route: string): Promise<T> {
  const { token } = await storedSession();
  expect(token, 'svc_token in localStorage').toBeTruthy();
  const res = await fetch(`${stack.urls.api}${route}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, `GET ${route}`).toBe(200);
  return (await res.json()) as T;
}

type Values = Record<string, number | null>;
interface ApiItem {
  item_id: string;
  article: string;
  computed: Values;
  manual_values: Values;
  effective: Values;
}
interface ApiReport {
  id: string;
  title: string;
  report_number: string | null;
  rows: number;
  is_combined: boolean;
  source_report_ids?: string[];
  totals: Values;
  items: ApiItem[];
  stale?: boolean;
  warnings: Array<{ code: string; details?: Record<string, unknown> }>;
  allocation?: { method: string; total: number; spread: Record<string, number> } | null;
}

const getReport = async (id: string) =>
  (await apiGet<{ report: ApiReport }>(`/reports/${encodeURIComponent(id)}`)).report;

const kop = (roubles: number | null | undefined) => Math.round((roubles ?? 0) * 100);
const text = async (testId: string) => squash(await page.getByTestId(testId).textContent());

/**
 * The items table renders only the columns near its visible part (the result columns come first):
 * scroll it sideways, as a seller does, until the cell is drawn.
 */
async function revealCell(testId: string) {
  const cell = page.getByTestId(testId);
  const box = page.getByTestId('items-table');
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
  return cell;
}

/** Waits until the page is at /reports/<id> with an id not in `known`; returns the id. */
async function waitForReportPage(known: string[]): Promise<string> {
  await page.waitForURL((url) => {
    const m = /^\/reports\/([^/]+)$/.exec(url.pathname);
    return m !== null && !known.includes(decodeURIComponent(m[1]!));
  });
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() as string);
  await page.getByTestId('report-title').waitFor();
  return id;
}

function writeReport(seed: number, rows: number): { file: string; report: GeneratedReport } {
  const report = generateReport({ rows, layout: '2026', format: 'xlsx', seed });
  const file = path.join(tmp, report.filename);
  writeFileSync(file, report.file);
  return { file, report };
}

/** Upload through the panel on /reports: the preview must name the generator's row count and the limits. */
async function uploadThroughPanel(
  seed: number,
  rows: number,
  limitsBefore: number,
  shot?: string,
): Promise<GeneratedReport> {
  const { file, report } = writeReport(seed, rows);
  await page.getByTestId('upload-input').setInputFiles(file);
  const preview = page.getByTestId('upload-preview');
  await preview.waitFor();
  expect(await text('upload-rows')).toBe(int(rows));
  expect(await text('upload-charge')).toBe(
    `Будет списано ${rowsWord(rows)}, у вас ${int(limitsBefore)}, останется ${int(limitsBefore - rows)}.`,
  );
  expect(squash(await preview.textContent())).toContain(report.expected.report_number);
  if (shot) await screenshot(page, shot);
  await preview.getByRole('button', { name: 'Загрузить отчёт' }).click();
  return report;
}

const INITIAL_LIMITS = 10_000;
const ROWS_1 = 240;
const ROWS_2 = 180;
let report1: GeneratedReport;
let report2: GeneratedReport;
let id1 = '';
let id2 = '';
let combinedId = '';
/** The article whose logistics the seller corrects, and the corrected value in kopecks. */
let corrected = { article: '', logisticsKop: 0, computedKop: 0 };

// ---------------------------------------------------------------------------------------------

describe('the seller in the browser', () => {
  step('sign-up: register → "check your mail" → confirmation link → password mail → sign in', async () => {
    await page.goto(`${stack.web}/`);
    await page.waitForURL('**/login');
    await page.getByRole('button', { name: 'Войти' }).waitFor();
    await screenshot(page, '01-sign-in');

    await page.getByRole('link', { name: 'Регистрация' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Зарегистрироваться' }).click();
    expect(await text('register-done')).toContain(`Мы отправили письмо на ${email}`);

    const url = new URL(confirmLinkOf(await waitForMail(stack.urls.ses, email, (m) => m.subject === CONFIRM_SUBJECT)));
    // The link leads to this web app, whose page calls the API with the token.
    expect(url.origin).toBe(stack.web);
    await page.goto(url.href);
    expect(await text('confirm-result')).toContain(`адрес ${email} подтверждён. Пароль уже отправлен вам на почту`);

    password = passwordOf(await waitForMail(stack.urls.ses, email, (m) => m.subject === PASSWORD_SUBJECT));

    // The mailbox page people use locally shows both letters.
    const mailbox = await context.newPage();
    const mailboxIssues = watchConsole(mailbox);
    await mailbox.goto(stack.urls.mailbox);
    await mailbox.getByRole('heading', { name: PASSWORD_SUBJECT }).waitFor();
    await mailbox.getByRole('heading', { name: CONFIRM_SUBJECT }).waitFor();
    await screenshot(mailbox, '08-mailbox');
    await mailbox.close();
    expect(mailboxIssues).toEqual([]);

    await page.getByRole('link', { name: 'Войти' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Пароль').fill(password);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL('**/reports');
    expect(await text('user-email')).toBe(email);
    expect(await text('limits-chip')).toBe(rowsWord(INITIAL_LIMITS));
    const session = await storedSession();
    expect(session.email).toBe(email);
    expect(session.token?.split('.')).toHaveLength(3);
    await page.getByTestId('reports-empty').waitFor();
  });

  step('upload: the preview names the rows to be charged; confirming opens the report', async () => {
    report1 = await uploadThroughPanel(11, ROWS_1, INITIAL_LIMITS, '02a-first-upload-preview');
    id1 = await waitForReportPage([]);
    expect(await text('report-rows')).toBe(int(ROWS_1));
    expect(await text('report-number')).toBe(report1.expected.report_number);
    await expect.poll(() => text('limits-chip')).toBe(rowsWord(INITIAL_LIMITS - ROWS_1));
  });

  step("report page: headline figures and the totals row are the API's totals", async () => {
    const report = await getReport(id1);
    expect(report.rows).toBe(ROWS_1);
    // The generator's own bookkeeping of the file agrees with the stored report.
    const expectedRealization = report1.expected.articles.reduce((s, a) => s + a.aggregates.realization, 0);
    expect(kop(report.totals.realization)).toBe(expectedRealization);
    expect(report.items.map((i) => i.article).sort()).toEqual(report1.expected.articles.map((a) => a.article).sort());

    expect(await text('figure-realization')).toBe(rub(report.totals.realization as number));
    expect(await text('figure-profit')).toBe(rub(report.totals.profit as number));
    expect(await text('figure-payout')).toBe(rub(report.totals.payout as number));
    expect(await text('total-logistics')).toBe(roubles(report.totals.logistics as number));
    expect(await text('total-realization')).toBe(roubles(report.totals.realization as number));
    for (const item of report.items) {
      await page.getByTestId(`row-${item.article}`).waitFor();
      expect(await text(`cell-${item.article}-realization`)).toBe(roubles(item.effective.realization as number));
    }
    await screenshot(page, '03-report');
  });

  step('trust: the missing-cost banner and the allocation panel say what the report holds', async () => {
    const report = await getReport(id1);
    // A new seller has priced nothing: every article that sold is named as missing a cost price.
    const missing = report.warnings.find((w) => w.code === 'missing_cost_price');
    const sold = report1.expected.articles.filter((a) => a.article !== '' && a.aggregates.sales_qty > 0).length;
    expect(missing?.details?.articles).toBe(sold);
    expect(await text('missing-cost-count')).toBe(int(sold));
    // The default allocation spreads the «Без артикула» costs; the panel shows the method and the sum.
    expect(report.allocation?.method).toBe('realization');
    expect(await text('allocation-method')).toMatch(/^Распределены по \d+ артикул/);
    // The row is a heading cell and an amount cell: their texts run together in textContent.
    expect(await text('allocation-total')).toBe(`Всего распределено${rub(report.allocation?.total ?? 0)}`);
    await screenshot(page, '03b-missing-costs-and-allocation');
    // The banner's link opens the catalog filtered on the products without a price.
    await page.getByTestId('missing-cost-link').click();
    await page.waitForURL(/\/products\?missing=1/);
    await page.getByTestId('products-table').waitFor();
    await page.goBack();
    await page.getByTestId('figure-profit').waitFor();
  });

  step('correction in place: the cell is marked, the totals follow', async () => {
    const before = await getReport(id1);
    const item = before.items.find((i) => i.article !== '' && kop(i.effective.logistics) > 0) as ApiItem;
    expect(item, 'an article with logistics').toBeTruthy();
    const delta = 11_111; // kopecks
    corrected = {
      article: item.article,
      logisticsKop: kop(item.effective.logistics) + delta,
      computedKop: kop(item.computed.logistics),
    };

    const cell = await revealCell(`cell-${item.article}-logistics`);
    expect(await cell.getAttribute('data-corrected')).toBeNull();
    await cell.getByRole('button', { name: `Изменить: Логистика, ${item.article}` }).click();
    const input = cell.getByRole('textbox', { name: `Логистика, ${item.article}` });
    await input.fill((corrected.logisticsKop / 100).toFixed(2).replace('.', ','));
    await input.press('Enter');

    await expect.poll(() => cell.getAttribute('data-corrected')).toBe('true');
    expect(squash(await cell.textContent())).toContain(roubles(corrected.logisticsKop / 100));
    expect(squash(await cell.getAttribute('title'))).toBe(
      `Исправлено вручную. Рассчитано: ${roubles(corrected.computedKop / 100)}`,
    );
    await expect.poll(() => text('total-logistics')).toBe(roubles((kop(before.totals.logistics) + delta) / 100));

    const after = await getReport(id1);
    const stored = after.items.find((i) => i.article === item.article) as ApiItem;
    expect(kop(stored.manual_values.logistics)).toBe(corrected.logisticsKop);
    expect(kop(after.totals.logistics)).toBe(kop(before.totals.logistics) + delta);
    // Logistics is an expense: the profit falls by exactly the correction (taxes are on income).
    expect(kop(after.totals.profit)).toBe(kop(before.totals.profit) - delta);
    expect(await text('total-profit')).toBe(roubles(after.totals.profit as number));
    expect(await text('figure-profit')).toBe(rub(after.totals.profit as number));
    await screenshot(page, '04-report-corrected');
  });

  step('rebuild: confirmed in a dialog, the correction is kept', async () => {
    await page.getByTestId('rebuild-button').click();
    const dialog = page.getByTestId('rebuild-dialog');
    await dialog.getByRole('button', { name: 'Пересобрать' }).click();
    const summary = page.getByTestId('rebuild-summary');
    await summary.waitFor();
    const said = squash(await summary.textContent());
    expect(said).toContain('Итоги не изменились.');
    expect(said).toContain('Все ручные корректировки сохранены.');
    await summary.getByRole('button', { name: 'Понятно' }).click();
    await summary.waitFor({ state: 'detached' });

    const cell = await revealCell(`cell-${corrected.article}-logistics`);
    expect(await cell.getAttribute('data-corrected')).toBe('true');
    expect(squash(await cell.textContent())).toContain(roubles(corrected.logisticsKop / 100));
    const report = await getReport(id1);
    const item = report.items.find((i) => i.article === corrected.article) as ApiItem;
    expect(kop(item.manual_values.logistics)).toBe(corrected.logisticsKop);
    expect(kop(item.effective.logistics)).toBe(corrected.logisticsKop);
    expect(await text('total-logistics')).toBe(roubles(report.totals.logistics as number));
  });

  step("export: the downloaded XLSX holds the API's items and totals, the correction marked", async () => {
    const report = await getReport(id1);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Скачать XLSX' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const file = path.join(tmp, 'export.xlsx');
    await download.saveAs(file);

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const ws = wb.getWorksheet('Отчёт');
    expect(ws, 'sheet "Отчёт"').toBeTruthy();
    const sheet = ws as ExcelJS.Worksheet;
    const header = (sheet.getRow(1).values as unknown[]).map((v) => (typeof v === 'string' ? v : ''));
    const column = new Map(FIELDS.map((def) => [def.name, header.indexOf(columnTitle(def))]));
    for (const [name, col] of column) expect(col, `column of ${name}`).toBeGreaterThan(0);

    const rowsByArticle = new Map<string, ExcelJS.Row>();
    sheet.eachRow((row, n) => {
      if (n > 1) rowsByArticle.set(String(row.getCell(1).value ?? ''), row);
    });
    expect(rowsByArticle.size).toBe(report.items.length + 1);

    const same = (unit: string, cellValue: ExcelJS.CellValue, api: number | null | undefined, where: string) => {
      // Margin and ROI without a cost price read «—» (the reason in the cell's note); other unknowns are empty.
      if (api === null || api === undefined)
        return expect(cellValue ?? null, where).toBe(/\.(margin|roi)$/.test(where) && cellValue === '—' ? '—' : null);
      expect(typeof cellValue, where).toBe('number');
      if (unit === 'qty') expect(cellValue, where).toBe(api);
      else expect(Math.round((cellValue as number) * 100), where).toBe(Math.round(api * 100));
    };
    for (const item of report.items) {
      const row = rowsByArticle.get(item.article === '' ? 'Без артикула' : item.article);
      expect(row, `row of ${item.article}`).toBeTruthy();
      for (const def of FIELDS)
        same(
          def.unit,
          (row as ExcelJS.Row).getCell(column.get(def.name) as number).value,
          // A rate of an article without sales is unknown, not 0: the export leaves its cell empty.
          isUnknownRate(def.name, item.effective) ? null : item.effective[def.name],
          `${item.article}.${def.name}`,
        );
    }
    const totals = rowsByArticle.get('Итого') as ExcelJS.Row;
    expect(totals, 'totals row').toBeTruthy();
    for (const def of FIELDS)
      same(
        def.unit,
        totals.getCell(column.get(def.name) as number).value,
        report.totals[def.name],
        `Итого.${def.name}`,
      );

    const correctedCell = (rowsByArticle.get(corrected.article) as ExcelJS.Row).getCell(
      column.get('logistics') as number,
    );
    const fill = correctedCell.fill as ExcelJS.FillPattern | undefined;
    expect(fill?.pattern, 'corrected cell is filled').toBe('solid');
    expect(JSON.stringify(correctedCell.note ?? '')).toContain('Рассчитано');
  });

  step('combine: a second upload, both selected, progress shown, the combined report opens', async () => {
    await page.getByRole('link', { name: '← Отчёты' }).click();
    await page.getByTestId(`report-row-${id1}`).waitFor();
    report2 = await uploadThroughPanel(12, ROWS_2, INITIAL_LIMITS - ROWS_1, '02b-reports-list-upload-preview');
    id2 = await waitForReportPage([id1]);
    expect(await text('report-rows')).toBe(int(ROWS_2));

    await page.getByRole('link', { name: '← Отчёты' }).click();
    await page.getByTestId(`report-row-${id2}`).waitFor();
    await page.getByRole('checkbox', { name: `Выбрать отчёт ${report1.expected.report_number}` }).check();
    await page.getByRole('checkbox', { name: `Выбрать отчёт ${report2.expected.report_number}` }).check();
    await page.getByTestId('selection-bar').getByRole('button', { name: 'Объединить' }).click();
    const dialog = page.getByTestId('combine-dialog');
    await dialog.getByRole('textbox').fill('Март–апрель 2026');

    // The progress block may be on screen for a moment only: record every state it shows.
    await page.evaluate(`
      window.__progress = [];
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid="combine-progress"]');
        if (el) window.__progress.push(el.textContent || '');
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    `);
    await dialog.getByRole('button', { name: 'Объединить' }).click();
    combinedId = await waitForReportPage([id1, id2]);
    const progress = await page.evaluate(() => (globalThis as unknown as PageGlobals).__progress ?? []);
    expect(progress.length, 'combine progress was shown').toBeGreaterThan(0);
    expect(progress[0]).toContain('Объединяем отчёты');

    const combined = await getReport(combinedId);
    const [r1, r2] = [await getReport(id1), await getReport(id2)];
    expect(combined.is_combined).toBe(true);
    expect([...(combined.source_report_ids ?? [])].sort()).toEqual([id1, id2].sort());
    expect(combined.rows).toBe(ROWS_1 + ROWS_2);
    expect(kop(combined.totals.realization)).toBe(kop(r1.totals.realization) + kop(r2.totals.realization));
    // Items merge by article from the sources' effective values, so the correction carries over.
    const articles = [...new Set([...r1.items, ...r2.items].map((i) => i.article))].sort();
    expect(combined.items.map((i) => i.article).sort()).toEqual(articles);
    for (const item of combined.items) {
      const parts = [...r1.items, ...r2.items].filter((i) => i.article === item.article);
      for (const field of ['sales_qty', 'returns_qty', 'realization', 'logistics', 'storage', 'profit']) {
        const sum = parts.reduce((s, p) => s + kop(p.effective[field]), 0);
        expect(kop(item.effective[field]), `${item.article}.${field}`).toBe(sum);
      }
    }
    expect(kop(combined.totals.logistics)).toBe(kop(r1.totals.logistics) + kop(r2.totals.logistics));
    const title = page.getByTestId('report-title');
    expect(squash(await title.textContent())).toContain('Март–апрель 2026');
    expect(await title.locator('.badge-combined').textContent()).toBe('Объединённый');
    expect(await text('figure-realization')).toBe(rub(combined.totals.realization as number));
    expect(await text('figure-profit')).toBe(rub(combined.totals.profit as number));
    const sources = await text('report-sources');
    expect(sources).toContain(r1.title);
    expect(sources).toContain(r2.title);
    await screenshot(page, '05-combined-report');

    await page.getByRole('link', { name: '← Отчёты' }).click();
    expect(await page.getByTestId(`report-row-${combinedId}`).getByTestId('combined-badge').textContent()).toBe(
      'Объединённый',
    );
  });

  step(
    'duplicate: the same week again is named in the preview before anything is charged; cancelling charges nothing',
    async () => {
      const limits = await text('limits-chip');
      const r1 = await getReport(id1);
      const { file } = writeReport(11, ROWS_1);
      await page.getByTestId('upload-input').setInputFiles(file);
      const dup = page.getByTestId('upload-duplicate');
      await dup.waitFor();
      expect(squash(await dup.textContent())).toContain(`Этот отчёт уже загружен: «${r1.title}»`);
      expect(await dup.getByRole('link').getAttribute('href')).toBe(`/reports/${encodeURIComponent(id1)}`);
      const preview = page.getByTestId('upload-preview');
      await preview.getByRole('button', { name: 'Всё равно загрузить' }).waitFor();
      await screenshot(page, '02c-duplicate-preview');
      await preview.getByRole('button', { name: 'Отмена' }).click();
      await page.getByTestId('dropzone').waitFor();
      expect(await text('limits-chip')).toBe(limits);
    },
  );

  step(
    'limits before the bytes travel: a portal zip with more rows than are left is refused in the browser, nothing sent',
    async () => {
      const chip = await text('limits-chip');
      const left = Number(chip.replace(/\D/g, ''));
      expect(left).toBe(INITIAL_LIMITS - ROWS_1 - ROWS_2);
      const rows = left + 20;
      const report = generateReport({ rows, layout: '2026', format: 'zip', seed: 31 });
      const file = path.join(tmp, report.filename);
      writeFileSync(file, report.file);
      const sent: string[] = [];
      const watch = (r: { url(): string; method(): string }) => {
        if (r.url().includes('/reports/upload-url') || r.url().includes('/reports/count-rows') || r.method() === 'PUT')
          sent.push(`${r.method()} ${r.url()}`);
      };
      page.on('request', watch);
      try {
        await page.getByTestId('upload-input').setInputFiles(file);
        const refused = page.getByTestId('upload-blocked-early');
        await refused.waitFor();
        expect(squash(await refused.textContent())).toContain(
          `Недостаточно лимитов: в отчёте ${rowsWord(rows)}, а у вас осталось ${rowsWord(left)}. Не хватает ${rowsWord(20)}. Файл не отправлен.`,
        );
        await screenshot(page, '02d-limits-before-upload');
        expect(sent).toEqual([]);
      } finally {
        page.off('request', watch);
      }
      expect(await text('limits-chip')).toBe(chip);
      // The dropzone stays: another file can be chosen at once.
      await page.getByTestId('dropzone').waitFor();
    },
  );

  step(
    'rename, then a source rebuilt: the combined report says which source changed and «Пересобрать» refreshes it',
    async () => {
      await page.goto(`${stack.web}/reports/${encodeURIComponent(id2)}`);
      await page.getByTestId('report-title').waitFor();
      await page.getByTestId('report-meta-edit').click();
      await page.getByLabel('Название отчёта').fill('Неделя 14');
      await page.getByTestId('report-meta-form').getByRole('button', { name: 'Сохранить' }).click();
      await expect
        .poll(async () => squash(await page.getByTestId('report-title').textContent()))
        .toContain('Неделя 14');
      expect((await getReport(id2)).title).toBe('Неделя 14');

      await page.getByTestId('rebuild-button').click();
      await page.getByTestId('rebuild-dialog').getByRole('button', { name: 'Пересобрать' }).click();
      const summary = page.getByTestId('rebuild-summary');
      await summary.waitFor();
      await summary.getByRole('button', { name: 'Понятно' }).click();

      await page.goto(`${stack.web}/reports/${encodeURIComponent(combinedId)}`);
      const banner = page.getByTestId('combined-stale-banner');
      await banner.waitFor();
      expect(squash(await banner.textContent())).toContain('«Неделя 14» — пересобран');
      await screenshot(page, '05b-combined-stale');
      await banner.getByRole('button', { name: 'Пересобрать' }).click();
      await banner.waitFor({ state: 'detached' });
      const combined = await getReport(combinedId);
      expect(combined.stale).toBe(false);
      expect(await text('figure-realization')).toBe(rub(combined.totals.realization as number));
    },
  );

  step('products and settings: the catalog lists the uploaded articles, the limits are what was charged', async () => {
    await page.getByRole('navigation', { name: 'Разделы' }).getByRole('link', { name: 'Себестоимость' }).click();
    await page.getByTestId('products-table').waitFor();
    for (const a of report1.expected.articles.filter((x) => x.article !== ''))
      await page.getByTestId(`product-row-${a.article}`).waitFor();
    await screenshot(page, '06-products');

    await page.getByRole('navigation', { name: 'Разделы' }).getByRole('link', { name: 'Настройки' }).click();
    await page.getByTestId('limits-left').waitFor();
    await expect.poll(() => text('limits-left')).toBe(int(INITIAL_LIMITS - ROWS_1 - ROWS_2));
    // Each file's seller number made a seller of its own.
    await page.getByTestId(`seller-${report1.expected.seller_number}`).waitFor();
    await page.getByTestId(`seller-${report2.expected.seller_number}`).waitFor();
    await page.getByTestId('limit-history').waitFor();
    await screenshot(page, '07-settings');
  });

  step(
    '401: a forged or an expired token sends the person back to sign-in with the session forgotten',
    async () => {
      const me = await apiGet<{ user: { id: string } }>('/auth/me');
      const claims = { user_id: me.user.id, scenario: 'access' };
      const forged = jwt.sign(claims, randomBytes(48).toString('base64url'), {
        algorithm: 'HS256',
        expiresIn: 600,
        jwtid: randomUUID(),
      });
      const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }, stack.env.JWT_SECRET!, {
        algorithm: 'HS256',
        jwtid: randomUUID(),
      });
      for (const token of [forged, expired]) {
        const res = await fetch(`${stack.urls.api}/auth/me`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status, 'the API itself refuses the token').toBe(401);
      }

      // A forged token, then a reload.
      await page.goto(`${stack.web}/reports`);
      await page.getByTestId('limits-chip').waitFor();
      await setStoredToken(forged);
      await page.reload();
      await page.waitForURL('**/login');
      await page.getByTestId('session-ended').waitFor();
      expect(await storedSession()).toEqual({ token: null, email: null });

      // Back in, then an expired token, then a move inside the app.
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Пароль').fill(password);
      await page.getByRole('button', { name: 'Войти' }).click();
      await page.waitForURL('**/reports');
      await page.getByTestId('limits-chip').waitFor();
      await setStoredToken(expired);
      // A move inside the app meets the 401 — unless the page's own next poll (the reports list
      // refreshes while a report is processing) met it first and the nav is already gone.
      await page
        .getByRole('navigation', { name: 'Разделы' })
        .getByRole('link', { name: 'Себестоимость' })
        .click({ timeout: 10_000 })
        .catch(() => undefined);
      await page.waitForURL('**/login');
      await page.getByTestId('session-ended').waitFor();
      expect(await storedSession()).toEqual({ token: null, email: null });
      expect(squash(await page.getByTestId('session-ended').textContent())).toBe('Сессия завершилась. Войдите снова.');
    },
    { allowConsole: (i) => i.kind === 'console' && i.text.startsWith(BROWSER_401) },
  );
});
