import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ddb, queryAll } from './client';

// The real client against a loopback server that speaks DynamoDB's JSON protocol: what the emulator
// never does (throttle, cancel a transaction for a conflict) is answered here, so the client's own
// handling is what is tested, over a real HTTP connection.
let server: Server;
const answers: Array<{ status: number; body: object }> = [];
let requests = 0;
/** The JSON bodies the client sent, in order. */
const bodies: Array<Record<string, unknown>> = [];

const cancelled = (code: string) => ({
  status: 400,
  body: {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${code}]`,
    CancellationReasons: [{ Code: code }],
  },
});

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      bodies.push(JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>);
      const a = answers.shift() ?? { status: 200, body: {} };
      res.writeHead(a.status, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(process.env, {
    JWT_SECRET: 'unit-test-secret-unit-test-secret',
    TABLE_NAME: 't',
    BUCKET_NAME: 'bucket',
    MAIL_FROM: 'noreply@example.com',
    APP_URL: 'http://localhost:5173',
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const tx = () =>
  ddb().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: 'a', sk: 'b' }, ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    }),
  );

describe('the DynamoDB client', () => {
  it('sends a transaction cancelled by throttling and by a conflict again until it goes through', async () => {
    requests = 0;
    answers.push(cancelled('ThrottlingError'), cancelled('TransactionConflict'));
    await expect(tx()).resolves.toBeDefined();
    expect(requests).toBe(3);
  });

  it('retries a throttled call once the SDK way, then it goes through', async () => {
    requests = 0;
    answers.push({
      status: 400,
      body: { __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'slow down' },
    });
    await expect(tx()).resolves.toBeDefined();
    expect(requests).toBe(2);
  });

  it('passes a failed condition on at once', async () => {
    requests = 0;
    answers.push(cancelled('ConditionalCheckFailed'));
    await expect(tx()).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(requests).toBe(1);
  });

  it('queryAll reads every page, each from the key the previous one ended at, until there is none', async () => {
    bodies.length = 0;
    const key = (sk: string) => ({ pk: { S: 'u' }, sk: { S: sk } });
    answers.push(
      { status: 200, body: { Items: [key('a'), key('b')], LastEvaluatedKey: key('b') } },
      { status: 200, body: { Items: [], LastEvaluatedKey: key('c') } },
      { status: 200, body: { Items: [key('d')] } },
    );
    const rows = await queryAll({
      TableName: 't',
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'u' },
    });
    expect(rows.map((r) => r.sk)).toEqual(['a', 'b', 'd']);
    expect(bodies.map((b) => b.ExclusiveStartKey)).toEqual([undefined, key('b'), key('c')]);
  });
});
