import { randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { getConfig } from '../../shared/config';
import { bucketName, s3, s3Public } from '../../shared/files/client';
import { ses } from '../../shared/mail/client';
import { ddb, tableName } from '../../shared/store/client';
import { readMail, waitForMail } from '../support/emulators';

// Proves the harness the other integration suites stand on: the environment reaches the test
// worker, and the table, the bucket and the mail emulator behave like the real services.
describe('emulator harness', () => {
  it('gives test workers the emulators’ settings through process.env and inject()', () => {
    const provided = inject('emulatorEnv');
    expect(process.env.DYNAMODB_ENDPOINT).toBe(provided.DYNAMODB_ENDPOINT);
    expect(getConfig().TABLE_NAME).toBe(provided.TABLE_NAME);
    expect(getConfig().S3_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('stores and reads an item, and finds it through both secondary indexes', async () => {
    const id = randomUUID();
    await ddb().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: `TEST#${id}`,
          sk: 'A',
          gsi1pk: `G1#${id}`,
          gsi1sk: '2',
          gsi2pk: `G2#${id}`,
          gsi2sk: 'x',
          value: 42,
        },
      }),
    );
    const got = await ddb().send(new GetCommand({ TableName: tableName(), Key: { pk: `TEST#${id}`, sk: 'A' } }));
    expect(got.Item?.value).toBe(42);
    for (const [index, key] of [
      ['gsi1', 'gsi1pk'],
      ['gsi2', 'gsi2pk'],
    ] as const) {
      const q = await ddb().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: index,
          KeyConditionExpression: '#k = :v',
          ExpressionAttributeNames: { '#k': key },
          ExpressionAttributeValues: { ':v': `${key === 'gsi1pk' ? 'G1' : 'G2'}#${id}` },
        }),
      );
      expect(q.Items?.map((i) => i.value)).toEqual([42]);
    }
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: { pk: `TEST#${id}`, sk: 'A' } }));
  });

  it('accepts a file PUT to a presigned URL with fetch and gives the same bytes back', async () => {
    const key = `uploads/test/${randomUUID()}/отчёт.xlsx`;
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const url = await getSignedUrl(s3Public(), new PutObjectCommand({ Bucket: bucketName(), Key: key }), {
      expiresIn: 300,
    });
    const put = await fetch(url, { method: 'PUT', body: bytes, headers: { origin: 'http://localhost:5173' } });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const got = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
    const body = Buffer.from(await got.Body!.transformToByteArray());
    expect(body.equals(bytes)).toBe(true);
  });

  it('answers the browser’s CORS preflight for a presigned PUT from the web origin', async () => {
    const url = await getSignedUrl(s3Public(), new PutObjectCommand({ Bucket: bucketName(), Key: 'uploads/x/y.zip' }), {
      expiresIn: 60,
    });
    const pre = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-methods')).toContain('PUT');
    const other = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'PUT' },
    });
    expect(other.status).toBe(403);
  });

  it('delivers mail sent through ses() to the emulator’s store, links included', async () => {
    const to = `u-${randomUUID()}@example.com`;
    await ses().send(
      new SendEmailCommand({
        FromEmailAddress: getConfig().MAIL_FROM,
        Destination: { ToAddresses: [to] },
        Content: {
          Simple: {
            Subject: { Data: 'Подтвердите адрес' },
            Body: {
              Text: { Data: 'Open http://localhost:5173/confirm?token=abc.def to confirm.' },
              Html: { Data: '<p><a href="http://localhost:5173/confirm?token=abc.def&amp;x=1">confirm</a></p>' },
            },
          },
        },
      }),
    );
    const mail = await waitForMail(getConfig().SES_ENDPOINT!, to, (m) => m.subject === 'Подтвердите адрес');
    expect(mail.to).toEqual([to]);
    expect(mail.text).toContain('to confirm');
    expect(mail.links).toEqual([
      'http://localhost:5173/confirm?token=abc.def',
      'http://localhost:5173/confirm?token=abc.def&x=1',
    ]);
    const all = await readMail(getConfig().SES_ENDPOINT!);
    expect(all.filter((m) => m.to.includes(to))).toHaveLength(1);
  });
});
