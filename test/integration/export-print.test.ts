/**
 * Exports that print: the report's XLSX and the analytics' XLSX, as the routes give them (the real WB
 * report of fixtures/ uploaded through the upload route, DynamoDB Local and s3rver behind), converted to
 * PDF by LibreOffice (`soffice --headless --convert-to pdf`) and read back page by page with poppler's
 * pdftotext. Page 1 of the report holds the article and the main figures — sold, realization, «Расходы WB»,
 * cost, profit, margin, payout — at 80 % (8.8 pt; nothing fitted onto one page); the other columns follow on
 * the next pages, each starting with the article again. Needs the Debian packages libreoffice-calc and
 * poppler-utils (.ci/run installs them).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as analyticsExportHandler } from '../../functions/analytics/export.handler';
import { handler as exportHandler } from '../../functions/reports/export.handler';
import { MAIN_EXPORT_TITLES } from '../../shared/workbooks/columns';
import { newUser, uploadOk, type TestUser } from '../support/reports';
import { apiEvent } from '../support/test-event';

const FIXTURE = path.resolve(__dirname, '..', '..', 'fixtures', 'wb-detail-2022-49col.xlsx');

let tmp: string;
let user: TestUser;
let reportId = '';
let period = { from: '', to: '' };

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'export-print-'));
  user = await newUser();
  const report = await uploadOk(user.token, { filename: 'wb-detail-2022-49col.xlsx', file: readFileSync(FIXTURE) });
  reportId = report.id;
  period = { from: report.period_from!, to: report.period_to! };
}, 120_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const fileOf = (r: { body?: string; isBase64Encoded?: boolean }) =>
  Buffer.from(r.body ?? '', r.isBase64Encoded ? 'base64' : 'utf8');

/** The workbook printed by LibreOffice: the text of each PDF page (the whole workbook, sheet after sheet). */
function printPages(name: string, xlsx: Buffer): string[] {
  const file = path.join(tmp, `${name}.xlsx`);
  writeFileSync(file, xlsx);
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${path.join(tmp, 'lo-profile')}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      tmp,
      file,
    ],
    { stdio: 'pipe', timeout: 180_000 },
  );
  const pdf = path.join(tmp, `${name}.pdf`);
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf]).toString())![1]);
  return Array.from({ length: pages }, (_, i) =>
    execFileSync('pdftotext', ['-layout', '-f', String(i + 1), '-l', String(i + 1), pdf, '-'])
      .toString()
      .replace(/\s+/g, ' '),
  );
}

/** A column title as pdftotext reads a header cell that wraps: its words, in order, anywhere on the page. */
const holds = (page: string, title: string) => title.split(/\s+/).every((w) => page.includes(w.replace(/,$/, '')));

describe('the exports print readably on A4 landscape', () => {
  it('the report: article and the main figures on page 1, the rest on the next pages, the article on each', async () => {
    const r = await exportHandler(
      apiEvent({
        method: 'GET',
        path: `/api/reports/${reportId}/export`,
        token: user.token,
        pathParameters: { id: reportId },
      }),
    );
    expect(r.statusCode).toBe(200);
    const pages = printPages('report', fileOf(r));
    const first = pages[0]!;
    expect(first).toContain('Артикул');
    // Article, sold, realization, «Расходы WB», cost, profit, margin, payout — the main columns across.
    for (const title of MAIN_EXPORT_TITLES) expect(holds(first, title), title).toBe(true);
    expect(first).toContain('WB');
    // «Расходы» alone (expenses with the cost inside) is not among them.
    expect(first.replace(/Расходы WB/g, '')).not.toContain('Расходы');
    expect(first).not.toContain('Категория');
    // Not fitted to one page: the way from price to profit is on the pages after it.
    expect(first).not.toContain('Цена продавца');
    expect(first).not.toContain('Обратная логистика');
    const itemPages = pages.filter((p) => p.includes('Артикул'));
    // 49 columns at 80 % on A4 landscape: several pages across (the fixture's 8 articles fit one page down).
    expect(itemPages.length).toBeGreaterThanOrEqual(6);
    expect(itemPages.length).toBeLessThanOrEqual(9);
    const rest = itemPages.slice(1).join(' ');
    expect(rest).toContain('Цена');
    expect(rest).toContain('логистика');
    // The items sheet, then «Комиссия по категориям» and «Сводка»: a page or two each.
    expect(pages.length).toBeLessThanOrEqual(itemPages.length + 3);
  }, 300_000);

  it('the analytics: the weeks with their dates on every page across; the articles on one page across', async () => {
    const r = await analyticsExportHandler(
      apiEvent({ method: 'GET', path: '/api/analytics/export', token: user.token, query: period }),
    );
    expect(r.statusCode).toBe(200);
    const pages = printPages('analytics', fileOf(r));
    // The weeks: their dates, realization, payout, profit and margin on page 1; the counts on page 2, the dates again.
    expect(pages[0]).toContain('Неделя с');
    expect(pages[0]).toContain('Реализация');
    expect(pages[0]).toContain('К выплате');
    expect(pages[0]).toContain('Прибыль');
    expect(pages[0]).toContain('Маржа');
    expect(pages[1]).toContain('Неделя с');
    expect(pages[1]).toContain('Продажи');
    // The articles: every column on one page across (article, figures, both ABC letters, the margin group).
    const articles = pages.filter((p) => p.includes('Артикул ') && p.includes('ABC'));
    expect(articles).toHaveLength(1);
    for (const title of ['Прибыль, ₽', 'Маржа, %', 'Продажи, шт', 'ABC по выручке', 'ABC по прибыли', 'Группа маржи'])
      expect(holds(articles[0]!, title), title).toBe(true);
    expect(pages.length).toBeLessThanOrEqual(5);
  }, 300_000);
});
