import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { getConfig } from '../config';
import { isConditionFailed } from './dynamo-errors';
import { transientRetry } from './retry';

let doc: DynamoDBDocumentClient | undefined;

/** One DynamoDB document client per process; the endpoint is DynamoDB Local's when configured. */
export function ddb(): DynamoDBDocumentClient {
  if (!doc) {
    const c = getConfig();
    const raw = new DynamoDBClient({
      region: c.AWS_REGION,
      endpoint: c.DYNAMODB_ENDPOINT,
      // Throttled single-item calls and batches: the SDK's standard retries (5 attempts, jittered).
      maxAttempts: 5,
      // A call that hangs fails instead of holding the function until its own timeout (without
      // throwOnRequestTimeout the SDK's requestTimeout only logs a warning).
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
    });
    // Transactions cancelled by throttling or a conflict: sent again (shared/store/retry.ts).
    raw.middlewareStack.add(transientRetry({ attempts: 6 }), { step: 'initialize', name: 'transientTransactionRetry' });
    doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  }
  return doc;
}

export function tableName(): string {
  return getConfig().TABLE_NAME;
}

/**
 * Every item a Query matches: its pages read one after another (each from the previous page's
 * LastEvaluatedKey) until DynamoDB says there are no more. For the reads that need the whole result.
 */
export async function queryAll(
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await ddb().send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    out.push(...(r.Items ?? []));
    start = r.LastEvaluatedKey;
  } while (start);
  return out;
}

/** One TransactWriteItems element in the document client's shape (plain values, not AttributeValues). */
export type DocTransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The transaction element that writes a new record: its condition fails when the key is taken. */
export function putNew(item: Record<string, unknown>): DocTransactItem {
  return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * An UpdateItem of a record that must exist: when it does not, throws `missing()` instead of
 * DynamoDB's condition failure. Answers the attributes ReturnValues asked for.
 */
export async function updateExisting(
  input: Omit<UpdateCommandInput, 'TableName' | 'ConditionExpression'>,
  missing: () => Error,
): Promise<Record<string, unknown> | undefined> {
  try {
    const r = await ddb().send(
      new UpdateCommand({ ...input, TableName: tableName(), ConditionExpression: 'attribute_exists(pk)' }),
    );
    return r.Attributes;
  } catch (e) {
    if (isConditionFailed(e)) throw missing();
    throw e;
  }
}
