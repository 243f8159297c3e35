/**
 * Fast unit tier: CatalogSync with a fake products store passed to it (the store's own rules are
 * tested against DynamoDB Local in test/integration/catalog.test.ts); the price rule (costPricesOn)
 * is the real one.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProductRecord } from '../../store/products.repo';
import { CatalogSync as RealCatalogSync, type CatalogProducts } from './catalog-sync';

const store = {
  getProducts: vi.fn<CatalogProducts['getProducts']>(),
  addProducts: vi.fn<CatalogProducts['addProducts']>(),
};
/** The sync under test, on the fake store. */
class CatalogSync extends RealCatalogSync {
  constructor(userId: string) {
    super(userId, store);
  }
}

const product = (article: string, cost_price: number): ProductRecord =>
  ({
    article,
    cost_price,
    cost_price_set: true,
    cost_prices: [{ valid_from: null, cost_price }],
  }) as unknown as ProductRecord;

/** The store: articles starting with "old" exist (price 100); the others are added when asked. */
function catalogWith(inFlight: { now: number; max: number }) {
  store.getProducts.mockImplementation(async (_user: string, batch: readonly string[]) => {
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    await new Promise((r) => setTimeout(r, 2));
    inFlight.now--;
    return new Map(batch.filter((a) => a.startsWith('old')).map((a) => [a, product(a, 10_000)]));
  });
  store.addProducts.mockImplementation(async (_user: string, articles: readonly string[]) => ({
    created: [...articles],
    at: 'T1',
  }));
}

beforeEach(() => {
  store.getProducts.mockReset();
  store.addProducts.mockReset();
});

describe('CatalogSync', () => {
  it('looks articles up in batches of 100 while they arrive, at most 8 at once, and prices the known ones', async () => {
    const inFlight = { now: 0, max: 0 };
    catalogWith(inFlight);
    const sync = new CatalogSync('u1');
    const articles = Array.from({ length: 2_050 }, (_, i) => (i % 2 ? `old-${i}` : `new-${i}`));
    for (const a of articles) sync.add(a);
    sync.add(articles[0]!); // a repeat is not looked up twice
    sync.add(''); // nor the report's rows without an article
    // Twenty full batches left before the end of the read; the last 50 wait for done().
    expect(store.getProducts.mock.calls.length).toBeGreaterThan(0);
    const { prices, known } = await sync.done(articles, '2026-05-20');
    const batches = store.getProducts.mock.calls.map((c) => c[1] as string[]);
    expect(batches.map((b) => b.length)).toEqual([...Array<number>(20).fill(100), 50]);
    expect(new Set(batches.flat()).size).toBe(2_050);
    expect(inFlight.max).toBeLessThanOrEqual(8);
    expect(known.size).toBe(1_025);
    expect(prices['old-1']).toBe(10_000);
    expect(prices['new-0']).toBeUndefined();
    // Looking up writes nothing: the report never waits for the catalog.
    expect(store.addProducts).not.toHaveBeenCalled();
  });

  it('done() adds the articles the hook missed and rejects with the store’s error', async () => {
    store.getProducts.mockRejectedValueOnce(new Error('store down'));
    const sync = new CatalogSync('u1');
    await expect(sync.done(['a', 'b'], null)).rejects.toThrow('store down');
    expect(store.getProducts).toHaveBeenCalledWith('u1', ['a', 'b']);
  });

  it('write() adds only the articles the look-ups did not find; complete() looks up again first', async () => {
    catalogWith({ now: 0, max: 0 });
    const sync = new CatalogSync('u1');
    for (const a of ['old-1', 'new-1', 'new-2']) sync.add(a);
    await sync.done([], null);
    expect(sync.missing()).toEqual(['new-1', 'new-2']);
    expect(await sync.write()).toBe(2);
    expect(store.addProducts).toHaveBeenCalledWith('u1', ['new-1', 'new-2']);
    const later = new CatalogSync('u1');
    expect(await later.complete(['old-2', 'new-3'])).toBe(1);
    expect(store.getProducts).toHaveBeenLastCalledWith('u1', ['old-2', 'new-3']);
    expect(store.addProducts).toHaveBeenLastCalledWith('u1', ['new-3']);
  });

  it('write() rejects with the store’s error (the follow-up is retried)', async () => {
    catalogWith({ now: 0, max: 0 });
    store.addProducts.mockRejectedValueOnce(new Error('throttled'));
    const sync = new CatalogSync('u1');
    await sync.done(['new-1'], null);
    await expect(sync.write()).rejects.toThrow('throttled');
  });
});
