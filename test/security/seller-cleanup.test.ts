/**
 * An aborted and refunded upload removes the seller it created on demand when nothing else refers to
 * it (attack run, issue 12: the seller stayed behind). A seller with another report, or one the user
 * renamed, stays.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseFileMeta } from '../../shared/engine/read/filename';
import { useInProcessWorker } from '../../scripts/local/in-process-worker';
import { writeItems } from '../../shared/store/items.repo';
import { listSellers, updateSeller } from '../../shared/store/sellers.repo';
import { getUserById } from '../../shared/store/users.repo';
import { makeReport, newUser, uploadMultipart } from '../support/reports';

afterEach(() => {
  useInProcessWorker();
});

const sellerOf = (filename: string) => parseFileMeta(filename).seller_number as string;

const failAfterCharge = () => {
  // Every attempt of the worker fails after writing the items: the upload ends failed and refunded.
  useInProcessWorker({
    items: {
      async writeItems(...args: Parameters<typeof writeItems>) {
        await writeItems(...args);
        throw new Error('simulated failure after the charge');
      },
    },
  });
};

describe('seller created by an aborted upload', () => {
  it('is removed with the refund when nothing else refers to it', async () => {
    const u = await newUser(100_000, 'security');
    const g = makeReport({ rows: 150, seed: 1281 });
    failAfterCharge();
    const r = await uploadMultipart(u.token, g);
    expect(r.statusCode).toBe(500);
    expect((await getUserById(u.id))!.limits).toBe(100_000);
    expect(await listSellers(u.id)).toEqual([]);
  });

  it('stays when another report of that seller exists', async () => {
    const u = await newUser(100_000, 'security');
    const first = makeReport({ rows: 120, seed: 1282 });
    expect((await uploadMultipart(u.token, first)).statusCode).toBe(201);
    const [seller] = await listSellers(u.id);
    expect(seller!.number).toBe(sellerOf(first.filename));
    const second = makeReport({ rows: 130, seed: 1283 });
    failAfterCharge();
    const r = await uploadMultipart(u.token, {
      filename: second.filename.replace(`_${sellerOf(second.filename)}`, `_${sellerOf(first.filename)}`),
      file: second.file,
    });
    expect(r.statusCode).toBe(500);
    expect((await listSellers(u.id)).map((s) => s.id)).toEqual([seller!.id]);
  });

  it('stays when the user has renamed it (their data), even with no report left', async () => {
    const u = await newUser(100_000, 'security');
    const g = makeReport({ rows: 110, seed: 1284 });
    // The seller exists already, renamed by the user; the aborted upload links it and fails.
    const { ensureSellerByNumber } = await import('../../shared/store/sellers.repo');
    const s = await ensureSellerByNumber(u.id, sellerOf(g.filename));
    await updateSeller(u.id, s.id, { name: 'ИП Иванов' });
    failAfterCharge();
    expect((await uploadMultipart(u.token, g)).statusCode).toBe(500);
    expect((await listSellers(u.id)).map((x) => x.name)).toEqual(['ИП Иванов']);
  });
});
