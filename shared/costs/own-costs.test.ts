import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../deps';
import { AppError } from '../errors';
import type { OwnCostLine } from '../engine/own-costs';
import type { OwnCostBook } from '../store/own-costs.repo';
import { writeXlsx } from '../../scripts/fixtures/xlsx-writer';
import {
  deleteOwnCost,
  importOwnCosts,
  listOwnCosts,
  MAX_ATTEMPTS,
  MAX_OWN_COST_LINES,
  putOwnCost,
  withAmount,
  type OwnCostDeps,
} from './own-costs';
import { parseOwnCostAmount, readOwnCostFile, rowsToOwnCosts } from './own-costs-file';

/** An in-memory store of one user's book, conditional on the revision like the real one. */
function fakeDeps(initial: OwnCostLine[] = [], known: string[] = ['A-1', 'B-2']) {
  let book: OwnCostBook = { lines: initial, rev: initial.length > 0 ? 1 : 0, updated_at: null };
  const deps = {
    store: {
      getOwnCosts: vi.fn(async () => structuredClone(book)),
      saveOwnCosts: vi.fn(async (_user: string, lines: readonly OwnCostLine[], rev: number, now: string) => {
        if (rev !== book.rev) return false;
        book = { lines: structuredClone([...lines]), rev: rev + 1, updated_at: now };
        return true;
      }),
    },
    catalog: {
      knownArticles: vi.fn(
        async (_u: string, articles: readonly string[]) => new Set(articles.filter((a) => known.includes(a))),
      ),
    },
    clock: manualClock('2026-04-10T09:00:00Z'),
  } satisfies OwnCostDeps;
  return { deps, book: () => book };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
  return 'resolved';
};

describe('own cost use cases', () => {
  it('a new line applies from the beginning, a change from today, a dated one from its date', async () => {
    const { deps, book } = fakeDeps();
    await putOwnCost(deps, 'U', { article: null, name: ' Упаковка ', amount: 1_000 });
    await putOwnCost(deps, 'U', { article: null, name: 'Упаковка', amount: 1_250 });
    await putOwnCost(deps, 'U', { article: null, name: 'Упаковка', amount: 900, valid_from: '2026-01-01' });
    expect(book().lines).toEqual([
      {
        article: null,
        name: 'Упаковка',
        amounts: [
          { valid_from: null, amount: 1_000 },
          { valid_from: '2026-01-01', amount: 900 },
          { valid_from: '2026-04-10', amount: 1_250 },
        ],
      },
    ]);
    expect(withAmount([], 5, undefined, '2026-04-10')).toEqual([{ valid_from: null, amount: 5 }]);
  });

  it('lists the defaults first, then by article; an article line is its own line', async () => {
    const { deps } = fakeDeps();
    await putOwnCost(deps, 'U', { article: 'B-2', name: 'Упаковка', amount: 4_000 });
    await putOwnCost(deps, 'U', { article: null, name: 'Фулфилмент', amount: 3_000 });
    await putOwnCost(deps, 'U', { article: 'A-1', name: 'Упаковка', amount: 2_000 });
    const list = await listOwnCosts(deps, 'U');
    expect(list.lines.map((l) => [l.article, l.name])).toEqual([
      [null, 'Фулфилмент'],
      ['A-1', 'Упаковка'],
      ['B-2', 'Упаковка'],
    ]);
    expect(list.rev).toBe(3);
  });

  it('refuses bad input before anything is written', async () => {
    const { deps } = fakeDeps();
    expect(await codeOf(putOwnCost(deps, 'U', { article: null, name: '  ', amount: 1 }))).toBe('validation_error');
    expect(await codeOf(putOwnCost(deps, 'U', { article: null, name: 'x', amount: -1 }))).toBe('validation_error');
    expect(await codeOf(putOwnCost(deps, 'U', { article: '', name: 'x', amount: 1 }))).toBe('validation_error');
    expect(await codeOf(putOwnCost(deps, 'U', { article: null, name: 'x', amount: 1, valid_from: '2026-02-30' }))).toBe(
      'validation_error',
    );
    expect(deps.store.saveOwnCosts).not.toHaveBeenCalled();
  });

  it('a write that meets another one reads again; one that always meets one is own_costs_busy', async () => {
    const { deps } = fakeDeps();
    deps.store.saveOwnCosts.mockResolvedValueOnce(false);
    await putOwnCost(deps, 'U', { article: null, name: 'Упаковка', amount: 1 });
    expect(deps.store.getOwnCosts).toHaveBeenCalledTimes(2);
    deps.store.saveOwnCosts.mockResolvedValue(false);
    expect(await codeOf(putOwnCost(deps, 'U', { article: null, name: 'Упаковка', amount: 2 }))).toBe('own_costs_busy');
    expect(deps.store.getOwnCosts).toHaveBeenCalledTimes(2 + MAX_ATTEMPTS);
  });

  it('deletes a line, or one dated amount; a missing one is own_cost_not_found', async () => {
    const { deps, book } = fakeDeps([
      {
        article: 'A-1',
        name: 'Упаковка',
        amounts: [
          { valid_from: null, amount: 1 },
          { valid_from: '2026-03-01', amount: 2 },
        ],
      },
      { article: null, name: 'Упаковка', amounts: [{ valid_from: null, amount: 3 }] },
    ]);
    await deleteOwnCost(deps, 'U', { article: 'A-1', name: 'Упаковка', valid_from: '2026-03-01' });
    expect(book().lines.find((l) => l.article === 'A-1')!.amounts).toEqual([{ valid_from: null, amount: 1 }]);
    await deleteOwnCost(deps, 'U', { article: 'A-1', name: 'Упаковка', valid_from: null });
    expect(book().lines).toEqual([{ article: null, name: 'Упаковка', amounts: [{ valid_from: null, amount: 3 }] }]);
    expect(await codeOf(deleteOwnCost(deps, 'U', { article: 'A-1', name: 'Упаковка' }))).toBe('own_cost_not_found');
    expect(await codeOf(deleteOwnCost(deps, 'U', { article: null, name: 'Упаковка', valid_from: '2020-01-01' }))).toBe(
      'own_cost_not_found',
    );
    await deleteOwnCost(deps, 'U', { article: null, name: 'Упаковка' });
    expect(book().lines).toEqual([]);
  });

  it('refuses more lines than one record keeps', async () => {
    const lines = Array.from({ length: MAX_OWN_COST_LINES }, (_, i) => ({
      article: `A-${i}`,
      name: 'Упаковка',
      amounts: [{ valid_from: null, amount: 1 }],
    }));
    const { deps } = fakeDeps(lines);
    expect(await codeOf(putOwnCost(deps, 'U', { article: null, name: 'Ещё', amount: 1 }))).toBe('too_many_own_costs');
  });
});

describe('own cost import', () => {
  const rows = (text: string) => rowsToOwnCosts(text.split('\n').map((l) => l.split(';')));

  it('applies the whole file: defaults (empty article) and article lines, dated or not', async () => {
    const { deps, book } = fakeDeps([
      { article: null, name: 'Упаковка', amounts: [{ valid_from: null, amount: 1_000 }] },
    ]);
    const file = rows(
      'Артикул;Статья;Сумма за шт;Действует с\n;Упаковка;12,50;01.03.2026\nA-1;Упаковка;40;\n;Фулфилмент;30\nA-1;Упаковка;45;2026-04-01',
    );
    const out = await importOwnCosts(deps, 'U', file);
    expect(out).toEqual({ applied: true, created: 2, updated: 1, unknown: { count: 0, articles: [] }, errors: [] });
    expect(book().lines).toEqual([
      {
        article: null,
        name: 'Упаковка',
        amounts: [
          { valid_from: null, amount: 1_000 },
          { valid_from: '2026-03-01', amount: 1_250 },
        ],
      },
      { article: null, name: 'Фулфилмент', amounts: [{ valid_from: null, amount: 3_000 }] },
      {
        article: 'A-1',
        name: 'Упаковка',
        amounts: [
          { valid_from: null, amount: 4_000 },
          { valid_from: '2026-04-01', amount: 4_500 },
        ],
      },
    ]);
  });

  it('writes nothing when a row is bad or an article is unknown; says which, in Russian', async () => {
    const { deps } = fakeDeps();
    const bad = rows(
      'Артикул;Статья;Сумма\nA-1;Упаковка;12,345\nB-2;;5\nA-1;Маркировка;-1\nB-2;Упаковка;дорого\nA-1;Упаковка;3',
    );
    expect(bad.errors).toEqual([
      { row: 2, message: 'Сумма «12,345»: больше 2 знаков после запятой' },
      { row: 3, message: 'Статья расхода не указана' },
      { row: 4, message: 'Сумма не может быть отрицательной' },
      { row: 5, message: 'Сумма «дорого» не число' },
    ]);
    const out = await importOwnCosts(deps, 'U', bad);
    expect(out).toMatchObject({ applied: false, created: 0, updated: 0 });
    const unknown = await importOwnCosts(
      deps,
      'U',
      rows('Артикул;Статья;Сумма\nA-1;Упаковка;3\nZZZ;Упаковка;4\nYYY;Упаковка;5'),
    );
    expect(unknown).toEqual({
      applied: false,
      created: 0,
      updated: 0,
      unknown: { count: 2, articles: ['ZZZ', 'YYY'] },
      errors: [],
    });
    expect(deps.store.saveOwnCosts).not.toHaveBeenCalled();
    const allowed = await importOwnCosts(deps, 'U', rows('Артикул;Статья;Сумма\nZZZ;Упаковка;4'), {
      allowUnknown: true,
    });
    expect(allowed).toMatchObject({ applied: true, created: 1, unknown: { count: 1 } });
  });

  it('a file without the name or amount column is own_cost_columns_missing', () => {
    expect(() => rows('Артикул;Цена\nA-1;5')).toThrow(expect.objectContaining({ code: 'own_cost_columns_missing' }));
    // without an article column every row is a default line
    expect(rows('Статья;Стоимость\nУпаковка;5').rows).toEqual([
      { row: 2, article: null, name: 'Упаковка', amount: 500 },
    ]);
  });

  it('reads amounts as an accountant writes them', () => {
    expect(parseOwnCostAmount('1 234,56 ₽')).toBe(123_456);
    expect(parseOwnCostAmount('12.5')).toBe(1_250);
    expect(parseOwnCostAmount('')).toBe('Сумма не указана');
  });

  it('reads an .xlsx and a Windows-1251 csv', async () => {
    const xlsx = writeXlsx(
      [
        ['Свои расходы на единицу'],
        ['Артикул', 'Статья', 'Сумма за шт', 'Действует с'],
        ['', 'Упаковка', { n: '12.5' }, { n: '46082' }],
        ['A-1', 'Маркировка', '3,20', ''],
      ],
      { style: 'excel' },
    );
    expect((await readOwnCostFile(xlsx)).rows).toEqual([
      { row: 3, article: null, name: 'Упаковка', amount: 1_250, validFrom: '2026-03-01' },
      { row: 4, article: 'A-1', name: 'Маркировка', amount: 320 },
    ]);
    const csv = Buffer.from(
      // «Статья;Сумма\nУпаковка;7» in Windows-1251
      [
        0xd1, 0xf2, 0xe0, 0xf2, 0xfc, 0xff, 0x3b, 0xd1, 0xf3, 0xec, 0xec, 0xe0, 0x0a, 0xd3, 0xef, 0xe0, 0xea, 0xee,
        0xe2, 0xea, 0xe0, 0x3b, 0x37,
      ],
    );
    expect((await readOwnCostFile(csv)).rows).toEqual([{ row: 2, article: null, name: 'Упаковка', amount: 700 }]);
  });
});
