/**
 * Changes of a report's numbers and items. Every change of totals or items goes through `version`
 * (optimistic concurrency): a correction and a rebuild of the same report never overwrite each other's
 * numbers silently. A report built without a charge (combine) is written items first, record last, so
 * it appears complete or not at all.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ComputedItem } from '../engine/types';
import { ddb, tableName } from './client';
import { cancellationCodes, isConditionFailed, isTransactionConflict } from './dynamo-errors';
import { deleteItems, writeItems, type StoredItem } from './items.repo';
import { itemKey, reportKey } from './keys';
import {
  capped,
  fromItem,
  MAX_CATEGORIES,
  MAX_WARNINGS,
  toItem,
  type ReportPatch,
  type ReportRecord,
} from './report-record';

/**
 * Creates a complete report without a charge (e.g. a combined report: is_combined, source_report_ids,
 * no source): items first, then the record, so readers see all of it or nothing. If the record put
 * fails, the written items are deleted. Returns the stored record and items.
 */
export async function createReport(
  record: ReportRecord,
  items: ReadonlyArray<ComputedItem>,
): Promise<{ record: ReportRecord; items: StoredItem[] }> {
  const stored = await writeItems(record.user_id, record.id, 1, items);
  const full: ReportRecord = { ...record, item_count: items.length, items_gen: 1, version: 1, status: 'ready' };
  try {
    await ddb().send(
      new PutCommand({ TableName: tableName(), Item: toItem(full), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (e) {
    await deleteItems(record.user_id, record.id, 1).catch(() => undefined);
    throw e;
  }
  return { record: capped(full), items: stored };
}

export interface ItemCorrection {
  userId: string;
  reportId: string;
  itemId: string;
  manual: Record<string, number>;
  effective: Record<string, number | null>;
  /** The item's `rev` and the report's `version` this correction was computed from. */
  expectedRev: number;
  expectedVersion: number;
  /** The report's recomputed totals and commission by category, with the corrected item in them. */
  patch: Pick<ReportPatch, 'totals' | 'commission_by_category'>;
}

/**
 * A manual value and the report's new totals in ONE transaction: both are written or neither, so the
 * report's totals always equal the sum of its items. 'item_changed' / 'report_changed' when the item's
 * rev or the report's version moved meanwhile (the caller recomputes and tries again); 'missing' when
 * the report is gone. The item write is the item's small correction record, never its chunk.
 */
export async function saveItemCorrection(
  c: ItemCorrection,
): Promise<'ok' | 'item_changed' | 'report_changed' | 'missing'> {
  const key = itemKey(c.userId, c.itemId);
  if (!key) return 'missing';
  try {
    await ddb().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: key,
              // The item's correction record (items.repo.ts), created by its first correction. That the item
              // exists in the report's current generation is the caller's check; the report's version
              // below guarantees the generation has not changed since.
              UpdateExpression:
                'SET manual_values = :m, effective = :e, rev = :next, #type = if_not_exists(#type, :type), report_id = :r',
              ConditionExpression: 'rev = :rev OR (attribute_not_exists(rev) AND :rev = :zero)',
              ExpressionAttributeNames: { '#type': 'type' },
              ExpressionAttributeValues: {
                ':m': c.manual,
                ':e': c.effective,
                ':rev': c.expectedRev,
                ':next': c.expectedRev + 1,
                ':zero': 0,
                ':type': 'item_correction',
                ':r': c.reportId,
              },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: reportKey(c.userId, c.reportId),
              UpdateExpression: 'SET #version = :next, totals = :t, commission_by_category = :c',
              ConditionExpression:
                'attribute_exists(pk) AND (#version = :expected OR (attribute_not_exists(#version) AND :expected = :one))',
              ExpressionAttributeNames: { '#version': 'version' },
              ExpressionAttributeValues: {
                ':next': c.expectedVersion + 1,
                ':expected': c.expectedVersion,
                ':one': 1,
                ':t': c.patch.totals,
                ':c': (c.patch.commission_by_category ?? []).slice(0, MAX_CATEGORIES),
              },
            },
          },
        ],
      }),
    );
    return 'ok';
  } catch (e) {
    if (isTransactionConflict(e)) return 'report_changed';
    const codes = cancellationCodes(e);
    if (codes === null) throw e;
    const [item, report] = [codes[0] === 'ConditionalCheckFailed', codes[1] === 'ConditionalCheckFailed'];
    if (!item && !report) throw e;
    const stillReport = await ddb().send(
      new GetCommand({
        TableName: tableName(),
        Key: reportKey(c.userId, c.reportId),
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      }),
    );
    if (!stillReport.Item) return 'missing';
    return item ? 'item_changed' : 'report_changed';
  }
}

/**
 * Replaces a report's items (rebuild): writes them as the next generation, then switches the record to
 * it together with `patch`, on the condition that the record still has `expectedVersion`; the old
 * generation is deleted afterwards. When the switch fails (the report changed or went away), the new
 * items are deleted and null is returned: the report is exactly as before.
 */
export async function replaceItems(
  record: ReportRecord,
  items: ReadonlyArray<ComputedItem>,
  patch: ReportPatch,
): Promise<{ record: ReportRecord; items: StoredItem[] } | null> {
  const oldGen = record.items_gen ?? 1;
  const gen = oldGen + 1;
  // Leftovers of an interrupted earlier attempt at this generation would mix into it.
  await deleteItems(record.user_id, record.id, gen);
  let stored: StoredItem[];
  try {
    stored = await writeItems(record.user_id, record.id, gen, items);
  } catch (e) {
    await deleteItems(record.user_id, record.id, gen).catch(() => undefined);
    throw e;
  }
  const expected = record.version ?? 1;
  const names: Record<string, string> = { '#version': 'version', '#gen': 'items_gen', '#count': 'item_count' };
  const values: Record<string, unknown> = {
    ':next': expected + 1,
    ':expected': expected,
    ':gen': gen,
    ':count': items.length,
    ':one': 1,
  };
  const sets = ['#version = :next', '#gen = :gen', '#count = :count'];
  const capPatch: ReportPatch = { ...patch };
  if (capPatch.warnings) capPatch.warnings = capPatch.warnings.slice(0, MAX_WARNINGS);
  if (capPatch.commission_by_category)
    capPatch.commission_by_category = capPatch.commission_by_category.slice(0, MAX_CATEGORIES);
  delete capPatch.item_count;
  for (const [k, v] of Object.entries(capPatch)) {
    if (v === undefined) continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  let updated: ReportRecord;
  try {
    const r = await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(record.user_id, record.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression:
          'attribute_exists(pk) AND (#version = :expected OR (attribute_not_exists(#version) AND :expected = :one))',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    updated = fromItem(r.Attributes ?? {});
  } catch (e) {
    await deleteItems(record.user_id, record.id, gen).catch(() => undefined);
    if (isConditionFailed(e)) return null;
    throw e;
  }
  await deleteItems(record.user_id, record.id, oldGen);
  return { record: updated, items: stored };
}
