/**
 * Purchases of goods against DynamoDB Local (docs/API.md, «Cash flow and purchases»): created, listed by
 * date, replaced, deleted; bad input refused with 422 invalid_purchase naming the field (a negative or
 * absurd amount, a date outside 2019–2100, an article not in the catalog); imported from a csv and an
 * xlsx with Russian errors per row; another user kept out.
 */
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/cashflow/purchases.handler';
import { handler as productsPut } from '../../functions/products/put.handler';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';
import { newUser, type TestUser } from '../support/reports';
import type { Purchase } from '../../shared/contract';

const call = (token: string, method: string, path: string, extra: Record<string, unknown> = {}) =>
  handler(apiEvent({ method, path, token, ...extra }));

type Failure = { error: { code: string; message: string; details: Record<string, unknown> } };

describe('purchases', () => {
  let u: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    u = await newUser(1000, 'purchases');
    other = await newUser(1000, 'purchases-other');
    const put = await productsPut(
      apiEvent({
        method: 'PUT',
        path: '/api/products/ART-1',
        token: u.token,
        pathParameters: { article: 'ART-1' },
        body: { cost_price: 100 },
      }),
    );
    expect(put.statusCode, put.body).toBe(200);
  });

  it('create, list by date, replace, delete; another user sees none of it', async () => {
    const a = await call(u.token, 'POST', '/api/purchases', {
      body: { date: '2026-03-25', amount: 150_000.5, article: 'ART-1', quantity: 300, comment: 'Поставщик А' },
    });
    expect(a.statusCode, a.body).toBe(201);
    expect(bodyOf<Purchase>(a)).toMatchObject({
      date: '2026-03-25',
      amount: 150_000.5,
      article: 'ART-1',
      quantity: 300,
      comment: 'Поставщик А',
      seller_id: null,
    });
    const b = bodyOf<Purchase>(
      await call(u.token, 'POST', '/api/purchases', { body: { date: '2026-03-02', amount: 1 } }),
    );
    const list = bodyOf<{ purchases: Purchase[] }>(await call(u.token, 'GET', '/api/purchases'));
    expect(list.purchases.map((p) => [p.date, p.amount])).toEqual([
      ['2026-03-02', 1],
      ['2026-03-25', 150_000.5],
    ]);

    const replaced = await call(u.token, 'PUT', `/api/purchases/${b.id}`, {
      pathParameters: { id: b.id },
      body: { date: '2026-04-01', amount: 20_000 },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(bodyOf<Purchase>(replaced)).toMatchObject({ id: b.id, date: '2026-04-01', amount: 20_000, article: null });

    const theirs = await call(other.token, 'PUT', `/api/purchases/${b.id}`, {
      pathParameters: { id: b.id },
      body: { date: '2026-04-01', amount: 1 },
    });
    expect(theirs.statusCode).toBe(404);
    expect(bodyOf<Failure>(theirs).error.code).toBe('purchase_not_found');
    expect(bodyOf<{ purchases: Purchase[] }>(await call(other.token, 'GET', '/api/purchases')).purchases).toEqual([]);

    const del = await call(u.token, 'DELETE', `/api/purchases/${b.id}`, { pathParameters: { id: b.id } });
    expect(del.statusCode).toBe(204);
    const again = await call(u.token, 'DELETE', `/api/purchases/${b.id}`, { pathParameters: { id: b.id } });
    expect(again.statusCode).toBe(404);
    const after = bodyOf<{ purchases: Purchase[] }>(await call(u.token, 'GET', '/api/purchases'));
    expect(after.purchases.map((p) => p.amount)).toEqual([150_000.5]);
  });

  it.each([
    [{ date: '2026-03-01', amount: -5 }, 'amount'],
    [{ date: '2026-03-01', amount: 0 }, 'amount'],
    [{ date: '2026-03-01', amount: 1e12 }, 'amount'],
    [{ date: '2026-03-01', amount: 1.001 }, 'amount'],
    [{ date: '2018-12-31', amount: 5 }, 'date'],
    [{ date: '2101-01-01', amount: 5 }, 'date'],
    [{ date: '2026-02-30', amount: 5 }, 'date'],
    [{ date: '2026-03-01', amount: 5, quantity: 2.5 }, 'quantity'],
    [{ date: '2026-03-01', amount: 5, article: 'NO-SUCH' }, 'article'],
  ])('refuses %j with 422 invalid_purchase naming %s', async (body, field) => {
    const r = await call(u.token, 'POST', '/api/purchases', { body });
    expect(r.statusCode, r.body).toBe(422);
    const e = bodyOf<Failure>(r).error;
    expect(e.code).toBe('invalid_purchase');
    expect(e.details.field).toBe(field);
    expect(e.message).toMatch(/[а-я]/);
  });

  it('imports a csv: good rows added, bad rows listed with their numbers in Russian', async () => {
    const user = await newUser(1000, 'purchases-import');
    await productsPut(
      apiEvent({
        method: 'PUT',
        path: '/api/products/ART-1',
        token: user.token,
        pathParameters: { article: 'ART-1' },
        body: { cost_price: 1 },
      }),
    );
    const csv = [
      'Закупки за март',
      'Дата;Сумма;Артикул;Кол-во;Комментарий',
      '05.03.2026;12 500,50;ART-1;100;Фабрика',
      '2026-03-20;7000;;;',
      '31.02.2026;100;;;',
      '10.03.2026;-5;;;',
      '11.03.2026;100;NOPE;;',
      '12.03.2026;100;;1,5;',
      '01.01.2018;100;;;',
    ].join('\n');
    const form = multipartBody({ filename: 'p.csv', content: Buffer.from(csv, 'utf8') });
    const r = await call(user.token, 'POST', '/api/purchases/import', {
      body: form.body,
      headers: { 'content-type': form.contentType },
    });
    expect(r.statusCode, r.body).toBe(200);
    const res = bodyOf<{ created: number; errors: Array<{ row: number; message: string }> }>(r);
    expect(res.created).toBe(2);
    expect(res.errors.map((e) => e.row)).toEqual([5, 6, 7, 8, 9]);
    expect(res.errors[0]!.message).toContain('Дата «31.02.2026» не распознана');
    expect(res.errors[1]!.message).toBe('Сумма должна быть больше нуля');
    expect(res.errors[2]!.message).toBe('Артикула «NOPE» нет в каталоге');
    expect(res.errors[3]!.message).toContain('Количество');
    expect(res.errors[4]!.message).toContain('с 2019 по 2100');
    const list = bodyOf<{ purchases: Purchase[] }>(await call(user.token, 'GET', '/api/purchases'));
    expect(list.purchases.map((p) => [p.date, p.amount, p.article, p.quantity, p.comment])).toEqual([
      ['2026-03-05', 12_500.5, 'ART-1', 100, 'Фабрика'],
      ['2026-03-20', 7000, null, null, null],
    ]);
  });

  it('imports an xlsx; a file without the columns is refused with purchase_columns_missing', async () => {
    const user = await newUser(1000, 'purchases-xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Закупки');
    ws.addRow(['Дата закупки', 'Сумма закупки', 'Примечание']);
    ws.addRow(['01.04.2026', 3000, 'Упаковка']);
    ws.addRow(['2026-04-15', '4500,25', '']);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    const form = multipartBody({ filename: 'p.xlsx', content: file });
    const r = await call(user.token, 'POST', '/api/purchases/import', {
      body: form.body,
      headers: { 'content-type': form.contentType },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(bodyOf<{ created: number }>(r).created).toBe(2);
    const list = bodyOf<{ purchases: Purchase[] }>(await call(user.token, 'GET', '/api/purchases'));
    expect(list.purchases.map((p) => [p.date, p.amount, p.comment])).toEqual([
      ['2026-04-01', 3000, 'Упаковка'],
      ['2026-04-15', 4500.25, null],
    ]);

    const bad = multipartBody({ filename: 'x.csv', content: Buffer.from('a;b\n1;2\n', 'utf8') });
    const refused = await call(user.token, 'POST', '/api/purchases/import', {
      body: bad.body,
      headers: { 'content-type': bad.contentType },
    });
    expect(refused.statusCode).toBe(422);
    expect(bodyOf<Failure>(refused).error.code).toBe('purchase_columns_missing');
  });
});
