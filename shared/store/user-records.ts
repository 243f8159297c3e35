/**
 * A kind of small records a user keeps in the user's own partition (pk `USER#<userId>`, sk
 * `<prefix><id>`): the period costs and the purchases. Each kind gives its key, how a record becomes an
 * item and back (its stored schema, records.ts); these are the reads and writes they share.
 */
import { BatchWriteCommand, DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { isConditionFailed } from './dynamo-errors';
import type { Key } from './keys';

export interface UserRecordKind<T extends { id: string }> {
  /** For messages: "period costs", "purchases". */
  name: string;
  prefix: string;
  key(userId: string, id: string): Key;
  toItem(userId: string, record: T): Record<string, unknown>;
  fromItem(item: Record<string, unknown>): T;
}

/** Every record of the kind, in the order they were added (ids sort by time). */
export async function listUserRecords<T extends { id: string }>(kind: UserRecordKind<T>, userId: string): Promise<T[]> {
  const out: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': kind.key(userId, 'x').pk, ':p': kind.prefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const it of r.Items ?? []) out.push(kind.fromItem(it));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Writes a record; with `mustExist`, only over a stored one (false when there is none). */
export async function putUserRecord<T extends { id: string }>(
  kind: UserRecordKind<T>,
  userId: string,
  record: T,
  mustExist = false,
): Promise<boolean> {
  try {
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: kind.toItem(userId, record),
        ...(mustExist ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
      }),
    );
    return true;
  } catch (e) {
    if (mustExist && isConditionFailed(e)) return false;
    throw e;
  }
}

/** Writes new records (an import), 25 a batch, unprocessed ones sent again. */
export async function putUserRecords<T extends { id: string }>(
  kind: UserRecordKind<T>,
  userId: string,
  records: readonly T[],
): Promise<void> {
  for (let i = 0; i < records.length; i += 25) {
    let pending = records.slice(i, i + 25).map((r) => ({ PutRequest: { Item: kind.toItem(userId, r) } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= 8) throw new Error(`${kind.name}: batch write kept unprocessed items`);
      const r = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (r.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      if (pending.length > 0) await new Promise((res) => setTimeout(res, 50 * 2 ** attempt));
    }
  }
}

/** Deletes a record; false when there was none. */
export async function deleteUserRecord<T extends { id: string }>(
  kind: UserRecordKind<T>,
  userId: string,
  id: string,
): Promise<boolean> {
  try {
    await ddb().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: kind.key(userId, id),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailed(e)) return false;
    throw e;
  }
}
