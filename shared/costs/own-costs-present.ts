/** JSON shapes of the own-costs routes (docs/API.md, Own per-unit costs): money in roubles per unit. */
import { kopecksToRoubles } from '../engine/fields';
import { ownCostOn, type OwnCostLine } from '../engine/own-costs';
import type { OwnCostLineJson } from '../contract/shapes';

/** A line with the amount in force `today` (YYYY-MM-DD; default: today) and its dated amounts. */
export function presentOwnCostLine(line: OwnCostLine, today?: string): OwnCostLineJson {
  return {
    article: line.article,
    name: line.name,
    amount: kopecksToRoubles(ownCostOn(line, null, today)),
    amounts: line.amounts.map((a) => ({ valid_from: a.valid_from, amount: kopecksToRoubles(a.amount) })),
  };
}
