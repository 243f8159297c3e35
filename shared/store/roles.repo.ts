import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { conditionHeld } from './dynamo-errors';
import { roleKey } from './keys';

/** Role records exist so an operator can see (and seed) which roles the store offers. */
export async function roleExists(name: string): Promise<boolean> {
  const r = await ddb().send(new GetCommand({ TableName: tableName(), Key: roleKey(name) }));
  return r.Item !== undefined;
}

/** Creates the role record when missing; true when this call created it. */
export async function ensureRole(name: string, description: string): Promise<boolean> {
  return conditionHeld(
    ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...roleKey(name), type: 'role', name, description, created_at: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}
