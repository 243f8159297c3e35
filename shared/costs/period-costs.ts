/**
 * A seller's period costs (docs/API.md, «P&L and period costs»): list, create, replace, delete, import.
 * A monthly cost runs from a month (to a month, or open); a one-off falls on a day. Each belongs to a
 * seller, or to none (then it counts in the P&L of all sellers only). Amounts arrive in roubles and are
 * kept in kopecks. Takes its dependencies first (PeriodCostDeps); no AWS, no HTTP.
 */
import { notFound, unprocessable } from '../errors';
import type { Clock, IdSource } from '../deps';
import { isWholeKopecks } from '../engine/money';
import { isIsoDate } from '../engine/periods';
import { isMonth } from '../engine/pnl';
import { kopecksToRoubles, roublesToKopecks } from '../engine/fields';
import { MAX_PERIOD_COSTS, type PeriodCost, type PeriodCostBody } from '../contract/pnl-shapes';
import type { PeriodCostRecord } from '../store/period-costs.repo';

export interface PeriodCostDeps {
  costs: {
    listPeriodCosts(userId: string): Promise<PeriodCostRecord[]>;
    putPeriodCost(userId: string, c: PeriodCostRecord, mustExist?: boolean): Promise<boolean>;
    putPeriodCosts(userId: string, costs: readonly PeriodCostRecord[]): Promise<void>;
    deletePeriodCost(userId: string, id: string): Promise<boolean>;
  };
  sellers: { getSeller(userId: string, sellerId: string): Promise<unknown> };
  clock: Clock;
  ids: IdSource;
}

/** Largest amount of one cost, roubles. */
export const MAX_PERIOD_COST_ROUBLES = 10_000_000_000;

const invalid = (message: string, details: Record<string, unknown> = {}) =>
  unprocessable('invalid_period_cost', message, details);

/** The stored fields of a cost input, checked (422 invalid_period_cost). */
export function costFields(
  body: PeriodCostBody,
): Pick<PeriodCostRecord, 'name' | 'category' | 'amount' | 'kind' | 'from_month' | 'to_month' | 'date'> {
  if (!(body.amount > 0) || body.amount > MAX_PERIOD_COST_ROUBLES || !isWholeKopecks(body.amount))
    throw invalid('Сумма расхода — больше нуля, не больше 10 млрд ₽, не больше двух знаков после запятой', {
      field: 'amount',
    });
  const base = { name: body.name.trim(), category: body.category, amount: roublesToKopecks(body.amount) };
  if (body.kind === 'one_off') {
    if (!body.date || !isIsoDate(body.date)) throw invalid('Разовому расходу нужна дата ГГГГ-ММ-ДД', { field: 'date' });
    return { ...base, kind: 'one_off', from_month: null, to_month: null, date: body.date };
  }
  if (!body.from_month || !isMonth(body.from_month))
    throw invalid('Ежемесячному расходу нужен месяц начала ГГГГ-ММ', { field: 'from_month' });
  const to = body.to_month ?? null;
  if (to !== null && (!isMonth(to) || to < body.from_month))
    throw invalid('Месяц окончания — не раньше месяца начала', { field: 'to_month' });
  return { ...base, kind: 'monthly', from_month: body.from_month, to_month: to, date: null };
}

export function presentPeriodCost(c: PeriodCostRecord): PeriodCost {
  return { ...c, amount: kopecksToRoubles(c.amount) };
}

async function checkSeller(deps: PeriodCostDeps, userId: string, sellerId: string | null | undefined) {
  if (sellerId && !(await deps.sellers.getSeller(userId, sellerId)))
    throw notFound('Seller not found', 'seller_not_found');
}

/** The user's costs (only one seller's with `sellerId`), oldest first. */
export async function listCosts(deps: PeriodCostDeps, userId: string, sellerId?: string): Promise<PeriodCost[]> {
  const all = await deps.costs.listPeriodCosts(userId);
  return all.filter((c) => sellerId === undefined || c.seller_id === sellerId).map(presentPeriodCost);
}

export async function createCost(deps: PeriodCostDeps, userId: string, body: PeriodCostBody): Promise<PeriodCost> {
  const fields = costFields(body);
  await checkSeller(deps, userId, body.seller_id);
  const existing = await deps.costs.listPeriodCosts(userId);
  if (existing.length >= MAX_PERIOD_COSTS)
    throw unprocessable('too_many_period_costs', `Не больше ${MAX_PERIOD_COSTS} расходов`, { max: MAX_PERIOD_COSTS });
  const now = deps.clock.now().toISOString();
  const record: PeriodCostRecord = {
    id: deps.ids.newId(),
    seller_id: body.seller_id ?? null,
    ...fields,
    created_at: now,
    updated_at: now,
  };
  await deps.costs.putPeriodCost(userId, record);
  return presentPeriodCost(record);
}

export async function replaceCost(
  deps: PeriodCostDeps,
  userId: string,
  id: string,
  body: PeriodCostBody,
): Promise<PeriodCost> {
  const fields = costFields(body);
  await checkSeller(deps, userId, body.seller_id);
  const old = (await deps.costs.listPeriodCosts(userId)).find((c) => c.id === id);
  if (!old) throw notFound('Period cost not found', 'period_cost_not_found');
  const record: PeriodCostRecord = {
    ...old,
    seller_id: body.seller_id === undefined ? old.seller_id : body.seller_id,
    ...fields,
    updated_at: deps.clock.now().toISOString(),
  };
  if (!(await deps.costs.putPeriodCost(userId, record, true)))
    throw notFound('Period cost not found', 'period_cost_not_found');
  return presentPeriodCost(record);
}

export async function removeCost(deps: PeriodCostDeps, userId: string, id: string): Promise<void> {
  if (!(await deps.costs.deletePeriodCost(userId, id)))
    throw notFound('Period cost not found', 'period_cost_not_found');
}

/**
 * Adds the good rows of a file (cost-file.ts) as new costs of `sellerId`; rows that fail the checks are
 * listed with their row numbers. The total may not pass MAX_PERIOD_COSTS.
 */
export async function importCosts(
  deps: PeriodCostDeps,
  userId: string,
  file: { rows: Array<{ row: number; cost: PeriodCostBody }>; errors: Array<{ row: number; message: string }> },
  sellerId?: string,
): Promise<{ created: number; errors: Array<{ row: number; message: string }> }> {
  await checkSeller(deps, userId, sellerId);
  const errors = [...file.errors];
  const now = deps.clock.now().toISOString();
  const records: PeriodCostRecord[] = [];
  for (const { row, cost } of file.rows) {
    try {
      records.push({
        id: deps.ids.newId(),
        seller_id: sellerId ?? null,
        ...costFields(cost),
        created_at: now,
        updated_at: now,
      });
    } catch (e) {
      errors.push({ row, message: e instanceof Error ? e.message : String(e) });
    }
  }
  const existing = await deps.costs.listPeriodCosts(userId);
  if (existing.length + records.length > MAX_PERIOD_COSTS)
    throw unprocessable('too_many_period_costs', `Не больше ${MAX_PERIOD_COSTS} расходов`, {
      max: MAX_PERIOD_COSTS,
      existing: existing.length,
      in_file: records.length,
    });
  await deps.costs.putPeriodCosts(userId, records);
  return { created: records.length, errors: errors.sort((a, b) => a.row - b.row) };
}
