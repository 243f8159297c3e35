/**
 * Catalog and sellers routes in-process against DynamoDB Local: product prices (put, list, search,
 * import with per-row errors), the repository calls report building relies on (cost prices, adding
 * missing articles without touching prices), sellers created on demand, renamed, given a tax profile,
 * and tenant isolation.
 */
import { randomUUID } from 'node:crypto';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { handler as importProductsHandler } from '../../functions/products/import.handler';
import { handler as listProductsHandler } from '../../functions/products/list.handler';
import { handler as putProductHandler } from '../../functions/products/put.handler';
import { handler as listSellersHandler } from '../../functions/sellers/list.handler';
import { handler as updateSellerHandler } from '../../functions/sellers/update.handler';
import { signToken } from '../../shared/auth/tokens';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';
import {
  ensureProducts,
  getCostPrices,
  importProducts,
  listProducts,
  putProduct,
} from '../../shared/store/products.repo';
import { ensureSellerByNumber, getSeller, listSellers } from '../../shared/store/sellers.repo';
import { createUser } from '../../shared/store/users.repo';

async function newUser(): Promise<{ id: string; token: string }> {
  const u = await createUser({ email: `catalog-${randomUUID()}@example.com`, confirmed: true, limits: 0 });
  return { id: u.id, token: signToken({ user_id: u.id }, 'access') };
}

const enc = encodeURIComponent;

function putPrice(token: string, article: string, costPrice: unknown) {
  const path = `/api/products/${enc(article)}`;
  return putProductHandler(
    apiEvent({
      method: 'PUT',
      path,
      token,
      body: { cost_price: costPrice },
      pathParameters: { article: enc(article) },
    }),
  );
}

async function listAll(token: string, search?: string): Promise<Array<{ article: string; cost_price: number }>> {
  const out: Array<{ article: string; cost_price: number }> = [];
  let cursor: string | null = null;
  do {
    const query: Record<string, string> = {};
    if (search !== undefined) query.search = search;
    if (cursor) query.cursor = cursor;
    const r = await listProductsHandler(apiEvent({ method: 'GET', path: '/api/products', token, query }));
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{
      items: Array<{ article: string; cost_price: number; updated_at: string }>;
      next_cursor: string | null;
    }>(r);
    out.push(...body.items.map(({ article, cost_price }) => ({ article, cost_price })));
    cursor = body.next_cursor;
  } while (cursor);
  return out;
}

function importFile(token: string, filename: string, content: Buffer, fields: Record<string, string> = {}) {
  const { body, contentType } = multipartBody({ filename, content }, fields);
  return importProductsHandler(
    apiEvent({ method: 'POST', path: '/api/products/import', token, body, headers: { 'content-type': contentType } }),
  );
}

describe('products: put and list', () => {
  it('PUT creates then updates a product; articles with Cyrillic, "/", "#", "%" and spaces survive the path', async () => {
    const u = await newUser();
    const articles = ['Платье/синее #42', '100%хлопок', 'a b', 'plain'];
    for (const [i, a] of articles.entries()) {
      const r = await putPrice(u.token, a, 100 + i + 0.5);
      expect(r.statusCode).toBe(200);
      expect(bodyOf(r)).toMatchObject({ article: a, cost_price: 100 + i + 0.5 });
    }
    const again = await putPrice(u.token, 'plain', 7.25);
    expect(bodyOf(again)).toMatchObject({ article: 'plain', cost_price: 7.25 });
    const all = await listAll(u.token);
    expect(all).toEqual(
      expect.arrayContaining([
        { article: 'Платье/синее #42', cost_price: 100.5 },
        { article: '100%хлопок', cost_price: 101.5 },
        { article: 'a b', cost_price: 102.5 },
        { article: 'plain', cost_price: 7.25 },
      ]),
    );
    expect(all).toHaveLength(4);
    // Stored as integer kopecks.
    expect(await getCostPrices(u.id, ['plain', 'Платье/синее #42', 'missing'])).toEqual({
      plain: 725,
      'Платье/синее #42': 10050,
    });
  });

  it('a negative or non-numeric cost price is a 400 and changes nothing', async () => {
    const u = await newUser();
    await putPrice(u.token, 'A-1', 10);
    for (const bad of [-1, 'ten', null]) {
      const r = await putPrice(u.token, 'A-1', bad);
      expect(r.statusCode).toBe(400);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('validation_error');
    }
    expect(await listAll(u.token)).toEqual([{ article: 'A-1', cost_price: 10 }]);
  });

  it('search is a case-insensitive substring of the article, and paging returns each product once', async () => {
    const u = await newUser();
    const rows = Array.from({ length: 230 }, (_, i) => ({
      article: i % 3 === 0 ? `Куртка-${i}` : `shirt-${i}`,
      costPriceKopecks: i * 100,
    }));
    await importProducts(u.id, rows, { createMissing: true });
    const page = await listProducts(u.id, { limit: 50 });
    expect(page.items).toHaveLength(50);
    expect(page.next_cursor).not.toBeNull();
    const all = await listAll(u.token);
    expect(all).toHaveLength(230);
    expect(new Set(all.map((p) => p.article)).size).toBe(230);
    const kurtki = await listAll(u.token, 'КУРТ');
    expect(kurtki).toHaveLength(rows.filter((r) => r.article.startsWith('Куртка')).length);
    expect(kurtki.every((p) => p.article.startsWith('Куртка'))).toBe(true);
    const small = await listProducts(u.id, { search: 'SHIRT-1', limit: 7 });
    expect(small.items).toHaveLength(7);
    let cursor = small.next_cursor;
    const seen = small.items.map((p) => p.article);
    while (cursor) {
      const next = await listProducts(u.id, { search: 'shirt-1', limit: 7, cursor });
      seen.push(...next.items.map((p) => p.article));
      cursor = next.next_cursor;
    }
    const expected = rows.filter((r) => r.article.startsWith('shirt-1')).map((r) => r.article);
    expect(seen.sort()).toEqual(expected.sort());
  });

  it('a forged cursor is a 400', async () => {
    const u = await newUser();
    const r = await listProductsHandler(
      apiEvent({
        method: 'GET',
        path: '/api/products',
        token: u.token,
        query: { cursor: Buffer.from('LIMIT#x').toString('base64url') },
      }),
    );
    expect(r.statusCode).toBe(400);
  });

  it('another user sees none of my products and cannot change them', async () => {
    const a = await newUser();
    const b = await newUser();
    await putPrice(a.token, 'shared-name', 50);
    expect(await listAll(b.token)).toEqual([]);
    await putPrice(b.token, 'shared-name', 1);
    expect(await listAll(a.token)).toEqual([{ article: 'shared-name', cost_price: 50 }]);
  });
});

describe('products: what report building uses', () => {
  it('ensureProducts adds missing articles at 0 and never overwrites an existing price (few: conditional puts, under concurrency)', async () => {
    const u = await newUser();
    await putProduct(u.id, 'priced', 12_345);
    const few = Array.from({ length: 60 }, (_, i) => `art-${i}`);
    await Promise.all([
      ensureProducts(u.id, ['priced', '', ...few]),
      ensureProducts(u.id, ['priced', ...few.slice(0, 30)]),
      putProduct(u.id, 'art-5', 999),
    ]);
    const prices = await getCostPrices(u.id, ['priced', ...few, '']);
    expect(prices.priced).toBe(12_345);
    expect(prices['art-5']).toBe(999);
    expect(Object.keys(prices)).toHaveLength(61);
    expect(few.filter((a) => a !== 'art-5').every((a) => prices[a] === 0)).toBe(true);
    // The empty article ("Без артикула") is not a product.
    expect((await listAll(u.token)).some((p) => p.article === '')).toBe(false);
  });

  it('ensureProducts with many new articles (batched) keeps the prices already set', async () => {
    const u = await newUser();
    await importProducts(
      u.id,
      [
        { article: 'big-7', costPriceKopecks: 700 },
        { article: 'big-250', costPriceKopecks: 25_000 },
      ],
      { createMissing: true },
    );
    const many = Array.from({ length: 260 }, (_, i) => `big-${i}`);
    await ensureProducts(u.id, many);
    const prices = await getCostPrices(u.id, many);
    expect(Object.keys(prices)).toHaveLength(260);
    expect(prices['big-7']).toBe(700);
    expect(prices['big-250']).toBe(25_000);
    expect(Object.values(prices).filter((p) => p === 0)).toHaveLength(258);
  });
});

describe('products: import', () => {
  it('csv with ";" and decimal commas: good rows applied, bad rows reported with their file row numbers', async () => {
    const u = await newUser();
    await putPrice(u.token, 'EXIST-1', 1);
    const csv = [
      'Артикул поставщика;Наименование;Себестоимость, руб.',
      'EXIST-1;Платье;1 234,56',
      'NEW/1;"Юбка; длинная";99,9',
      ';без артикула;10',
      'NEW-2;Шорты;-5',
      'NEW-3;Шапка;абв',
      '',
      'NEW-4;Носки;0',
    ].join('\r\n');
    const r = await importFile(u.token, 'цены.csv', Buffer.from(`\uFEFF${csv}`, 'utf8'), { create_missing: 'true' });
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{ updated: number; created: number; errors: Array<{ row: number; message: string }> }>(r);
    expect(body).toMatchObject({ updated: 1, created: 2 });
    expect(body.errors.map((e) => e.row)).toEqual([4, 5, 6]);
    expect(body.errors[1]!.message).toMatch(/отрицательн/);
    expect(await getCostPrices(u.id, ['EXIST-1', 'NEW/1', 'NEW-2', 'NEW-3', 'NEW-4'])).toEqual({
      'EXIST-1': 123_456,
      'NEW/1': 9990,
      'NEW-4': 0,
    });
  });

  it('csv with "," and English headers, in Windows-1251', async () => {
    const u = await newUser();
    const text = 'article,cost_price\nТовар-1,10.5\n"Товар,2",7\n';
    const cp1251 = Buffer.from(
      [...text].map((ch) => {
        const c = ch.codePointAt(0)!;
        if (c < 128) return c;
        if (c >= 0x410 && c <= 0x44f) return c - 0x410 + 0xc0;
        throw new Error(`no cp1251 byte for ${ch}`);
      }),
    );
    const r = await importFile(u.token, 'prices.csv', cp1251, { create_missing: 'true' });
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toMatchObject({ created: 2, updated: 0, errors: [] });
    expect(await getCostPrices(u.id, ['Товар-1', 'Товар,2'])).toEqual({ 'Товар-1': 1050, 'Товар,2': 700 });
  });

  it('xlsx with a title block above a loosely written header; numeric articles and prices', async () => {
    const u = await newUser();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Цены');
    ws.addRow(['Себестоимость товаров на 01.02.2026']);
    ws.addRow([]);
    ws.addRow(['Артикул WB', ' артикул  ', 'СЕБЕСТОИМОСТЬ (руб.)']);
    ws.addRow([111, 'X-1', 250.75]);
    ws.addRow([222, 4455, '1 000,10']);
    ws.addRow([333, 'X-3', 'много']);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    const r = await importFile(u.token, 'цены.xlsx', file, { create_missing: '1' });
    expect(r.statusCode).toBe(200);
    const body = bodyOf<{ updated: number; created: number; errors: Array<{ row: number; message: string }> }>(r);
    expect(body).toMatchObject({ created: 2, updated: 0 });
    expect(body.errors).toEqual([{ row: 6, message: expect.stringMatching(/не число/) }]);
    // "Артикул WB" is WB's nm_id, not the seller's article: the bare "артикул" column wins.
    expect(await getCostPrices(u.id, ['X-1', '4455', '111'])).toEqual({ 'X-1': 25_075, '4455': 100_010 });
  });

  it('articles the catalog does not know are listed and left out, unless create_missing=true adds them', async () => {
    const u = await newUser();
    await putPrice(u.token, 'EXIST-1', 1);
    // A report added this one (never priced): the catalog knows it.
    await ensureProducts(u.id, ['FROM-REPORT']);
    const csv = 'Артикул;Себестоимость\nEXIST-1;10\nОПЕЧАТКА-1;20\nFROM-REPORT;30\nNEW-2;40\nОПЕЧАТКА-1;21\n';
    const r = await importFile(u.token, 'prices.csv', Buffer.from(csv, 'utf8'));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r)).toEqual({
      updated: 2,
      created: 0,
      unknown: { count: 2, articles: ['ОПЕЧАТКА-1', 'NEW-2'] },
      errors: [],
    });
    expect(await getCostPrices(u.id, ['EXIST-1', 'ОПЕЧАТКА-1', 'FROM-REPORT', 'NEW-2'])).toEqual({
      'EXIST-1': 1000,
      'FROM-REPORT': 3000,
    });
    // "false" is not asking.
    expect(
      bodyOf(await importFile(u.token, 'prices.csv', Buffer.from(csv, 'utf8'), { create_missing: 'false' })),
    ).toMatchObject({ created: 0, unknown: { count: 2 } });

    const again = await importFile(u.token, 'prices.csv', Buffer.from(csv, 'utf8'), { create_missing: 'true' });
    expect(bodyOf(again)).toEqual({ updated: 2, created: 2, unknown: { count: 0, articles: [] }, errors: [] });
    expect(await getCostPrices(u.id, ['ОПЕЧАТКА-1', 'NEW-2'])).toEqual({ 'ОПЕЧАТКА-1': 2100, 'NEW-2': 4000 });
    // Anything else in the field is a 400, not a silent no.
    expect(
      (await importFile(u.token, 'prices.csv', Buffer.from(csv, 'utf8'), { create_missing: 'yes' })).statusCode,
    ).toBe(400);
  });

  it('cost prices with more than 2 decimals are refused alike: a PUT with 422, an import row as an error', async () => {
    const u = await newUser();
    await putPrice(u.token, 'D-1', 5);
    for (const bad of [0.001, 12.345, 1.0000001]) {
      const r = await putPrice(u.token, 'D-1', bad);
      expect(r.statusCode, String(bad)).toBe(422);
      const err = bodyOf<{ error: { code: string; details: { field: string } } }>(r).error;
      expect(err.code).toBe('value_out_of_range');
      expect(err.details.field).toBe('cost_price');
    }
    expect(await getCostPrices(u.id, ['D-1'])).toEqual({ 'D-1': 500 });
    // A binary float's tail is not a third decimal.
    expect((await putPrice(u.token, 'D-1', 0.1 + 0.2)).statusCode).toBe(200);
    expect(await getCostPrices(u.id, ['D-1'])).toEqual({ 'D-1': 30 });

    await ensureProducts(u.id, ['D-2', 'D-3', 'D-4']);
    const csv = 'Артикул;Себестоимость\nD-2;0,001\nD-3;12.345\nD-4;0.30000000000000004\n';
    const r = await importFile(u.token, 'prices.csv', Buffer.from(csv, 'utf8'));
    const body = bodyOf<{ updated: number; errors: Array<{ row: number; message: string }> }>(r);
    expect(body.updated).toBe(1);
    expect(body.errors).toEqual([
      { row: 2, message: 'Себестоимость «0,001»: больше 2 знаков после запятой' },
      { row: 3, message: 'Себестоимость «12.345»: больше 2 знаков после запятой' },
    ]);
    expect(await getCostPrices(u.id, ['D-2', 'D-3', 'D-4'])).toEqual({ 'D-2': 0, 'D-3': 0, 'D-4': 30 });
  });

  it('an article of more than 300 characters from a report is in the catalog and can be priced (up to 1000)', async () => {
    const u = await newUser();
    const long = `Набор полотенец махровых ${'очень длинное название '.repeat(20)}`.trim();
    expect(long.length).toBeGreaterThan(300);
    await ensureProducts(u.id, [long]);
    expect(await getCostPrices(u.id, [long])).toEqual({ [long]: 0 });
    const r = await putPrice(u.token, long, 123.45);
    expect(r.statusCode).toBe(200);
    expect(bodyOf<{ article: string; cost_price: number }>(r)).toMatchObject({ article: long, cost_price: 123.45 });
    expect(await getCostPrices(u.id, [long])).toEqual({ [long]: 12_345 });
    expect(await listAll(u.token, long.slice(0, 400))).toEqual([{ article: long, cost_price: 123.45 }]);
    const imported = await importFile(u.token, 'p.csv', Buffer.from(`Артикул;Себестоимость\n${long};99\n`, 'utf8'));
    expect(bodyOf(imported)).toMatchObject({ updated: 1, created: 0, errors: [] });
    expect((await putPrice(u.token, 'я'.repeat(1001), 1)).statusCode).toBe(400);
  });

  it('a file without the needed columns is a 422 naming them; a binary non-spreadsheet is a 415', async () => {
    const u = await newUser();
    const r = await importFile(u.token, 'x.csv', Buffer.from('Артикул;Цена\nA;1\n'));
    expect(r.statusCode).toBe(422);
    const err = bodyOf<{ error: { code: string; message: string; details: { missing: string[] } } }>(r).error;
    expect(err.code).toBe('missing_columns');
    expect(err.details.missing).toEqual([expect.stringMatching(/^Себестоимость/)]);
    expect(err.message).toMatch(/Себестоимость/);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect((await importFile(u.token, 'x.png', png)).statusCode).toBe(415);
    const none = await importProductsHandler(
      apiEvent({ method: 'POST', path: '/api/products/import', token: u.token, body: {} }),
    );
    expect(none.statusCode).toBe(400);
  });
});

describe('sellers', () => {
  it('ensureSellerByNumber creates one seller per number even when called concurrently', async () => {
    const u = await newUser();
    const results = await Promise.all(Array.from({ length: 8 }, () => ensureSellerByNumber(u.id, '1202289')));
    expect(new Set(results.map((s) => s.id)).size).toBe(1);
    expect(results[0]).toMatchObject({ number: '1202289', name: 'Продавец 1202289', tax: null });
    const other = await ensureSellerByNumber(u.id, '777');
    expect(other.id).not.toBe(results[0]!.id);
    expect((await listSellers(u.id)).map((s) => s.number).sort()).toEqual(['1202289', '777']);
  });

  it('GET lists the sellers; PATCH renames, sets and resets the tax profile', async () => {
    const u = await newUser();
    const s = await ensureSellerByNumber(u.id, '555');
    const list = await listSellersHandler(apiEvent({ method: 'GET', path: '/api/sellers', token: u.token }));
    const own = { tax: null, tax_periods: null, allocation: null };
    expect(bodyOf(list)).toEqual({ items: [{ id: s.id, number: '555', name: 'Продавец 555', ...own }] });

    const patch = (body: unknown, id = s.id, token = u.token) =>
      updateSellerHandler(
        apiEvent({ method: 'PATCH', path: `/api/sellers/${id}`, token, body, pathParameters: { id } }),
      );
    const renamed = await patch({ name: '  ИП Иванов  ' });
    expect(renamed.statusCode).toBe(200);
    expect(bodyOf(renamed)).toEqual({ id: s.id, number: '555', name: 'ИП Иванов', ...own });
    const tax = { tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 5 };
    expect(bodyOf(await patch({ tax }))).toMatchObject({ name: 'ИП Иванов', tax });
    expect((await getSeller(u.id, s.id))?.tax).toEqual(tax);
    expect(bodyOf(await patch({ tax: null }))).toMatchObject({ tax: null });
    expect((await getSeller(u.id, s.id))?.tax).toBeNull();

    for (const bad of [
      { tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 18 } },
      { tax: { tax_system: 'osno', usn_rate: 6, vat_rate: 0 } },
      { name: '' },
      { colour: 'red' },
    ]) {
      expect((await patch(bad)).statusCode).toBe(400);
    }
    expect((await patch({ name: 'x' }, 'NOT-AN-ID')).statusCode).toBe(404);
  });

  it("another user's seller is a 404 and stays unchanged; their list does not show it", async () => {
    const a = await newUser();
    const b = await newUser();
    const s = await ensureSellerByNumber(a.id, '999');
    const r = await updateSellerHandler(
      apiEvent({
        method: 'PATCH',
        path: `/api/sellers/${s.id}`,
        token: b.token,
        body: { name: 'чужой' },
        pathParameters: { id: s.id },
      }),
    );
    expect(r.statusCode).toBe(404);
    expect((await getSeller(a.id, s.id))?.name).toBe('Продавец 999');
    expect(bodyOf(await listSellersHandler(apiEvent({ method: 'GET', path: '/api/sellers', token: b.token })))).toEqual(
      { items: [] },
    );
    // The same number for another user is another seller.
    expect((await ensureSellerByNumber(b.id, '999')).id).not.toBe(s.id);
  });
});
