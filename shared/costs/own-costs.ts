/**
 * Own per-unit costs, the use cases (docs/API.md, Own per-unit costs; docs/METRICS.md, Own per-unit
 * costs): list, set one dated amount of a line, delete a line or one of its amounts, import a file.
 * Free of AWS and HTTP: the store, the catalog lookup and the clock come as `deps` (ports below; the
 * handlers wire the real ones, own-costs-deps.ts).
 *
 * A line is (article or null for the default, name). Every change reads the user's lines, changes them
 * and writes them back conditional on the revision read (retried; 409 `own_costs_busy` after
 * MAX_ATTEMPTS), so an import is applied whole or not at all and concurrent writers lose nothing.
 */
import { badRequest, conflict, notFound, unprocessable } from '../errors';
import { isIsoDate, sortPeriods } from '../engine/periods';
import type { OwnCostLine, OwnCostPeriod } from '../engine/own-costs';
import type { Clock } from '../deps';
import { MAX_ARTICLE_LENGTH, MAX_UNKNOWN_LISTED } from '../contract/shapes';
import type { OwnCostBook } from '../store/own-costs.repo';
import { MAX_OWN_COST_NAME_LENGTH, MAX_OWN_COST_ROUBLES, type OwnCostFile } from './own-costs-file';

export interface OwnCostDeps {
  store: {
    getOwnCosts(userId: string): Promise<OwnCostBook>;
    /** False when the lines changed since `rev` was read. */
    saveOwnCosts(userId: string, lines: readonly OwnCostLine[], rev: number, now: string): Promise<boolean>;
  };
  catalog: {
    /** Which of the articles the user's catalog holds. */
    knownArticles(userId: string, articles: readonly string[]): Promise<Set<string>>;
  };
  clock: Clock;
  /**
   * The lines changed (saved): the reports they cover are rebuilt without the seller pressing «Пересобрать»
   * (shared/reports/rebuild/rebuild-covered.ts); absent: nothing follows (the reports show as stale).
   */
  changed?: (userId: string, before: readonly OwnCostLine[], after: readonly OwnCostLine[]) => Promise<unknown>;
}

/** Lines a user may keep (one stored record; see own-costs.repo.ts). */
export const MAX_OWN_COST_LINES = 10_000;
/** Tries of a read-change-write before 409 `own_costs_busy`. */
export const MAX_ATTEMPTS = 8;

export interface OwnCostInput {
  /** null (or absent): the default line for every article. */
  article: string | null;
  name: string;
  /** Kopecks per unit. */
  amount: number;
  /** YYYY-MM-DD, or null = from the beginning; undefined: the first amount from the beginning, a change from today. */
  valid_from?: string | null;
}

const sameLine = (l: Pick<OwnCostLine, 'article' | 'name'>, article: string | null, name: string) =>
  l.article === article && l.name === name;

/** Lines in the order the page lists them: the defaults first, then by article, each by name. */
export function sortLines(lines: readonly OwnCostLine[]): OwnCostLine[] {
  const key = (l: OwnCostLine) => `${l.article === null ? '0' : `1${l.article}`}\u0000${l.name}`;
  return [...lines].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Where a new amount goes in a line's history — the rule of a cost price (products.repo.ts withPrice):
 * an explicit `validFrom` (a date, or null = from the beginning) replaces the amount of that date;
 * without one, a line's first amount applies from the beginning and a change from today.
 */
export function withAmount(
  amounts: readonly OwnCostPeriod[],
  amount: number,
  validFrom: string | null | undefined,
  today: string,
): OwnCostPeriod[] {
  const from = validFrom !== undefined ? validFrom : amounts.length === 0 ? null : today;
  return sortPeriods([...amounts.filter((p) => p.valid_from !== from), { valid_from: from, amount }]);
}

function normalizeInput(input: OwnCostInput): { article: string | null; name: string } {
  const article = input.article === null || input.article === undefined ? null : input.article.trim();
  const name = input.name.trim();
  if (article !== null && (article.length === 0 || article.length > MAX_ARTICLE_LENGTH))
    throw badRequest('validation_error', `article must have 1..${MAX_ARTICLE_LENGTH} characters, or be null`, {
      article: input.article,
    });
  if (name.length === 0 || name.length > MAX_OWN_COST_NAME_LENGTH)
    throw badRequest('validation_error', `name must have 1..${MAX_OWN_COST_NAME_LENGTH} characters`, {
      name: input.name,
    });
  if (!Number.isSafeInteger(input.amount) || input.amount < 0 || input.amount > MAX_OWN_COST_ROUBLES * 100)
    throw badRequest('validation_error', 'amount must be a non-negative amount of roubles', { amount: input.amount });
  if (input.valid_from !== undefined && input.valid_from !== null && !isIsoDate(input.valid_from))
    throw badRequest('validation_error', 'valid_from must be a date YYYY-MM-DD', { valid_from: input.valid_from });
  return { article, name };
}

/**
 * Read the lines, change them with `change` (which may throw; it returns the new lines and a result),
 * write them back conditional on the revision; again from the read when another write came first.
 */
async function update<T>(
  deps: OwnCostDeps,
  userId: string,
  change: (lines: OwnCostLine[]) => { lines: OwnCostLine[]; result: T } | { unchanged: T },
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const book = await deps.store.getOwnCosts(userId);
    const next = change(book.lines.map((l) => ({ ...l, amounts: [...l.amounts] })));
    if ('unchanged' in next) return next.unchanged;
    if (next.lines.length > MAX_OWN_COST_LINES)
      throw unprocessable('too_many_own_costs', `More than ${MAX_OWN_COST_LINES} own cost lines`, {
        lines: next.lines.length,
        max: MAX_OWN_COST_LINES,
      });
    const lines = sortLines(next.lines);
    if (await deps.store.saveOwnCosts(userId, lines, book.rev, deps.clock.now().toISOString())) {
      await deps.changed?.(userId, book.lines, lines);
      return next.result;
    }
  }
  throw conflict('own_costs_busy', 'The own costs are being changed by another request; try again');
}

const todayOf = (clock: Clock) => clock.now().toISOString().slice(0, 10);

/** Every line of the user, the defaults first. */
export async function listOwnCosts(deps: Pick<OwnCostDeps, 'store'>, userId: string): Promise<OwnCostBook> {
  const book = await deps.store.getOwnCosts(userId);
  return { ...book, lines: sortLines(book.lines) };
}

/** Sets one amount of a line (created when missing); answers the line. */
export async function putOwnCost(deps: OwnCostDeps, userId: string, input: OwnCostInput): Promise<OwnCostLine> {
  const { article, name } = normalizeInput(input);
  const today = todayOf(deps.clock);
  return update(deps, userId, (lines) => {
    const prior = lines.find((l) => sameLine(l, article, name));
    const line: OwnCostLine = {
      article,
      name,
      amounts: withAmount(prior?.amounts ?? [], input.amount, input.valid_from, today),
    };
    return { lines: [...lines.filter((l) => l !== prior), line], result: line };
  });
}

/**
 * Deletes a line, or with `validFrom` (a date, or null = the amount from the beginning) only that
 * amount of it (the last amount gone, the line goes). 404 `own_cost_not_found` when there is no such
 * line or amount.
 */
export async function deleteOwnCost(
  deps: OwnCostDeps,
  userId: string,
  input: { article: string | null; name: string; valid_from?: string | null },
): Promise<void> {
  const article = input.article === null ? null : input.article.trim();
  const name = input.name.trim();
  await update(deps, userId, (lines) => {
    const prior = lines.find((l) => sameLine(l, article, name));
    const missing = () => notFound('No such own cost line', 'own_cost_not_found');
    if (!prior) throw missing();
    const rest = lines.filter((l) => l !== prior);
    if (input.valid_from === undefined) return { lines: rest, result: undefined };
    const amounts = prior.amounts.filter((p) => p.valid_from !== input.valid_from);
    if (amounts.length === prior.amounts.length) throw missing();
    return { lines: amounts.length > 0 ? [...rest, { ...prior, amounts }] : rest, result: undefined };
  });
}

export interface OwnCostImportResult {
  /** True when the file was applied (whole); false when anything in it was wrong: nothing is written then. */
  applied: boolean;
  /** Lines added / lines given a new amount (0 when not applied). */
  created: number;
  updated: number;
  /** Articles of the file the catalog does not know. */
  unknown: { count: number; articles: string[] };
  errors: OwnCostFile['errors'];
}

/**
 * Applies a read file (own-costs-file.ts) — whole or not at all. Nothing is written when a row has an
 * error, or when a row names an article the catalog does not know and `allowUnknown` is not set (a
 * typo must not become a line of its own); the answer lists them. Rows apply in the file's order, each
 * as a PUT would.
 */
export async function importOwnCosts(
  deps: OwnCostDeps,
  userId: string,
  file: OwnCostFile,
  opts: { allowUnknown?: boolean } = {},
): Promise<OwnCostImportResult> {
  const articles = [...new Set(file.rows.map((r) => r.article).filter((a): a is string => a !== null))];
  const known = articles.length > 0 ? await deps.catalog.knownArticles(userId, articles) : new Set<string>();
  const unknownArticles = articles.filter((a) => !known.has(a));
  const unknown = { count: unknownArticles.length, articles: unknownArticles.slice(0, MAX_UNKNOWN_LISTED) };
  const refused = file.errors.length > 0 || (unknownArticles.length > 0 && !opts.allowUnknown);
  if (refused || file.rows.length === 0)
    return { applied: !refused && file.rows.length === 0, created: 0, updated: 0, unknown, errors: file.errors };
  const today = todayOf(deps.clock);
  return update(deps, userId, (lines) => {
    const byKey = new Map(lines.map((l) => [JSON.stringify([l.article, l.name]), l]));
    const created = new Set<string>();
    const updated = new Set<string>();
    for (const r of file.rows) {
      const key = JSON.stringify([r.article, r.name]);
      const prior = byKey.get(key);
      if (!prior) created.add(key);
      else if (!created.has(key)) updated.add(key);
      byKey.set(key, {
        article: r.article,
        name: r.name,
        amounts: withAmount(prior?.amounts ?? [], r.amount, r.validFrom, today),
      });
    }
    return {
      lines: [...byKey.values()],
      result: { applied: true, created: created.size, updated: updated.size, unknown, errors: [] },
    };
  });
}
