/**
 * npm run report -- <file> [--json] [--cost-prices prices.csv] [--tax usn_income:6:0]
 *
 * Reads a WB detailed report (zip / xlsx / xls) with the report engine and prints the per-article table
 * (article, sales, returns, realization, for_pay, logistics, profit, margin) with a totals line, or with
 * --json one JSON document: report metadata, every docs/METRICS.md field per item in roubles, totals,
 * commission by category and warnings.
 *
 * --tax system[:usn_rate[:vat_rate]]  system: usn_income | usn_income_expenses | none (docs/METRICS.md, Settings).
 * --cost-prices file                  "article;cost" lines, cost per unit in roubles; ';' or ',' separated,
 *                                     header line optional.
 * Exit codes: 0 done, 1 the file was refused (message on stderr), 2 bad arguments.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import {
  DEFAULT_TAX_PROFILE,
  DEFAULT_USN_RATES,
  FIELDS,
  USN_RATE_MAX,
  USN_RATE_MIN,
  VAT_RATES,
  ReportError,
  buildItems,
  commissionByCategory,
  computeTotals,
  kopecksToRoubles,
  readReport,
  roublesToKopecks,
  type ComputedItem,
  type ItemValues,
  type TaxProfile,
  type TaxSystem,
} from '../shared/engine';

class UsageError extends Error {}

/** "usn_income:6:0" → tax profile; missing parts take the system's defaults. */
export function parseTax(text: string): TaxProfile {
  const [system, usn, vat, ...rest] = text.split(':').map((s) => s.trim());
  if (rest.length > 0) throw new UsageError(`--tax: expected system:usn_rate:vat_rate, got "${text}"`);
  if (!(system! in DEFAULT_USN_RATES))
    throw new UsageError(`--tax: unknown tax system "${system}" (usn_income, usn_income_expenses, none)`);
  const tax_system = system as TaxSystem;
  const usn_rate = usn === undefined || usn === '' ? DEFAULT_USN_RATES[tax_system] : Number(usn.replace(',', '.'));
  if (!Number.isFinite(usn_rate) || usn_rate < USN_RATE_MIN || usn_rate > USN_RATE_MAX)
    throw new UsageError(`--tax: USN rate must be 0–15, got "${usn}"`);
  const vat_rate = vat === undefined || vat === '' ? 0 : Number(vat);
  if (!(VAT_RATES as readonly number[]).includes(vat_rate))
    throw new UsageError(`--tax: VAT rate must be one of ${VAT_RATES.join(', ')}, got "${vat}"`);
  return { tax_system, usn_rate, vat_rate };
}

/** Cost prices file → kopecks per unit by article. Separator ';' (cost may then use a decimal comma) or ','. */
export function parseCostPrices(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const sep = line.includes(';') ? line.lastIndexOf(';') : line.lastIndexOf(',');
    if (sep < 0) throw new UsageError(`--cost-prices line ${i + 1}: expected "article;cost", got "${line}"`);
    const article = line
      .slice(0, sep)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/""/g, '"')
      .trim();
    const costText = line
      .slice(sep + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/[\s\u00a0₽]|руб\.?/g, '')
      .replace(',', '.');
    const cost = Number(costText);
    if (costText === '' || !Number.isFinite(cost) || cost < 0) {
      // A first line that is not a number is the header.
      if (Object.keys(out).length === 0 && i === lines.findIndex((l) => l.trim() !== '')) continue;
      throw new UsageError(`--cost-prices line ${i + 1}: "${line.slice(sep + 1).trim()}" is not a cost in roubles`);
    }
    out[article] = roublesToKopecks(cost);
  }
  return out;
}

/** Every field of an item in the units of the API: money in roubles, quantities as integers, percents as numbers. */
function inRoubles(values: ItemValues): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const def of FIELDS) {
    const v = values[def.name as keyof ItemValues];
    out[def.name] = v === null || v === undefined ? null : def.unit === 'money' ? kopecksToRoubles(v) : v;
  }
  return out;
}

function money(k: number | null): string {
  if (k === null) return '—';
  const neg = k < 0;
  const [int, frac] = (Math.abs(k) / 100).toFixed(2).split('.');
  return `${neg ? '-' : ''}${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ' ')}.${frac}`;
}

function pct(p: number | null): string {
  return p === null ? '—' : `${p.toFixed(2)} %`;
}

function table(items: ComputedItem[], totals: ItemValues): string {
  const head = ['article', 'sales', 'returns', 'realization', 'for_pay', 'logistics', 'profit', 'margin'];
  const row = (article: string, v: ItemValues): string[] => [
    article,
    String(v.sales_qty ?? 0),
    String(v.returns_qty ?? 0),
    money(v.realization),
    money(v.for_pay),
    money((v.logistics ?? 0) + (v.reverse_logistics ?? 0)),
    money(v.profit),
    pct(v.margin),
  ];
  const sorted = [...items].sort((a, b) => (b.effective.realization ?? 0) - (a.effective.realization ?? 0));
  const body = sorted.map((it) => row(it.article === '' ? 'Без артикула' : it.article, it.effective));
  const total = row('ИТОГО', totals);
  const all = [head, ...body, total];
  const width = head.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  const fmt = (r: string[]): string =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(width[c]!) : cell.padStart(width[c]!))).join('  ');
  const rule = width.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(head), rule, ...body.map(fmt), rule, fmt(total)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  let values: { json?: boolean; 'cost-prices'?: string; tax?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        json: { type: 'boolean', default: false },
        'cost-prices': { type: 'string' },
        tax: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(
      'usage: npm run report -- <file> [--json] [--cost-prices prices.csv] [--tax usn_income:6:0]\n',
    );
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError('usage: npm run report -- <file> [--json] [--cost-prices prices.csv] [--tax usn_income:6:0]');
  const file = positionals[0]!;
  const tax = values.tax ? parseTax(values.tax) : DEFAULT_TAX_PROFILE;
  let costPrices: Record<string, number> = {};
  if (values['cost-prices']) {
    let text: string;
    try {
      text = fs.readFileSync(values['cost-prices'], 'utf8');
    } catch (err) {
      throw new UsageError(`--cost-prices: ${(err as Error).message}`);
    }
    costPrices = parseCostPrices(text);
  }
  if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);

  const parsed = await readReport({ path: file! });
  const { items } = buildItems(parsed, { tax, costPrices });
  const totals = computeTotals(items.map((i) => i.effective));
  const byCategory = commissionByCategory(items);

  if (values.json) {
    const doc = {
      report_number: parsed.report_number,
      seller_number: parsed.seller_number,
      rows: parsed.rows,
      period: { from: parsed.period_from, to: parsed.period_to },
      items: items.map((it) => ({
        article: it.article,
        category: it.category,
        nm_id: it.nm_id,
        brand: it.brand,
        ...inRoubles(it.effective),
      })),
      totals: inRoubles(totals),
      commission_by_category: byCategory.map((c) => ({
        category: c.category,
        realization: kopecksToRoubles(c.realization),
        commission: kopecksToRoubles(c.commission),
        percent: c.percent,
      })),
      warnings: parsed.warnings,
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }

  const lines = [
    `Отчет №${parsed.report_number ?? '—'}, продавец ${parsed.seller_number ?? '—'}, период ${parsed.period_from ?? '—'} — ${parsed.period_to ?? '—'}, строк ${parsed.rows} (${parsed.format})`,
    `Налог: ${tax.tax_system} ${tax.usn_rate} %, НДС ${tax.vat_rate} %; себестоимость задана для ${Object.keys(costPrices).length} артикулов`,
    '',
    table(items, totals),
    '',
    'logistics = прямая + обратная логистика; суммы в рублях.',
  ];
  for (const w of parsed.warnings) lines.push(`! ${w.message}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`${err.message}\n`);
        process.exitCode = 2;
      } else if (err instanceof ReportError) {
        process.stderr.write(`error (${err.code}): ${err.message}\n`);
        process.exitCode = 1;
      } else {
        process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        process.exitCode = 1;
      }
    },
  );
}
