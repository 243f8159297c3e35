/**
 * Every file shape the parser meets, generated with its answer key (scripts/fixtures/generate.ts), read by
 * the engine, compared per article to the kopeck. The generator books its numbers independently while
 * writing the rows, so a mismatch is a bug in one of two separate computations, never a shared one.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generateReport,
  writeReportFile,
  type GenerateOptions,
  type GeneratedReport,
} from '../../scripts/fixtures/generate';
import { XlsxWriter, writeXlsx, type Cell } from '../../scripts/fixtures/xlsx-writer';
import { columnsOf } from '../../scripts/fixtures/layouts';
import { buildItems } from './build';
import { ReportError, type ReportErrorCode } from './errors';
import { checkIdentity } from './kopeck-check';
import { readReport } from './read-report';
import { DEFAULT_TAX_PROFILE, type ComputedItem, type ParsedReport } from './types';

const ROWS = 300;

async function readAndBuild(
  g: GeneratedReport,
  filename: string = g.filename,
): Promise<{ parsed: ParsedReport; items: ComputedItem[] }> {
  const parsed = await readReport({ buffer: g.file, filename });
  const { items } = buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
  return { parsed, items };
}

function compare(g: GeneratedReport, parsed: ParsedReport, items: ComputedItem[], meta = true): void {
  const e = g.expected;
  expect(parsed.rows).toBe(e.rows);
  expect(parsed.format).toBe(e.format);
  expect([parsed.period_from, parsed.period_to]).toEqual([e.period_from, e.period_to]);
  if (meta)
    expect({ report: parsed.report_number, seller: parsed.seller_number }).toEqual({
      report: e.report_number,
      seller: e.seller_number,
    });

  const byArticle = new Map(items.map((i) => [i.article, i]));
  expect([...byArticle.keys()].sort()).toEqual(e.articles.map((a) => a.article));
  for (const ea of e.articles) {
    const it = byArticle.get(ea.article)!;
    expect({ article: ea.article, category: it.category, nm_id: it.nm_id, brand: it.brand }).toEqual({
      article: ea.article,
      category: ea.category,
      nm_id: ea.nm_id,
      brand: ea.brand,
    });
    const got: Record<string, number | null> = {};
    for (const f of Object.keys(ea.aggregates)) got[f] = it.computed[f as keyof typeof it.computed];
    expect({ article: ea.article, ...got }).toEqual({ article: ea.article, ...ea.aggregates });
    expect(it.computed.category_commission_percent).toBeCloseTo(ea.category_commission_percent, 2);
  }

  // The 1-kopeck identity on realization rows, every item: pickup rewards and acquiring corrections are
  // booked outside realization, so they are taken out first.
  const rowsByArticle = Object.fromEntries(e.articles.map((a) => [a.article, a.realization_rows]));
  const outside = new Map(e.articles.map((a) => [a.article, a.outside_identity]));
  const adjusted = items.map((it) => ({
    article: it.article,
    computed: {
      ...it.computed,
      acquiring: (it.computed.acquiring ?? 0) - outside.get(it.article)!.acquiring,
      attorney_services: (it.computed.attorney_services ?? 0) - outside.get(it.article)!.attorney_services,
    },
  }));
  expect(checkIdentity(adjusted, rowsByArticle)).toEqual([]);
}

async function expectReportError(p: Promise<unknown>, code: ReportErrorCode): Promise<ReportError> {
  const err = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(err).toBeInstanceOf(ReportError);
  expect((err as ReportError).code).toBe(code);
  return err as ReportError;
}

describe('every report shape gives the generator’s numbers to the kopeck', () => {
  const shapes: Array<[string, Omit<GenerateOptions, 'rows' | 'layout'>]> = [
    ['xlsx, WB/excelize style', { format: 'xlsx', wbStyle: true }],
    ['xlsx, Excel style', { format: 'xlsx', wbStyle: false }],
    ['zip', { format: 'zip', wbStyle: true }],
    ['xls', { format: 'xls' }],
  ];
  for (const layout of ['2026', '2025', '2022'] as const) {
    for (const [name, opts] of shapes) {
      it(`${layout} layout, ${name}`, async () => {
        const g = generateReport({ rows: ROWS, layout, seed: 21, ...opts });
        const { parsed, items } = await readAndBuild(g);
        compare(g, parsed, items);
      });
    }
  }

  it('Excel style with x:-prefixed tags', async () => {
    const g = generateReport({
      rows: ROWS,
      layout: '2026',
      format: 'xlsx',
      wbStyle: false,
      prefixedTags: true,
      seed: 22,
    });
    const { parsed, items } = await readAndBuild(g);
    compare(g, parsed, items);
  });

  it('English-locale headers (values still Russian)', async () => {
    const g = generateReport({ rows: ROWS, layout: '2026', format: 'xlsx', englishHeaders: true, seed: 23 });
    const { parsed, items } = await readAndBuild(g);
    compare(g, parsed, items);
    expect(items.some((i) => (i.computed.realization ?? 0) !== 0)).toBe(true);
  });

  it('a zip with several entries: readme, __MACOSX, the report, another workbook', async () => {
    const g = generateReport({ rows: ROWS, layout: '2026', format: 'zip', zipExtras: true, seed: 24 });
    const { parsed, items } = await readAndBuild(g);
    compare(g, parsed, items);
  });

  it('a zip whose own name has no metadata: the report entry’s name gives it', async () => {
    const g = generateReport({ rows: ROWS, layout: '2025', format: 'zip', seed: 25 });
    const { parsed, items } = await readAndBuild(g, 'download.zip');
    compare(g, parsed, items);
  });

  it('an unknown operation is a warning naming it, its money counted nowhere', async () => {
    const g = generateReport({
      rows: ROWS,
      layout: '2026',
      format: 'xlsx',
      seed: 26,
      unknownOperations: ['Выплата бонуса за отзывы'],
    });
    const { parsed, items } = await readAndBuild(g);
    compare(g, parsed, items);
    const w = parsed.warnings.find((x) => x.code === 'unknown_operation');
    expect(w?.message).toContain('Выплата бонуса за отзывы');
    expect(w?.details).toMatchObject({ operation: 'Выплата бонуса за отзывы', rows: 2 });
  });

  it('read from disk (path source), zip and Excel-style xlsx', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shapes-'));
    try {
      for (const opts of [
        { format: 'zip', zipExtras: true, wbStyle: true },
        { format: 'xlsx', wbStyle: false },
      ] as const) {
        const w = writeReportFile({ rows: ROWS, layout: '2026', seed: 31, ...opts }, dir);
        const parsed = await readReport({ path: w.path });
        const { items } = buildItems(parsed, { tax: DEFAULT_TAX_PROFILE, costPrices: {} });
        compare({ file: fs.readFileSync(w.path), filename: w.filename, expected: w.expected }, parsed, items);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('other seeds: other mixes of rows, articles and amounts', async () => {
    const formats = ['xlsx', 'zip', 'xls'] as const;
    const layouts = ['2026', '2025', '2022'] as const;
    for (let seed = 100; seed < 106; seed++) {
      const g = generateReport({
        rows: 150,
        layout: layouts[seed % 3]!,
        format: formats[(seed >> 1) % 3]!,
        wbStyle: seed % 2 === 0,
        seed,
        articles: 2 + (seed % 5),
      });
      const { parsed, items } = await readAndBuild(g);
      compare(g, parsed, items);
    }
  });

  it('a known-shape file without unknown operations has no unknown_operation warning', async () => {
    const g = generateReport({ rows: ROWS, layout: '2026', format: 'xlsx', seed: 27 });
    const { parsed } = await readAndBuild(g);
    expect(parsed.warnings.filter((w) => w.code === 'unknown_operation')).toEqual([]);
    // Every row's money is explained by WB's identity (rebill rows netted, acquiring inside).
    expect(parsed.warnings.filter((w) => w.code === 'unexplained_rows')).toEqual([]);
  });

  it.each(['2026', '2025'] as const)(
    '%s: rows «Комиссия за организацию платежа с НДС» bill acquiring outside for_pay, an expense not in the payout',
    async (layout) => {
      for (const format of ['xlsx', 'xls'] as const) {
        const g = generateReport({ rows: ROWS, layout, format, seed: 31, acquiringBilledSeparately: 0.4 });
        const { parsed, items } = await readAndBuild(g);
        compare(g, parsed, items);
        const billed = g.expected.articles.reduce((s, a) => s + a.aggregates.acquiring_billed, 0);
        expect(billed).toBeGreaterThan(0);
        expect(items.reduce((s, i) => s + (i.computed.acquiring_billed ?? 0), 0)).toBe(billed);
        expect(parsed.warnings.filter((w) => w.code === 'unexplained_rows')).toEqual([]);
        // The same items without it: the payout does not move, the profit is lower by exactly what WB bills apart.
        const without = buildItems(
          { articles: parsed.articles.map((a) => ({ ...a, aggregates: { ...a.aggregates, acquiring_billed: 0 } })) },
          { tax: { tax_system: 'none', usn_rate: 0, vat_rate: 0 }, costPrices: {} },
        ).items;
        const withIt = buildItems(parsed, {
          tax: { tax_system: 'none', usn_rate: 0, vat_rate: 0 },
          costPrices: {},
        }).items;
        const sum = (xs: ComputedItem[], f: 'payout' | 'profit') => xs.reduce((s, i) => s + (i.computed[f] ?? 0), 0);
        expect(sum(withIt, 'payout')).toBe(sum(without, 'payout'));
        expect(sum(without, 'profit') - sum(withIt, 'profit')).toBe(billed);
      }
    },
  );
});

describe('bad files are refused with their own error code', () => {
  const header2026 = columnsOf('2026').map((c) => c.header);

  it('not a spreadsheet', async () => {
    const file = Buffer.from('%PDF-1.7\nThis is a PDF, not a report\n', 'utf8');
    await expectReportError(readReport({ buffer: file, filename: 'report.xlsx' }), 'not_a_spreadsheet');
  });

  it('missing columns: the error names the headers', async () => {
    const drop = new Set(['Кол-во', 'К перечислению Продавцу за реализованный Товар']);
    const keep = header2026.map((h, i) => (drop.has(h) ? -1 : i)).filter((i) => i >= 0);
    const rows: Cell[][] = [keep.map((i) => header2026[i]), ...Array.from({ length: 5 }, () => keep.map(() => 'x'))];
    const file = writeXlsx(rows, { style: 'wb' });
    const err = await expectReportError(readReport({ buffer: file, filename: 'report.xlsx' }), 'missing_headers');
    expect(err.message).toContain('Кол-во');
    expect(err.message).toContain('К перечислению Продавцу за реализованный Товар');
  });

  it('an empty sheet, and a sheet with only the header', async () => {
    await expectReportError(readReport({ buffer: writeXlsx([], { style: 'wb' }), filename: 'a.xlsx' }), 'empty_report');
    await expectReportError(
      readReport({ buffer: writeXlsx([header2026], { style: 'excel' }), filename: 'a.xlsx' }),
      'empty_report',
    );
  });

  it('a truncated zip', async () => {
    const g = generateReport({ rows: ROWS, layout: '2026', format: 'zip', seed: 29 });
    const cut = g.file.subarray(0, Math.floor(g.file.length * 0.6));
    await expectReportError(readReport({ buffer: cut, filename: g.filename }), 'corrupt_file');
  });

  it('a zip bomb: a sheet that inflates past the cap', async () => {
    // 24 MB of white space between rows is valid XML and deflates to a few dozen KB.
    const w = XlsxWriter.toMemory({ style: 'wb' });
    w.addRow(header2026);
    w.addRow(header2026.map((_, i) => (i === 13 ? { n: '1' } : 'x')));
    w.addWhitespace(24 << 20);
    const bomb = w.finishToBuffer();
    expect(bomb.length).toBeLessThan(200_000);
    await expectReportError(
      readReport({ buffer: bomb, filename: 'bomb.xlsx' }, { maxInflatedBytes: 8 << 20 }),
      'zip_bomb',
    );
  });
});
