/**
 * Hostile request bodies and files (attack run): a truncated multipart body answered 500 ("Unexpected
 * end of form"), and a broken .xls answered with the library's own text ("Major Version: Expected 3 or
 * 4 saw 22937"). Both are the caller's fault: a 4xx with a stable code, our own words, nothing charged.
 */
import { describe, expect, it } from 'vitest';
import { handler as countRowsHandler } from '../../functions/reports/count-rows.handler';
import { handler as uploadHandler } from '../../functions/reports/upload.handler';
import { handler as importHandler } from '../../functions/products/import.handler';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { handler as getReportHandler } from '../../functions/reports/get.handler';
import { handler as putProductHandler } from '../../functions/products/put.handler';
import { handler as wbConnectionsHandler } from '../../functions/wb/connections.handler';
import { MAX_PATH_ID_LENGTH } from '../../shared/contract/shapes';
import { apiEvent, bodyOf, multipartBody } from '../support/test-event';
import { getUserById } from '../../shared/store/users.repo';
import { makeReport, newUser, uploadMultipart } from '../support/reports';

type ErrorBody = { error: { code: string; message: string; details: Record<string, unknown> } };

const LIBRARY_TEXT = /Major Version|Expected \d|Unexpected end|yauzl|zlib|invalid (block|distance|stored)|CFB|Error:/i;

function truncated(file: Buffer) {
  const { body, contentType } = multipartBody({ filename: 'report.xlsx', content: file });
  return { body: body.subarray(0, Math.floor(body.length * 0.6)), contentType };
}

describe('truncated multipart', () => {
  it('upload, count-rows and import answer 400 invalid_multipart and charge nothing', async () => {
    const u = await newUser(100_000, 'security');
    const g = makeReport({ rows: 200, seed: 1202 });
    const routes = [
      { handler: uploadHandler, path: '/api/reports/upload' },
      { handler: countRowsHandler, path: '/api/reports/count-rows' },
      { handler: importHandler, path: '/api/products/import' },
    ];
    for (const { handler, path } of routes) {
      const { body, contentType } = truncated(g.file);
      const r = await handler(
        apiEvent({ method: 'POST', path, token: u.token, body, headers: { 'content-type': contentType } }),
      );
      expect({ path, status: r.statusCode }).toEqual({ path, status: 400 });
      const err = bodyOf<ErrorBody>(r).error;
      expect(err.code).toBe('invalid_multipart');
      expect(err.message).not.toMatch(LIBRARY_TEXT);
    }
    expect((await getUserById(u.id))!.limits).toBe(100_000);
  });
});

describe('broken files say what is wrong in our words', () => {
  const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  const cases: Array<[string, Buffer]> = [
    ['broken.xls', Buffer.concat([OLE2, Buffer.alloc(600, 0x59)])],
    ['broken.zip', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(300, 0x41)])],
    ['broken.xlsx', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(2000, 0x17)])],
  ];
  it.each(cases)('%s → 4xx with a stable code, no library text, nothing charged', async (filename, file) => {
    const u = await newUser(100_000, 'security');
    const r = await uploadMultipart(u.token, { filename, file });
    expect(r.statusCode).toBeGreaterThanOrEqual(400);
    expect(r.statusCode).toBeLessThan(500);
    const err = bodyOf<ErrorBody>(r).error;
    expect(err.code).toMatch(/^[a-z_]+$/);
    expect(err.message).not.toMatch(LIBRARY_TEXT);
    expect(JSON.stringify(err.details)).not.toMatch(LIBRARY_TEXT);
    expect((await getUserById(u.id))!.limits).toBe(100_000);
  });
});

describe('path parameters over their bound', () => {
  it('an id of 2,100 characters answers 400, never 500 (a store key over DynamoDB’s 2 KB)', async () => {
    const u = await newUser(100, 'security');
    const long = 'A'.repeat(2_100);
    const cases = [
      {
        handler: combineHandler,
        path: `/api/reports/combine-status/${long}`,
        params: { job_id: long } as Record<string, string>,
      },
      { handler: getReportHandler, path: `/api/reports/${long}`, params: { id: long } as Record<string, string> },
    ];
    for (const { handler, path, params } of cases) {
      const r = await handler(apiEvent({ method: 'GET', path, token: u.token, pathParameters: params }));
      expect({ path: path.slice(0, 30), status: r.statusCode }).toEqual({ path: path.slice(0, 30), status: 400 });
      expect(bodyOf<ErrorBody>(r).error.code).toBe('validation_error');
    }
    // Every other path parameter: a WB connection's id, a product's article (Cyrillic: 2 bytes a character).
    const article = 'Ж'.repeat(2_100);
    for (const [handler, method, path, params, body] of [
      [wbConnectionsHandler, 'GET', `/api/wb/connections/${long}`, { id: long }, undefined],
      [wbConnectionsHandler, 'POST', `/api/wb/connections/${long}/sync`, { id: long }, {}],
      [putProductHandler, 'PUT', `/api/products/${encodeURIComponent(article)}`, { article }, { cost_price: 10 }],
    ] as const) {
      const r = await handler(apiEvent({ method, path, token: u.token, pathParameters: params, body }));
      expect({ path: path.slice(0, 30), status: r.statusCode }).toEqual({ path: path.slice(0, 30), status: 400 });
      expect(bodyOf<ErrorBody>(r).error.code).toBe('validation_error');
    }
    // At the bound, a well-formed unknown id is simply not found.
    const unknown = 'B'.repeat(MAX_PATH_ID_LENGTH);
    const r = await combineHandler(
      apiEvent({
        method: 'GET',
        path: `/api/reports/combine-status/${unknown}`,
        token: u.token,
        pathParameters: { job_id: unknown },
      }),
    );
    expect(r.statusCode).toBe(404);
  });
});
