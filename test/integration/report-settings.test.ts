/**
 * Numbers a seller can trust (issue 9, items 2, 3 and 5) in-process against DynamoDB Local and s3rver:
 * missing cost prices counted in the report's warning and listed in the catalog; the allocation of
 * «Без артикула» costs set per user and per seller through the API, marking reports stale, applied on
 * rebuild with Σ = 0 and totals unchanged; dated tax profiles and dated cost prices picked by the
 * report's period through upload and rebuild; concurrent creation of new articles never overwriting a price.
 */
import { describe, expect, it } from 'vitest';
import { handler as updateMeHandler } from '../../functions/auth/update-me.handler';
import { handler as importProductsHandler } from '../../functions/products/import.handler';
import { handler as listProductsHandler } from '../../functions/products/list.handler';
import { handler as putProductHandler } from '../../functions/products/put.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { handler as updateSellerHandler } from '../../functions/sellers/update.handler';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';
import type { ApiReport } from '../../shared/reports/present-report';
import { ensureProducts, getProducts, putProduct } from '../../shared/store/products.repo';
import { listSellers } from '../../shared/store/sellers.repo';
import { getReportOk, makeReport, newUser, uploadOk, type TestUser } from '../support/reports';
import { idleWorkers } from '../support/worker';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const enc = encodeURIComponent;
const kop = (roubles: number | null | undefined) => Math.round((roubles ?? 0) * 100);

function patchMe(token: string, body: unknown) {
  return updateMeHandler(apiEvent({ method: 'PATCH', path: '/api/auth/me', token, body }));
}

function patchSeller(token: string, id: string, body: unknown) {
  return updateSellerHandler(
    apiEvent({ method: 'PATCH', path: `/api/sellers/${id}`, token, body, pathParameters: { id } }),
  );
}

function putPrice(token: string, article: string, body: Record<string, unknown>) {
  return putProductHandler(
    apiEvent({
      method: 'PUT',
      path: `/api/products/${enc(article)}`,
      token,
      body,
      pathParameters: { article: enc(article) },
    }),
  );
}

async function rebuild(token: string, id: string): Promise<ApiReport> {
  const r = await rebuildOneHandler(
    apiEvent({ method: 'POST', path: `/api/reports/${id}/rebuild`, token, pathParameters: { id } }),
  );
  expect(r.statusCode).toBe(200);
  return bodyOf<{ report: ApiReport }>(r).report;
}

async function listMissing(
  token: string,
): Promise<Array<{ article: string; cost_price: number; cost_price_set: boolean }>> {
  const r = await listProductsHandler(
    apiEvent({ method: 'GET', path: '/api/products', token, query: { missing: '1' } }),
  );
  expect(r.statusCode).toBe(200);
  return bodyOf<{ items: Array<{ article: string; cost_price: number; cost_price_set: boolean }> }>(r).items;
}

const warning = (report: ApiReport, code: string) => report.warnings.find((w) => w.code === code);

/** Σ allocated_expenses in kopecks and the report's totals without it. */
function allocationSums(report: ApiReport) {
  return {
    sum: report.items.reduce((s, i) => s + kop(i.computed.allocated_expenses), 0),
    totals: { ...report.totals, allocated_expenses: undefined },
  };
}

describe('missing cost prices', () => {
  it('the report counts the articles that sold without a price and their share; the catalog lists and clears them', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 400, layout: '2026', seed: 31 });
    const sold = g.expected.articles.filter((a) => a.article !== '' && a.aggregates.sales_qty > 0);
    expect(sold.length).toBeGreaterThan(3);
    // Two of them priced before the upload (one at 0: a price set to 0 is a price).
    expect((await putPrice(u.token, sold[0]!.article, { cost_price: 123.45 })).statusCode).toBe(200);
    expect((await putPrice(u.token, sold[1]!.article, { cost_price: 0 })).statusCode).toBe(200);
    const report = await uploadOk(u.token, g);

    const missing = sold.slice(2);
    const totalRealization = g.expected.articles.reduce((s, a) => s + a.aggregates.realization, 0);
    const missingRealization = missing.reduce((s, a) => s + a.aggregates.realization, 0);
    const w = warning(report, 'missing_cost_price');
    expect(w?.details).toMatchObject({
      articles: missing.length,
      realization: missingRealization / 100,
      realization_share: Math.round((missingRealization / totalRealization) * 10000) / 100,
    });
    expect(w?.message).toMatch(/Не указана себестоимость/);

    // The catalog: every article of the report is there (added by the worker's follow-up after the report
    // is ready); the ones never priced are flagged and filtered.
    await idleWorkers();
    const flagged = await listMissing(u.token);
    const unpriced = g.expected.articles.filter((a) => a.article !== '').slice(0);
    const expectedMissing = unpriced
      .map((a) => a.article)
      .filter((a) => a !== sold[0]!.article && a !== sold[1]!.article)
      .sort();
    expect(flagged.map((p) => p.article).sort()).toEqual(expectedMissing);
    expect(flagged.every((p) => p.cost_price === 0 && p.cost_price_set === false)).toBe(true);

    // The seller fills one: it leaves the filter, the report is stale, a rebuild counts one less.
    expect(bodyOf(await putPrice(u.token, missing[0]!.article, { cost_price: 10 }))).toMatchObject({
      cost_price: 10,
      cost_price_set: true,
      cost_prices: [{ valid_from: null, cost_price: 10 }],
    });
    expect((await listMissing(u.token)).some((p) => p.article === missing[0]!.article)).toBe(false);
    expect((await getReportOk(u.token, report.id)).stale).toBe(true);
    const rebuilt = await rebuild(u.token, report.id);
    expect(warning(rebuilt, 'missing_cost_price')?.details).toMatchObject({ articles: missing.length - 1 });
    expect(rebuilt.items.find((i) => i.article === missing[0]!.article)?.computed.cost_price).toBe(10);
  });
});

describe('allocation of costs without an article', () => {
  it('user and seller settings through the API: stale, rebuild, Σ = 0 and totals unchanged to the kopeck', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 1_500, layout: '2026', seed: 32 });
    const unassigned = g.expected.articles.find((a) => a.article === '')!;
    expect(unassigned.aggregates.storage).toBeGreaterThan(0);
    const report = await uploadOk(u.token, g);

    // Default: by realization.
    expect(report.allocation).toMatchObject({
      method: 'realization',
      spread: {
        storage: unassigned.aggregates.storage / 100,
        acceptance: unassigned.aggregates.acceptance / 100,
        deductions: unassigned.aggregates.deductions / 100,
        penalties: unassigned.aggregates.penalties / 100,
        ads: unassigned.aggregates.ads / 100,
      },
    });
    const first = allocationSums(report);
    expect(first.sum).toBe(0);
    const none = report.items.find((i) => i.article === '')!;
    expect(kop(none.computed.allocated_expenses)).toBe(-kop(report.allocation!.total));
    expect(kop(report.totals.allocated_expenses)).toBe(0);

    // Per user: quantity.
    const me = await patchMe(u.token, { allocation: 'quantity' });
    expect(me.statusCode).toBe(200);
    expect(bodyOf<{ user: { allocation: string } }>(me).user.allocation).toBe('quantity');
    expect((await getReportOk(u.token, report.id)).stale).toBe(true);
    const byQty = await rebuild(u.token, report.id);
    expect(byQty.allocation?.method).toBe('quantity');
    expect(allocationSums(byQty).sum).toBe(0);
    expect(allocationSums(byQty).totals).toEqual(first.totals);
    // Each article's profit includes its share: computed profit + share is the same under both methods.
    const before = new Map(report.items.map((i) => [i.article, i]));
    for (const it of byQty.items) {
      const b = before.get(it.article)!;
      expect(kop(it.computed.profit) + kop(it.computed.allocated_expenses)).toBe(
        kop(b.computed.profit) + kop(b.computed.allocated_expenses),
      );
      if (it.article !== '' && (it.computed.net_qty ?? 0) <= 0) expect(it.computed.allocated_expenses).toBe(0);
    }
    expect((await getReportOk(u.token, report.id)).stale).toBe(false);

    // Per seller: none wins over the user's quantity.
    const seller = (await listSellers(u.id))[0]!;
    const s = await patchSeller(u.token, seller.id, { allocation: 'none' });
    expect(s.statusCode).toBe(200);
    expect(bodyOf(s)).toMatchObject({ allocation: 'none' });
    expect((await getReportOk(u.token, report.id)).stale).toBe(true);
    const byNone = await rebuild(u.token, report.id);
    expect(byNone.allocation).toMatchObject({ method: 'none', total: 0 });
    expect(byNone.items.every((i) => i.computed.allocated_expenses === 0)).toBe(true);
    expect(allocationSums(byNone).totals).toEqual(first.totals);

    // null: the user's method applies again.
    expect(bodyOf(await patchSeller(u.token, seller.id, { allocation: null }))).toMatchObject({ allocation: null });
    expect((await getReportOk(u.token, report.id)).stale).toBe(true);

    for (const bad of [{ allocation: 'equal' }, { allocation: 1 }]) {
      const r = await patchMe(u.token, bad);
      expect(r.statusCode).toBe(400);
      expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('validation_error');
    }
  });
});

describe('taxes and cost prices by date', () => {
  it('each report takes the tax period in force on its dates; a 2022 report gets the 2022 rules', async () => {
    const u = await newUser();
    const periods = [
      { valid_from: null, tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 },
      { valid_from: '2025-01-01', tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 },
      { valid_from: '2026-01-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
    ];
    const r = await patchMe(u.token, { tax_periods: periods });
    expect(r.statusCode).toBe(200);
    expect(bodyOf<{ user: { tax_periods: unknown; tax: unknown } }>(r).user).toMatchObject({
      tax_periods: periods,
      tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
    });

    const y2022 = await uploadOk(u.token, {
      filename: 'wb-detail-2022-49col.xlsx',
      file: readFileSync(join(__dirname, '../../fixtures/wb-detail-2022-49col.xlsx')),
    });
    expect(y2022.period_from?.startsWith('2022')).toBe(true);
    expect(y2022.tax_profile).toEqual({ tax_system: 'usn_income', usn_rate: 6, vat_rate: 0 });
    expect(kop(y2022.totals.vat)).toBe(0);
    const y2025 = await uploadOk(u.token, makeReport({ rows: 200, layout: '2025', seed: 33 }));
    expect(y2025.tax_profile).toEqual({ tax_system: 'usn_income_expenses', usn_rate: 15, vat_rate: 0 });
    const y2026 = await uploadOk(u.token, makeReport({ rows: 200, layout: '2026', seed: 34 }));
    expect(y2026.tax_profile).toEqual({ tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 });
    expect(kop(y2026.totals.vat)).toBeGreaterThan(0);
    for (const rep of [y2022, y2025, y2026]) {
      expect(rep.stale).toBe(false);
      expect(warning(rep, 'vat_rate_adjusted')).toBeUndefined();
    }

    // A plain profile (as before dates) applies from the beginning: VAT 5 % did not exist in 2022, so
    // the 2022 report, rebuilt, applies 0 % and says so.
    expect((await patchMe(u.token, { tax: { tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 } })).statusCode).toBe(
      200,
    );
    expect((await getReportOk(u.token, y2022.id)).stale).toBe(false);
    expect((await getReportOk(u.token, y2025.id)).stale).toBe(true);
    const rebuilt2025 = await rebuild(u.token, y2025.id);
    expect(rebuilt2025.tax_profile).toEqual({ tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 });
    const rebuilt2022 = await rebuild(u.token, y2022.id);
    expect(rebuilt2022.tax_profile.vat_rate).toBe(0);
    expect(warning(rebuilt2022, 'vat_rate_adjusted')?.details).toMatchObject({ configured: 5, applied: 0 });

    // Saving a period whose rate did not exist on its first day: 422 with a stable code, nothing stored.
    for (const bad of [
      { valid_from: '2024-06-01', tax_system: 'usn_income', usn_rate: 6, vat_rate: 5 },
      { valid_from: '2026-02-01', tax_system: 'none', usn_rate: 0, vat_rate: 20 },
      { valid_from: '2025-06-01', tax_system: 'none', usn_rate: 0, vat_rate: 22 },
    ]) {
      const refused = await patchMe(u.token, { tax_periods: [periods[0], bad] });
      expect(refused.statusCode).toBe(422);
      expect(bodyOf<{ error: { code: string; details: { periods: unknown[] } } }>(refused).error).toMatchObject({
        code: 'vat_rate_not_in_force',
        details: { periods: [{ valid_from: bad.valid_from, vat_rate: bad.vat_rate }] },
      });
    }
    const seller = (await listSellers(u.id))[0]!;
    const sellerRefused = await patchSeller(u.token, seller.id, {
      tax_periods: [{ valid_from: '2024-12-31', tax_system: 'usn_income', usn_rate: 6, vat_rate: 7 }],
    });
    expect(sellerRefused.statusCode).toBe(422);
    expect(
      bodyOf<{ user: { tax_periods: unknown } }>(await patchMe(u.token, { allocation: 'realization' })).user,
    ).toMatchObject({ tax_periods: [{ valid_from: null, vat_rate: 5 }] });
    // A seller's dated profile wins over the user's.
    const sp = await patchSeller(u.token, seller.id, {
      tax_periods: [
        { valid_from: null, tax_system: 'none', usn_rate: 0, vat_rate: 0 },
        { valid_from: '2026-01-01', tax_system: 'usn_income', usn_rate: 4, vat_rate: 22 },
      ],
    });
    expect(sp.statusCode).toBe(200);
    expect(bodyOf(sp)).toMatchObject({ tax: { tax_system: 'usn_income', usn_rate: 4, vat_rate: 22 } });
  });

  it('cost prices by date: a change today keeps last periods’ reports; a dated change and a rebuild apply it; the import reads a date column', async () => {
    const u = await newUser();
    const g = makeReport({ rows: 300, layout: '2026', seed: 35 });
    const [a, b] = g.expected.articles.filter(
      (x) => x.article !== '' && x.aggregates.sales_qty > x.aggregates.returns_qty,
    );
    // First prices: from the beginning.
    await putPrice(u.token, a!.article, { cost_price: 100 });
    await putPrice(u.token, b!.article, { cost_price: 40 });
    const report = await uploadOk(u.token, g);
    const item = (rep: ApiReport, art: string) => rep.items.find((i) => i.article === art)!;
    expect(item(report, a!.article).computed.cost_price).toBe(100);

    // A change without a date applies from today: the February 2026 report keeps 100, even rebuilt.
    const changed = bodyOf<{ cost_price: number; cost_prices: unknown }>(
      await putPrice(u.token, a!.article, { cost_price: 150 }),
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(changed).toMatchObject({
      cost_price: 150,
      cost_prices: [
        { valid_from: null, cost_price: 100 },
        { valid_from: today, cost_price: 150 },
      ],
    });
    expect((await getReportOk(u.token, report.id)).stale).toBe(false);
    expect(item(await rebuild(u.token, report.id), a!.article).computed.cost_price).toBe(100);

    // The seller dates the change into the report's period: stale, and a rebuild takes it.
    expect((await putPrice(u.token, a!.article, { cost_price: 130, valid_from: '2026-01-01' })).statusCode).toBe(200);
    expect((await getReportOk(u.token, report.id)).stale).toBe(true);
    const rebuilt = await rebuild(u.token, report.id);
    expect(item(rebuilt, a!.article).computed.cost_price).toBe(130);
    expect(kop(item(rebuilt, a!.article).computed.cost_total)).toBe(
      13_000 * (a!.aggregates.sales_qty - a!.aggregates.returns_qty),
    );
    expect((await putPrice(u.token, a!.article, { cost_price: 1, valid_from: '2026-02-30' })).statusCode).toBe(400);

    // Import with a date column: b gets 55 from 2026-02-01 (inside the report's period's middle).
    const csv = `Артикул;Себестоимость;Действует с\n${b!.article};55;01.02.2026\n${b!.article};60;01.03.2027\n`;
    const { body, contentType } = multipartBody({ filename: 'prices.csv', content: Buffer.from(csv, 'utf8') });
    const imp = await importProductsHandler(
      apiEvent({
        method: 'POST',
        path: '/api/products/import',
        token: u.token,
        body,
        headers: { 'content-type': contentType },
      }),
    );
    expect(imp.statusCode).toBe(200);
    expect((await getProducts(u.id, [b!.article])).get(b!.article)?.cost_prices).toEqual([
      { valid_from: null, cost_price: 4_000 },
      { valid_from: '2026-02-01', cost_price: 5_500 },
      { valid_from: '2027-03-01', cost_price: 6_000 },
    ]);
    expect(item(await rebuild(u.token, report.id), b!.article).computed.cost_price).toBe(55);
  });
});

describe('the catalog under concurrent uploads', () => {
  it('new articles are created with conditional writes in any count: a price set meanwhile is never replaced by 0', async () => {
    const u: TestUser = await newUser();
    const many = Array.from({ length: 450 }, (_, i) => `race-${i}`);
    const priced = many.filter((_, i) => i % 9 === 0);
    await Promise.all([
      ensureProducts(u.id, many),
      ensureProducts(u.id, [...many].reverse()),
      ensureProducts(u.id, many.slice(100, 400)),
      ...priced.map((a, i) => putProduct(u.id, a, 1_000 + i)),
    ]);
    const products = await getProducts(u.id, many);
    expect(products.size).toBe(many.length);
    priced.forEach((a, i) => {
      expect(products.get(a)).toMatchObject({ cost_price: 1_000 + i, cost_price_set: true });
    });
    expect([...products.values()].filter((p) => !p.cost_price_set)).toHaveLength(many.length - priced.length);
  });

  it('two concurrent uploads sharing 200+ new articles while the seller prices some: every price survives', async () => {
    const u = await newUser(1_000_000);
    const g1 = makeReport({ rows: 3_000, layout: '2026', seed: 36, articles: 260 });
    const g2 = makeReport({ rows: 3_000, layout: '2026', seed: 36, articles: 260, format: 'zip' });
    const articles = g1.expected.articles.map((a) => a.article).filter((a) => a !== '');
    expect(articles.length).toBeGreaterThan(200);
    const priced = articles.filter((_, i) => i % 7 === 0);
    // The same week twice on purpose (a zip and its xlsx): the second is a duplicate the seller allows.
    const [r1, r2] = await Promise.all([
      uploadOk(u.token, g1, { allow_duplicate: 'true' }),
      uploadOk(u.token, g2, { allow_duplicate: 'true' }),
      ...priced.map((a, i) => putProduct(u.id, a, 500 + i)),
    ]);
    expect(r1.id).not.toBe(r2.id);
    const products = await getProducts(u.id, articles);
    expect(products.size).toBe(articles.length);
    priced.forEach((a, i) => expect(products.get(a)?.cost_price).toBe(500 + i));
  });
});
