/**
 * The API-side bounds of a value a seller types (a manual value of a report, a catalog cost price): one
 * rule, so the same input is refused alike everywhere. Light on purpose (the engine's field table only):
 * the catalog's handlers import it without the report's stores.
 */
import { unprocessable } from '../../errors';
import { FieldNotCorrectableError, manualValueRange } from '../../engine/build';
import { FIELD_BY_NAME } from '../../engine/fields';
import { isWholeKopecks } from '../../engine/money';

/**
 * The API-side bounds of a manual value (roubles for money): 422 `value_out_of_range` outside them, or
 * for money with more than 2 decimals. The engine checks the same range again in its own units.
 */
export function assertManualValueInRange(field: string, value: number): void {
  const def = FIELD_BY_NAME.get(field);
  if (!def || !def.correctable) throw new FieldNotCorrectableError(field);
  const range = manualValueRange(field);
  const [min, max] = def.unit === 'money' ? [range.min / 100, range.max / 100] : [range.min, range.max];
  const ok =
    Number.isFinite(value) &&
    value >= min &&
    value <= max &&
    (def.unit !== 'qty' || Number.isInteger(value)) &&
    (def.unit !== 'money' || isWholeKopecks(value));
  if (!ok) {
    const rule =
      def.unit === 'qty'
        ? `a whole number within ${min}..${max}`
        : def.unit === 'money'
          ? `an amount within ${min}..${max} roubles with at most 2 decimals`
          : `a percent within ${min}..${max}`;
    throw unprocessable('value_out_of_range', `${field} must be ${rule}`, { field, value, min, max });
  }
}
