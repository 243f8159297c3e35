/**
 * A manual value on one item (docs/API.md: PUT /api/reports/items/{item_id}/manual-value; docs/METRICS.md,
 * Manual values). Input: the caller, the item id, the field and a value in API units (money in
 * roubles) or null to remove. Output: the item and the report's new totals. Steps: find the item and
 * its report (404 otherwise) → apply the value to the effective values with the report's snapshot
 * tax profile (computed values untouched) → store the item → recompute the report's totals and
 * commission by category from all its items, under the record's version so concurrent corrections
 * never lose each other's effect on the totals. Takes its dependencies first (ManualValueDeps): the
 * handler wires the report store and the summary writer, unit tests pass fakes.
 */
import { conflict, notFound, unprocessable } from '../../errors';
// The engine's modules one by one, not its index: the index also holds the readers (SheetJS, yauzl).
import { applyManualValue, FieldNotCorrectableError } from '../../engine/build';
import { assertManualValueInRange } from './value-range';
import { isCorrectable } from '../../engine/fields';
import { commissionByCategory, computeTotals } from '../../engine/totals';
import type { ItemValues } from '../../engine/types';
import type { Bound } from '../../deps';
import { backoff } from '../../store/dynamo-errors';
import { genOfItemId, reportIdOfItem, type StoredItem } from '../../store/items.repo';
import type { ItemCorrection } from '../../store/report-numbers.repo';
import type { ReportReader } from '../ports';
import type { writeReportSummary } from '../analytics/analytics';
import { valueFromApi } from '../present-report';

export interface ManualValueDeps {
  reports: Pick<ReportReader, 'getReport' | 'getReportItems'> & {
    /** Writes one correction if the item and the report are still those read (report-numbers.repo.ts). */
    saveItemCorrection(c: ItemCorrection): Promise<'ok' | 'item_changed' | 'report_changed' | 'missing'>;
  };
  /** The report's analytics summary after a change (shared/reports/analytics/analytics.ts writeReportSummary). */
  writeSummary: Bound<typeof writeReportSummary>;
  /** The wait between attempts after a concurrent change (backoff). */
  sleep(ms: number): Promise<void>;
}

const itemNotFound = () => notFound('Item not found', 'item_not_found');
const MAX_ATTEMPTS = 20;

export interface ManualValueResult {
  item: StoredItem;
  totals: ItemValues;
}

export { assertManualValueInRange };

export async function setManualValue(
  deps: ManualValueDeps,
  userId: string,
  itemId: string,
  field: string,
  value: number | null,
): Promise<ManualValueResult> {
  const reportId = reportIdOfItem(itemId);
  const gen = genOfItemId(itemId);
  if (reportId === null || gen === null) throw itemNotFound();
  if (!isCorrectable(field)) throw new FieldNotCorrectableError(field);
  if (value !== null) assertManualValueInRange(field, value);
  const units = value === null ? null : valueFromApi(field, value);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await deps.sleep(backoff(attempt));
    const record = await deps.reports.getReport(userId, reportId);
    if (!record) throw itemNotFound();
    // A rebuild switched the report to new items meanwhile: this item id belongs to the replaced ones.
    if ((record.items_gen ?? 1) !== gen) {
      if (attempt === 0) throw itemNotFound();
      throw conflict('report_rebuilt', 'The report was rebuilt meanwhile; set the value again');
    }
    const items = await deps.reports.getReportItems(record);
    const item = items.find((i) => i.item_id === itemId);
    if (!item) throw itemNotFound();
    const next = applyManualValue(item, field, units, record.tax_profile);
    const updated: StoredItem = { ...next, item_id: item.item_id, rev: (item.rev ?? 0) + 1 };
    const all = items.map((i) => (i.item_id === itemId ? updated : i));
    const totals = computeTotals(all.map((i) => i.effective));
    // Sums beyond 2^53 kopecks would no longer be exact (DynamoDB refuses them too): refuse, store nothing.
    if (Object.values(totals).some((v) => typeof v === 'number' && !Number.isSafeInteger(Math.round(v)))) {
      throw unprocessable('value_out_of_range', 'The report totals would exceed the range of exact amounts', {
        field,
        value,
      });
    }
    const outcome = await deps.reports.saveItemCorrection({
      userId,
      reportId,
      itemId,
      manual: next.manual_values,
      effective: next.effective,
      expectedRev: item.rev ?? 0,
      expectedVersion: record.version ?? 1,
      patch: { totals, commission_by_category: commissionByCategory(all) },
    });
    if (outcome === 'missing') throw itemNotFound();
    if (outcome === 'ok') {
      await deps.writeSummary({ ...record, version: (record.version ?? 1) + 1 }, all);
      return { item: updated, totals };
    }
  }
  throw conflict('report_busy', 'The report is being changed by another request; try again');
}
