/**
 * WB's commission and the attorney services carry one name each wherever a seller or an accountant reads
 * them: the report's columns (fields.ts, the web table and the XLSX export take their titles from it), the
 * P&L's lines (page and export), the XLSX's commission sheet, the legacy summary's template, the report
 * page's table by category and docs/METRICS.md. And no group, line or document calls either «Вознаграждение WB».
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { FIELD_BY_NAME, FIELD_GROUPS } from '../engine/fields';
import { PNL_LINE_ORDER } from '../engine/pnl';
import { sampleReport } from '../../test/support/sample-report.fixture';
import { SUMMARY_TEMPLATE_HEADERS } from './summary-template';
import { SHEET_COMMISSION, SHEET_ITEMS, exportReportXlsx } from './xlsx-export';

const COMMISSION = 'Комиссия WB';
const ATTORNEY = 'Услуги поверенного';
const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

async function headers(sheet: string): Promise<string[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load((await exportReportXlsx(sampleReport())) as unknown as ArrayBuffer);
  const out: string[] = [];
  wb.getWorksheet(sheet)!
    .getRow(1)
    .eachCell((c) => out.push(String(c.value)));
  return out;
}

describe('one name each for WB’s commission and the attorney services', () => {
  it('the report’s fields and the P&L’s lines', () => {
    expect(FIELD_BY_NAME.get('commission')!.title).toBe(COMMISSION);
    expect(FIELD_BY_NAME.get('attorney_services')!.title).toBe(ATTORNEY);
    const line = (key: string) => PNL_LINE_ORDER.find((l) => l.key === key)!.title;
    expect(line('commission')).toBe(COMMISSION);
    expect(line('attorney_services')).toBe(ATTORNEY);
  });

  it('the XLSX export’s columns and commission sheet, the summary template', async () => {
    const items = await headers(SHEET_ITEMS);
    expect(items).toContain(`${COMMISSION}, ₽`);
    expect(items).toContain(`${ATTORNEY}, ₽`);
    expect(await headers(SHEET_COMMISSION)).toContain(`${COMMISSION}, ₽`);
    expect(SUMMARY_TEMPLATE_HEADERS).toContain(`${COMMISSION}, руб.`);
    expect(SUMMARY_TEMPLATE_HEADERS).toContain(`${ATTORNEY}, руб.`);
  });

  it('the report page’s table by category and docs/METRICS.md', () => {
    const page = read('web/src/pages/report-page.tsx');
    expect(page).toContain(`<h2 id="commission-title">${COMMISSION} по категориям</h2>`);
    expect(page).toContain(`<th className="num">${COMMISSION}, ₽</th>`);
    const metrics = read('docs/METRICS.md');
    expect(metrics).toContain(`| \`commission\` | ${COMMISSION} |`);
    expect(metrics).toContain(`| \`attorney_services\` | ${ATTORNEY} |`);
  });

  it('nothing calls either «Вознаграждение WB»', () => {
    const titles = [...FIELD_GROUPS.map((g) => g.title), ...PNL_LINE_ORDER.map((l) => l.title)];
    expect(titles.filter((t) => /вознаграждение wb/i.test(t))).toEqual([]);
    for (const doc of ['docs/METRICS.md', 'docs/WEB.md', 'docs/USAGE.md', 'web/src/pages/report-page.tsx'])
      expect(read(doc), doc).not.toMatch(/Вознаграждение WB/i);
  });
});
