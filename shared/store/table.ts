import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/**
 * The single table every repository shares (docs/ARCHITECTURE.md "Data"). Items carry `pk`/`sk`; two
 * overloaded global secondary indexes (`gsi1`, `gsi2`) serve the second access path of an entity
 * (user by email, reports by seller, item by item_id, ...). Repositories own their key formats.
 * serverless.base.yml declares the same schema for AWS; test/e2e/package.test.ts keeps the two in step.
 */
export const TTL_ATTRIBUTE = 'ttl';
export const GSI1 = 'gsi1';
export const GSI2 = 'gsi2';

export function tableDefinition(name: string): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
      { AttributeName: 'gsi1pk', AttributeType: 'S' },
      { AttributeName: 'gsi1sk', AttributeType: 'S' },
      { AttributeName: 'gsi2pk', AttributeType: 'S' },
      { AttributeName: 'gsi2sk', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: GSI1,
        KeySchema: [
          { AttributeName: 'gsi1pk', KeyType: 'HASH' },
          { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: GSI2,
        KeySchema: [
          { AttributeName: 'gsi2pk', KeyType: 'HASH' },
          { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

async function exists(client: DynamoDBClient, name: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return true;
  } catch (e) {
    if (e instanceof ResourceNotFoundException || (e as { name?: string }).name === 'ResourceNotFoundException')
      return false;
    throw e;
  }
}

/**
 * Creates the table when missing, waits until it is ACTIVE and makes sure TTL is enabled on `ttl`
 * (idempotency keys and other short-lived records expire by it). Safe to call on every start.
 */
export async function ensureTable(client: DynamoDBClient, name: string): Promise<void> {
  if (!(await exists(client, name))) {
    try {
      await client.send(new CreateTableCommand(tableDefinition(name)));
    } catch (e) {
      // Two starters racing for the same table: the loser's create fails, the table is there.
      if ((e as { name?: string }).name !== 'ResourceInUseException') throw e;
    }
  }
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1, maxDelay: 2 }, { TableName: name });
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: name }));
  const status = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: name,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  }
}
