/**
 * A seller's purchases of goods (docs/API.md, «Cash flow and purchases»): list, create, replace, delete,
 * import. A purchase is money paid on a day (2019–2100), optionally for a catalog article and a whole
 * quantity, with a comment; it belongs to a seller or to none. Amounts arrive in roubles and are kept in
 * kopecks. Takes its dependencies first (PurchaseDeps); no AWS, no HTTP.
 */
import { notFound, unprocessable } from '../errors';
import type { Clock, IdSource } from '../deps';
import { isWholeKopecks } from '../engine/money';
import { isIsoDate } from '../engine/periods';
import { kopecksToRoubles, roublesToKopecks } from '../engine/fields';
import { MAX_PURCHASES, type Purchase, type PurchaseBody } from '../contract/cashflow-shapes';
import type { PurchaseRecord } from '../store/purchases.repo';

export interface PurchaseStore {
  listPurchases(userId: string): Promise<PurchaseRecord[]>;
  putPurchase(userId: string, p: PurchaseRecord, mustExist?: boolean): Promise<boolean>;
  putPurchases(userId: string, purchases: readonly PurchaseRecord[]): Promise<void>;
  deletePurchase(userId: string, id: string): Promise<boolean>;
}

/** The catalog's articles among `articles` (those the user has). */
export interface PurchaseCatalog {
  getProducts(userId: string, articles: readonly string[]): Promise<Map<string, unknown>>;
}

export interface PurchaseDeps {
  purchases: PurchaseStore;
  catalog: PurchaseCatalog;
  sellers: { getSeller(userId: string, sellerId: string): Promise<unknown> };
  clock: Clock;
  ids: IdSource;
}

/** Largest amount of one purchase, roubles. */
export const MAX_PURCHASE_ROUBLES = 10_000_000_000;
/** Largest quantity of one purchase. */
const MAX_QUANTITY = 100_000_000;
const FIRST_YEAR = 2019;
const LAST_YEAR = 2100;

type Fields = Pick<PurchaseRecord, 'date' | 'amount' | 'article' | 'quantity' | 'comment'>;

/** The fields of a purchase input, checked (a Russian sentence naming the field), or the error. */
export function purchaseFields(body: PurchaseBody): Fields | { field: string; message: string } {
  const year = Number(body.date.slice(0, 4));
  if (!isIsoDate(body.date) || year < FIRST_YEAR || year > LAST_YEAR)
    return { field: 'date', message: `Дата закупки — ГГГГ-ММ-ДД, с ${FIRST_YEAR} по ${LAST_YEAR} год` };
  if (!(body.amount > 0) || body.amount > MAX_PURCHASE_ROUBLES || !isWholeKopecks(body.amount))
    return {
      field: 'amount',
      message: 'Сумма закупки — больше нуля, не больше 10 млрд ₽, не больше двух знаков после запятой',
    };
  const q = body.quantity ?? null;
  if (q !== null && (!Number.isInteger(q) || q <= 0 || q > MAX_QUANTITY))
    return { field: 'quantity', message: 'Количество — целое число больше нуля' };
  const article = body.article?.trim() || null;
  const comment = body.comment?.trim() || null;
  return { date: body.date, amount: roublesToKopecks(body.amount), article, quantity: q, comment };
}

const isError = (f: Fields | { field: string; message: string }): f is { field: string; message: string } =>
  'field' in f;

const invalid = (field: string, message: string) => unprocessable('invalid_purchase', message, { field });

export function presentPurchase(p: PurchaseRecord): Purchase {
  return { ...p, amount: kopecksToRoubles(p.amount) };
}

async function checkSeller(deps: PurchaseDeps, userId: string, sellerId: string | null | undefined) {
  if (sellerId && !(await deps.sellers.getSeller(userId, sellerId)))
    throw notFound('Seller not found', 'seller_not_found');
}

/** The checked fields, the article looked up in the catalog (422 invalid_purchase naming the field). */
async function checked(deps: PurchaseDeps, userId: string, body: PurchaseBody): Promise<Fields> {
  const f = purchaseFields(body);
  if (isError(f)) throw invalid(f.field, f.message);
  if (f.article !== null && !(await deps.catalog.getProducts(userId, [f.article])).has(f.article))
    throw invalid('article', `Артикула «${f.article.slice(0, 60)}» нет в каталоге`);
  return f;
}

const byDate = (a: PurchaseRecord, b: PurchaseRecord) =>
  a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The user's purchases (only one seller's with `sellerId`), oldest date first. */
export async function listUserPurchases(deps: PurchaseDeps, userId: string, sellerId?: string): Promise<Purchase[]> {
  const all = await deps.purchases.listPurchases(userId);
  return all
    .filter((p) => sellerId === undefined || p.seller_id === sellerId)
    .sort(byDate)
    .map(presentPurchase);
}

const tooMany = (details: Record<string, unknown> = {}) =>
  unprocessable('too_many_purchases', `Не больше ${MAX_PURCHASES} закупок`, { max: MAX_PURCHASES, ...details });

export async function createPurchase(deps: PurchaseDeps, userId: string, body: PurchaseBody): Promise<Purchase> {
  const fields = await checked(deps, userId, body);
  await checkSeller(deps, userId, body.seller_id);
  if ((await deps.purchases.listPurchases(userId)).length >= MAX_PURCHASES) throw tooMany();
  const now = deps.clock.now().toISOString();
  const record: PurchaseRecord = {
    id: deps.ids.newId(),
    seller_id: body.seller_id ?? null,
    ...fields,
    created_at: now,
    updated_at: now,
  };
  await deps.purchases.putPurchase(userId, record);
  return presentPurchase(record);
}

export async function replacePurchase(
  deps: PurchaseDeps,
  userId: string,
  id: string,
  body: PurchaseBody,
): Promise<Purchase> {
  const fields = await checked(deps, userId, body);
  await checkSeller(deps, userId, body.seller_id);
  const old = (await deps.purchases.listPurchases(userId)).find((p) => p.id === id);
  if (!old) throw notFound('Purchase not found', 'purchase_not_found');
  const record: PurchaseRecord = {
    ...old,
    seller_id: body.seller_id === undefined ? old.seller_id : body.seller_id,
    ...fields,
    updated_at: deps.clock.now().toISOString(),
  };
  if (!(await deps.purchases.putPurchase(userId, record, true)))
    throw notFound('Purchase not found', 'purchase_not_found');
  return presentPurchase(record);
}

export async function removePurchase(deps: PurchaseDeps, userId: string, id: string): Promise<void> {
  if (!(await deps.purchases.deletePurchase(userId, id))) throw notFound('Purchase not found', 'purchase_not_found');
}

/**
 * Adds the good rows of a file (purchases-file.ts) as purchases of `sellerId`; rows that fail the checks
 * (an article not in the catalog included) are listed with their row numbers. The total may not pass
 * MAX_PURCHASES.
 */
export async function importPurchases(
  deps: PurchaseDeps,
  userId: string,
  file: { rows: Array<{ row: number; purchase: PurchaseBody }>; errors: Array<{ row: number; message: string }> },
  sellerId?: string,
): Promise<{ created: number; errors: Array<{ row: number; message: string }> }> {
  await checkSeller(deps, userId, sellerId);
  const errors = [...file.errors];
  const good: Array<{ row: number; fields: Fields }> = [];
  for (const { row, purchase } of file.rows) {
    const f = purchaseFields(purchase);
    if (isError(f)) errors.push({ row, message: f.message });
    else good.push({ row, fields: f });
  }
  const articles = [...new Set(good.flatMap((g) => (g.fields.article === null ? [] : [g.fields.article])))];
  const known = articles.length > 0 ? await deps.catalog.getProducts(userId, articles) : new Map<string, unknown>();
  const now = deps.clock.now().toISOString();
  const records: PurchaseRecord[] = [];
  for (const { row, fields } of good) {
    if (fields.article !== null && !known.has(fields.article)) {
      errors.push({ row, message: `Артикула «${fields.article.slice(0, 60)}» нет в каталоге` });
      continue;
    }
    records.push({ id: deps.ids.newId(), seller_id: sellerId ?? null, ...fields, created_at: now, updated_at: now });
  }
  const existing = await deps.purchases.listPurchases(userId);
  if (existing.length + records.length > MAX_PURCHASES)
    throw tooMany({ existing: existing.length, in_file: records.length });
  await deps.purchases.putPurchases(userId, records);
  return { created: records.length, errors: errors.sort((a, b) => a.row - b.row) };
}
