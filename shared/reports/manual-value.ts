/**
 * A manual value on one item (API.md: PUT /api/reports/items/{item_id}/manual-value; METRICS.md,
 * Manual values). Input: the caller, the item id, the field and a value in API units (money in
 * roubles) or null to remove. Output: the item and the report's new totals. Steps: find the item and
 * its report (404 otherwise) → apply the value to the effective values with the report's snapshot
 * tax profile (computed values untouched) → store the item → recompute the report's totals and
 * commission by category from all its items, under the record's version so concurrent corrections
 * never lose each other's effect on the totals.
 */
import { badRequest, conflict, notFound } from '../errors';
import {
  applyManualValue,
  commissionByCategory,
  computeTotals,
  FIELD_BY_NAME,
  FieldNotCorrectableError,
  isCorrectable,
  type ItemValues,
} from '../report';
import { genOfItemId, getItem, reportIdOfItem, updateItemValues, type StoredItem } from '../store/items.repo';
import { getReport, getReportItems, updateReport } from '../store/reports.repo';
import { valueFromApi } from './present';

const itemNotFound = () => notFound('Item not found', 'item_not_found');
const MAX_ATTEMPTS = 20;

export interface ManualValueResult {
  item: StoredItem;
  totals: ItemValues;
}

export async function setManualValue(
  userId: string,
  itemId: string,
  field: string,
  value: number | null,
): Promise<ManualValueResult> {
  const reportId = reportIdOfItem(itemId);
  const gen = genOfItemId(itemId);
  if (reportId === null || gen === null) throw itemNotFound();
  const record = await getReport(userId, reportId);
  if (!record || (record.items_gen ?? 1) !== gen) throw itemNotFound();
  if (!isCorrectable(field)) throw new FieldNotCorrectableError(field);
  if (value !== null && FIELD_BY_NAME.get(field)?.unit === 'qty' && !Number.isInteger(value)) {
    throw badRequest('validation_error', `${field} must be a whole number`, { field, value });
  }
  const units = value === null ? null : valueFromApi(field, value);
  let updated: StoredItem | null = null;
  for (let attempt = 0; !updated; attempt++) {
    const item = await getItem(userId, itemId);
    if (!item) throw itemNotFound();
    const next = applyManualValue(item, field, units, record.tax_profile);
    const outcome = await updateItemValues(userId, itemId, next.manual_values, next.effective, item.rev ?? 0);
    if (outcome === 'missing') throw itemNotFound();
    if (outcome === 'ok') updated = { ...next, item_id: item.item_id, rev: (item.rev ?? 0) + 1 };
    else if (attempt >= MAX_ATTEMPTS)
      throw conflict('report_busy', 'The item is being changed by another request; try again');
  }

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = attempt === 0 ? record : await getReport(userId, reportId);
    if (!current) throw itemNotFound();
    // A rebuild switched the report to new items meanwhile: this correction went to the replaced ones.
    if ((current.items_gen ?? 1) !== gen)
      throw conflict('report_rebuilt', 'The report was rebuilt meanwhile; set the value again');
    const items = await getReportItems(current);
    const totals = computeTotals(items.map((i) => i.effective));
    const saved = await updateReport(userId, reportId, current.version ?? 1, {
      totals,
      commission_by_category: commissionByCategory(items),
    });
    if (saved) return { item: updated, totals };
  }
  throw conflict('report_busy', 'The report is being changed by another request; try again');
}
