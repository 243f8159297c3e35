/**
 * A user's own per-unit costs (shared/engine/own-costs.ts): every cost line, default and per article,
 * with its dated amounts, in ONE record (keys.ts: `USER#<userId>` / `OWNCOSTS`), the lines gzip'd as
 * JSON in `data`. One record because a report needs all of them at once (one GetItem, where a record
 * per line would be a Query of pages), and because every change — a PUT, a delete, a whole import — is
 * then one conditional Put: an import is applied whole or not at all, and two writers never lose each
 * other's lines (the Put is conditional on the `rev` read). A seller's lines stay far below the item's
 * 400 KB: 10,000 lines of long articles gzip to ~150 KB; more is refused before anything is written.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unprocessable } from '../errors';
import type { OwnCostLine } from '../engine/own-costs';
import { ddb, tableName } from './client';
import { isConditionFailed } from './dynamo-errors';
import { ownCostsKey } from './keys';
import { parseStored, RECORD_VERSIONS, StoredRecordError, storedOwnCostLines, storedOwnCosts } from './records';

/** The lines of a user and the revision they were read at (0: no record yet). */
export interface OwnCostBook {
  lines: OwnCostLine[];
  rev: number;
  /** When the lines last changed (null: never). */
  updated_at: string | null;
}

/** What the compressed lines may take of the record (DynamoDB's item limit is 400 KB). */
export const MAX_OWN_COSTS_BYTES = 350_000;

const EMPTY = (): OwnCostBook => ({ lines: [], rev: 0, updated_at: null });

/** The book of a stored item; StoredRecordError (naming the key) when it is not of the current shape. */
export function ownCostBookOfItem(item: Record<string, unknown>): OwnCostBook {
  const r = parseStored('own_costs', storedOwnCosts, item);
  let body: unknown;
  try {
    body = JSON.parse(gunzipSync(r.data).toString('utf8'));
  } catch {
    body = null;
  }
  const parsed = storedOwnCostLines.safeParse(body);
  // The body is the record's: a broken one is the same error as a broken attribute.
  if (!parsed.success)
    throw new StoredRecordError('own_costs', { pk: item.pk, sk: item.sk }, `data: ${parsed.error.issues[0]?.message}`);
  return { lines: parsed.data.lines, rev: r.rev, updated_at: r.updated_at };
}

/** Every cost line of the user (strongly consistent), with the revision to write against. */
export async function getOwnCosts(userId: string): Promise<OwnCostBook> {
  const r = await ddb().send(
    new GetCommand({ TableName: tableName(), Key: ownCostsKey(userId), ConsistentRead: true }),
  );
  return r.Item ? ownCostBookOfItem(r.Item) : EMPTY();
}

/**
 * Replaces the user's lines, on the condition that the record is still at `rev` (0: none yet). False
 * when another write came first (the caller reads again and retries); 422 `too_many_own_costs` when the
 * lines do not fit one record.
 */
export async function saveOwnCosts(
  userId: string,
  lines: readonly OwnCostLine[],
  rev: number,
  now: string,
): Promise<boolean> {
  const data = gzipSync(JSON.stringify({ lines }), { level: 6 });
  if (data.length > MAX_OWN_COSTS_BYTES)
    throw unprocessable('too_many_own_costs', 'Too many own cost lines to keep', {
      lines: lines.length,
      bytes: data.length,
      max_bytes: MAX_OWN_COSTS_BYTES,
    });
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...ownCostsKey(userId),
          type: 'own_costs',
          v: RECORD_VERSIONS.own_costs,
          user_id: userId,
          rev: rev + 1,
          line_count: lines.length,
          data,
          updated_at: now,
        },
        ...(rev === 0
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'rev = :rev', ExpressionAttributeValues: { ':rev': rev } }),
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}
