/**
 * Golden test on a real WB report (2022, 49 columns, 99 rows, 8 articles, percents as fractions).
 * The sheet is read here independently with @e965/xlsx and the expected numbers are worked out by a second,
 * deliberately naive implementation (filter the rows of an article, round each cell to kopecks, add up);
 * a few numbers are also literals checked by hand against the sheet.
 */
import * as XLSX from '@e965/xlsx';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAggregator, type AggregatorResult } from './aggregate';
import { buildItems } from './build';
import { readReport } from './read-report';
import { checkIdentity } from './kopeck-check';
import { KEY_INDEX, METRIC_KEYS, type MetricKey } from './row-sink';
import { computeTotals } from './totals';

const FILE = join(__dirname, '../../fixtures/wb-detail-2022-49col.xlsx');

/** The 2022 headers of this file (the reader's own header table is not used here on purpose). */
const HEADERS: Partial<Record<MetricKey, string>> = {
  sa_name: 'Артикул поставщика',
  subject_name: 'Предмет',
  nm_id: 'Код номенклатуры',
  brand_name: 'Бренд',
  doc_type_name: 'Тип документа',
  supplier_oper_name: 'Обоснование для оплаты',
  order_dt: 'Дата заказа покупателем',
  sale_dt: 'Дата продажи',
  quantity: 'Кол-во',
  retail_amount: 'Вайлдберриз реализовал Товар (Пр)',
  retail_price_withdisc_rub: 'Цена розничная с учетом согласованной скидки',
  commission_percent: 'Размер кВВ, %',
  ppvz_reward: 'Возмещение за выдачу и возврат товаров на ПВЗ',
  acquiring_fee: 'Возмещение расходов по эквайрингу',
  ppvz_vw: 'Вознаграждение Вайлдберриз (ВВ), без НДС',
  ppvz_vw_nds: 'НДС с Вознаграждения Вайлдберриз',
  ppvz_for_pay: 'К перечислению Продавцу за реализованный Товар',
  delivery_amount: 'Количество доставок',
  return_amount: 'Количество возврата',
  delivery_rub: 'Услуги по доставке товара покупателю',
  penalty: 'Штрафы',
  additional_payment: 'Доплаты',
  bonus_type_name: 'Обоснование штрафов и доплат',
};

type Raw = Record<string, unknown>;

let header: string[];
let sheetRows: Raw[];
let result: AggregatorResult;

beforeAll(() => {
  const wb = XLSX.read(readFileSync(FILE));
  const ws = wb.Sheets[wb.SheetNames[0]!]!;
  const matrix = XLSX.utils.sheet_to_json<unknown[]>(ws, { header: 1, raw: true, defval: null });
  header = (matrix[0] as unknown[]).map((h) => String(h));
  sheetRows = matrix
    .slice(1)
    .filter((r) => r.some((c) => c !== null && c !== ''))
    .map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));

  // Feed the aggregator as a reader would: the cell's text, undefined for an empty cell or an absent column.
  const agg = createAggregator();
  const present = new Set<MetricKey>(
    METRIC_KEYS.filter((k) => HEADERS[k] !== undefined && header.includes(HEADERS[k]!)),
  );
  agg.begin(present);
  for (const row of sheetRows) {
    const cells: Array<string | undefined> = new Array(METRIC_KEYS.length).fill(undefined);
    for (const k of present) {
      const v = row[HEADERS[k]!];
      cells[KEY_INDEX[k]] = v === null || v === undefined || v === '' ? undefined : String(v);
    }
    agg.row(cells);
  }
  result = agg.finish();
});

// The naive second implementation.
const kop = (v: unknown): number => Math.round(Number(v ?? 0) * 100);
const col = (r: Raw, k: MetricKey): unknown => r[HEADERS[k]!];
const sum = (rows: Raw[], f: (r: Raw) => number): number => rows.reduce((s, r) => s + f(r), 0);

function expectedFor(article: string) {
  const rows = sheetRows.filter((r) => String(col(r, 'sa_name') ?? '').trim() === article);
  // This file has only three operations: Продажа (sales, all with Тип документа = Продажа), Логистика and Штрафы.
  const sales = rows.filter((r) => col(r, 'supplier_oper_name') === 'Продажа' && col(r, 'doc_type_name') === 'Продажа');
  const logistics = rows.filter((r) => col(r, 'supplier_oper_name') === 'Логистика');
  const reverse = logistics.filter((r) => Number(col(r, 'return_amount') ?? 0) > 0);
  const forward = logistics.filter((r) => !(Number(col(r, 'return_amount') ?? 0) > 0));
  const weight = sum(sales, (r) => kop(col(r, 'retail_amount')));
  const pctWeighted = sum(sales, (r) => Number(col(r, 'commission_percent')) * 100 * kop(col(r, 'retail_amount')));
  const realization = sum(sales, (r) => kop(col(r, 'retail_amount')));
  const sellerPrice = sum(sales, (r) => kop(col(r, 'retail_price_withdisc_rub')) * Number(col(r, 'quantity')));
  return {
    category: String(col((sales[0] ?? rows[0])!, 'subject_name')),
    nm_id: String(col(rows[0]!, 'nm_id')),
    brand: String(col(rows[0]!, 'brand_name')),
    aggregates: {
      sales_qty: sum(sales, (r) => Number(col(r, 'quantity'))),
      returns_qty: 0,
      realization,
      seller_price: sellerPrice,
      sales_seller_price: sellerPrice,
      wb_discount: sellerPrice - realization,
      for_pay: sum(sales, (r) => kop(col(r, 'ppvz_for_pay'))),
      commission: sum(sales, (r) => kop(col(r, 'ppvz_vw')) + kop(col(r, 'ppvz_vw_nds'))),
      acquiring: sum(sales, (r) => kop(col(r, 'acquiring_fee'))),
      // Every sale row of this file has for_pay = retail − vw − vw_nds − acquiring − reward: acquiring inside.
      acquiring_billed: 0,
      attorney_services: sum(sales, (r) => kop(col(r, 'ppvz_reward'))),
      compensations: 0,
      logistics: sum(forward, (r) => kop(col(r, 'delivery_rub'))),
      reverse_logistics: sum(reverse, (r) => kop(col(r, 'delivery_rub'))),
      rebill_logistics: 0,
      storage: 0,
      acceptance: 0,
      penalties: sum(rows, (r) => kop(col(r, 'penalty'))),
      additional_payments: sum(rows, (r) => kop(col(r, 'additional_payment'))),
      ads: 0,
      loans: 0,
      deductions: 0,
      loyalty: 0,
      loyalty_discount: 0,
      category_commission_percent: weight > 0 ? Math.round((pctWeighted / weight) * 100) / 100 : 0,
    },
  };
}

describe('golden: wb-detail-2022-49col.xlsx', () => {
  it('has the rows and articles the test expects', () => {
    expect(sheetRows).toHaveLength(99);
    expect(result.rows).toBe(99);
    expect(result.articles).toHaveLength(8);
    const ops = new Set(sheetRows.map((r) => col(r, 'supplier_oper_name')));
    expect([...ops].sort()).toEqual(['Логистика', 'Продажа', 'Штрафы']);
  });

  it('every article matches the naive computation from the sheet', () => {
    const articles = [...new Set(sheetRows.map((r) => String(col(r, 'sa_name') ?? '').trim()))];
    expect(result.articles.map((a) => a.article).sort()).toEqual(articles.sort());
    for (const a of result.articles) {
      const exp = expectedFor(a.article);
      expect({ category: a.category, nm_id: a.nm_id, brand: a.brand }, a.article).toEqual({
        category: exp.category,
        nm_id: exp.nm_id,
        brand: exp.brand,
      });
      expect(a.aggregates, a.article).toEqual(exp.aggregates);
    }
  });

  it('hand-checked literals', () => {
    const get = (article: string) => result.articles.find((a) => a.article === article)!.aggregates;
    // One sale 529.00 → 482.86, one delivery 55.00, six «Платная приемка МП на СЦ» penalties of 15.00, kVV 0.11.
    expect(get('MFG4PRT001Черный')).toMatchObject({
      sales_qty: 1,
      realization: 52_900,
      for_pay: 48_286,
      logistics: 5_500,
      reverse_logistics: 0,
      penalties: 9_000,
      acceptance: 0,
      category_commission_percent: 11,
    });
    // Two deliveries of 110.00 and nothing else.
    expect(get('MFG8PRT001Черный')).toMatchObject({
      sales_qty: 0,
      realization: 0,
      for_pay: 0,
      logistics: 22_000,
      reverse_logistics: 0,
    });
    // One sale 518.00 → 468.92 at a seller's price of 546.25.
    expect(get('MFG4PRT001Голубой')).toMatchObject({
      sales_qty: 1,
      realization: 51_800,
      for_pay: 46_892,
      seller_price: 54_625,
      wb_discount: 2_825,
      logistics: 0,
    });
    // Forward legs 112.83 + 195.97; the 33.00 leg with Количество возврата = 1 is reverse.
    expect(get('MFG1BUM001MFG1BUM001-w')).toMatchObject({
      logistics: 30_880,
      reverse_logistics: 3_300,
      category_commission_percent: 15,
    });
  });

  it('period and warnings', () => {
    expect(result.period_from).toBe('2022-10-24');
    expect(result.period_to).toBe('2022-10-28');
    expect(result.warnings.map((w) => w.code)).toEqual(['percent_as_fraction']);
  });

  it('the 1-kopeck identity holds on every item', () => {
    const rowsByArticle: Record<string, number> = {};
    for (const r of sheetRows) {
      if (col(r, 'supplier_oper_name') !== 'Продажа') continue;
      const a = String(col(r, 'sa_name') ?? '').trim();
      rowsByArticle[a] = (rowsByArticle[a] ?? 0) + 1;
    }
    expect(checkIdentity(result.articles, rowsByArticle)).toEqual([]);
    // and the per-row identity, as docs/WB-REPORT.md states it, on the sheet itself
    const off = sheetRows
      .filter((r) => col(r, 'supplier_oper_name') === 'Продажа')
      .map(
        (r) =>
          kop(col(r, 'retail_amount')) -
          kop(col(r, 'ppvz_for_pay')) -
          (kop(col(r, 'ppvz_vw')) +
            kop(col(r, 'ppvz_vw_nds')) +
            kop(col(r, 'acquiring_fee')) +
            kop(col(r, 'ppvz_reward'))),
      );
    expect(off.every((d) => Math.abs(d) <= 1)).toBe(true);
  });

  it('readReport on the file gives the same articles, period and warnings', async () => {
    const parsed = await readReport({ path: FILE });
    expect(parsed).toMatchObject({
      format: 'xlsx',
      rows: 99,
      period_from: result.period_from,
      period_to: result.period_to,
    });
    expect(parsed.articles).toEqual(result.articles);
    expect(parsed.warnings).toEqual(result.warnings);
    expect(checkIdentity(parsed.articles)).toEqual([]);
  });

  it('items and totals: the totals row equals the column sums', () => {
    const { items } = buildItems(result, {
      tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
      costPrices: { 'MFG1BUM001MFG1BUM001-w': 90_000 },
    });
    const totals = computeTotals(items.map((i) => i.effective));
    const realization = sheetRows
      .filter((r) => col(r, 'supplier_oper_name') === 'Продажа')
      .reduce((s, r) => s + kop(col(r, 'retail_amount')), 0);
    expect(totals.realization).toBe(realization);
    expect(totals.profit).toBe(items.reduce((s, i) => s + (i.effective.profit ?? 0), 0));
    const main = items.find((i) => i.article === 'MFG1BUM001MFG1BUM001-w')!;
    expect(main.effective.cost_total).toBe(90_000 * main.effective.net_qty!);
    expect(main.effective.usn).toBe(Math.round(((main.effective.income ?? 0) * 6) / 100));
  });
});
