/**
 * The report CLI as a user runs it (tsx in a child process), on the real 2022 report and on a bad file.
 * Its JSON must carry the engine's numbers, converted to roubles, and nothing else.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_TAX_PROFILE,
  FIELDS,
  buildItems,
  commissionByCategory,
  computeTotals,
  kopecksToRoubles,
  readReport,
  type ItemValues,
  type ReportSettings,
} from '../shared/engine';
import { parseCostPrices, parseTax } from './report-cli';

const ROOT = path.resolve(__dirname, '..');
const REAL = path.join(ROOT, 'fixtures', 'wb-detail-2022-49col.xlsx');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = path.join(ROOT, 'scripts', 'report-cli.ts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [CLI, ...args], { cwd: ROOT, maxBuffer: 32 << 20 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

function roubles(v: ItemValues): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const d of FIELDS) {
    const x = v[d.name as keyof ItemValues];
    out[d.name] = x === null ? null : d.unit === 'money' ? kopecksToRoubles(x) : x;
  }
  return out;
}

async function engine(settings: ReportSettings) {
  const parsed = await readReport({ path: REAL });
  const { items } = buildItems(parsed, settings);
  return {
    parsed,
    items,
    totals: computeTotals(items.map((i) => i.effective)),
    byCategory: commissionByCategory(items),
  };
}

describe('npm run report', () => {
  it('--json gives the engine’s numbers in roubles, per item and in total', async () => {
    const r = await run(REAL, '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const e = await engine({ tax: DEFAULT_TAX_PROFILE, costPrices: {} });
    expect(doc.rows).toBe(99);
    expect(doc.period).toEqual({ from: '2022-10-24', to: '2022-10-28' });
    expect(doc.items).toEqual(
      e.items.map((i) => ({
        article: i.article,
        category: i.category,
        nm_id: i.nm_id,
        brand: i.brand,
        ...roubles(i.effective),
      })),
    );
    expect(doc.totals).toEqual(roubles(e.totals));
    expect(doc.commission_by_category).toEqual(
      e.byCategory.map((c) => ({
        category: c.category,
        realization: kopecksToRoubles(c.realization),
        commission: kopecksToRoubles(c.commission),
        percent: c.percent,
      })),
    );
    expect(doc.warnings).toEqual(e.parsed.warnings);
    // A number a user can check by hand in the file: 85 units sold.
    expect(doc.totals.sales_qty).toBe(85);
    expect(doc.items.every((i: { realization: number }) => Number.isFinite(i.realization))).toBe(true);
  });

  it('--cost-prices and --tax enter the computation', async () => {
    const prices = path.join(tmp, 'prices.csv');
    fs.writeFileSync(prices, 'Артикул;Себестоимость\nMFG1BUM001MFG1BUM001-w;1 200,50\n"MFG4BUM001MFG4BUM001-w";900\n');
    const r = await run(REAL, '--json', '--cost-prices', prices, '--tax', 'usn_income_expenses:15:5');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const e = await engine({
      tax: { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 5 },
      costPrices: { 'MFG1BUM001MFG1BUM001-w': 120050, 'MFG4BUM001MFG4BUM001-w': 90000 },
    });
    expect(doc.totals).toEqual(roubles(e.totals));
    const paper = doc.items.find((i: { article: string }) => i.article === 'MFG1BUM001MFG1BUM001-w');
    expect(paper.cost_price).toBe(1200.5);
    expect(paper.cost_total).toBe(1200.5 * paper.net_qty);
    expect(doc.totals.vat).toBeGreaterThan(0);
  });

  it('prints a table with a totals line', async () => {
    const r = await run(REAL);
    expect(r.code).toBe(0);
    const e = await engine({ tax: DEFAULT_TAX_PROFILE, costPrices: {} });
    const lines = r.stdout.split('\n');
    expect(
      lines.some((l) => /^article\s+sales\s+returns\s+realization\s+for_pay\s+logistics\s+profit\s+margin$/.test(l)),
    ).toBe(true);
    const total = lines.find((l) => l.startsWith('ИТОГО'))!;
    const realization = kopecksToRoubles(e.totals.realization!)
      .toFixed(2)
      .replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
    expect(total).toContain(realization);
    expect(total).toMatch(/^ИТОГО\s+85\s+0\s/);
    for (const it of e.items) expect(r.stdout).toContain(it.article);
  });

  it('a file that is not a report: non-zero exit, the reason on stderr', async () => {
    const bad = path.join(tmp, 'not-a-report.xlsx');
    fs.writeFileSync(bad, 'article;qty\nA;1\n');
    const r = await run(bad, '--json');
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/not_a_spreadsheet/);
  });

  it('a missing file and a bad --tax are usage errors', async () => {
    const r1 = await run(path.join(tmp, 'nope.zip'));
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('no such file');
    const r2 = await run(REAL, '--tax', 'osno:20:0');
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('unknown tax system');
  });
});

describe('argument parsing', () => {
  it('tax profiles with defaults', () => {
    expect(parseTax('usn_income:6:0')).toEqual({ tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 });
    expect(parseTax('usn_income_expenses')).toEqual({ tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 });
    expect(parseTax('none::22')).toEqual({ tax_system: 'none', usn_rate: 0, vat_rate: 22 });
    expect(() => parseTax('usn_income:16')).toThrow('0–15');
    expect(() => parseTax('usn_income:6:18')).toThrow('VAT rate');
  });

  it('cost prices: header optional, ";" with decimal comma or ",", quoted articles', () => {
    expect(parseCostPrices('A-1;100\nБ 2;1 234,56\n')).toEqual({ 'A-1': 10000, 'Б 2': 123456 });
    expect(parseCostPrices('\uFEFFarticle,cost\r\n"x,y",12.5\r\nz,0\r\n')).toEqual({ 'x,y': 1250, z: 0 });
    expect(() => parseCostPrices('A;100\nB;abc\n')).toThrow('line 2');
  });
});
