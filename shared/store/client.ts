import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getConfig } from '../config';

let doc: DynamoDBDocumentClient | undefined;

/** One DynamoDB document client per process; the endpoint is DynamoDB Local's when configured. */
export function ddb(): DynamoDBDocumentClient {
  if (!doc) {
    const c = getConfig();
    const raw = new DynamoDBClient({ region: c.AWS_REGION, endpoint: c.DYNAMODB_ENDPOINT, maxAttempts: 5 });
    doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  }
  return doc;
}

export function tableName(): string {
  return getConfig().TABLE_NAME;
}
