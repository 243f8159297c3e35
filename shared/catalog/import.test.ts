/**
 * The catalog import use case with a fake products store (the store's own behaviour is
 * test/integration/catalog.test.ts): the file's good rows reach the store, its bad rows come back as
 * errors, and the store's answer is passed on.
 */
import { describe, expect, it, vi } from 'vitest';
import { importCatalog, type CatalogImportDeps } from './import';

describe('importCatalog', () => {
  it("applies the good rows of the file in one store call and answers the store's counts with the row errors", async () => {
    const deps = {
      products: {
        importProducts: vi.fn<CatalogImportDeps['products']['importProducts']>(async () => ({
          created: 1,
          updated: 0,
          unknown: ['Y'],
        })),
      },
    } satisfies CatalogImportDeps;
    const file = Buffer.from('article,cost_price\nZ,3\nBAD,abc\nY,1.5\n');
    const r = await importCatalog(deps, 'u1', file, { createMissing: false });
    expect(deps.products.importProducts).toHaveBeenCalledOnce();
    const [userId, rows, opts] = deps.products.importProducts.mock.calls[0]!;
    expect(userId).toBe('u1');
    expect(rows.map((row) => [row.article, row.costPriceKopecks])).toEqual([
      ['Z', 300],
      ['Y', 150],
    ]);
    expect(opts).toEqual({ createMissing: false });
    expect(r).toMatchObject({ created: 1, updated: 0, unknown: ['Y'] });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.row).toBe(3);
  });

  it('a file without the columns is refused before the store is called', async () => {
    const deps = { products: { importProducts: vi.fn() } };
    await expect(importCatalog(deps, 'u1', Buffer.from('foo,bar\n1,2\n'))).rejects.toMatchObject({
      code: 'missing_columns',
    });
    expect(deps.products.importProducts).not.toHaveBeenCalled();
  });
});
