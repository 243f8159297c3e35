/**
 * Lambda's 6 MB payload limit on the real answers (shared/http/payload-limit.ts): the biggest answer of
 * the API, a report as objects, passes 6 MB from about 5,500 articles. A client that accepts gzip gets it
 * compressed; one that does not gets 406 response_too_large instead of an answer AWS would refuse to
 * send (the local stack would have sent it). As columns it fits without compression.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { handler as getHandler } from '../../functions/reports/get.handler';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { MAX_BODY_BYTES } from '../../shared/http/payload-limit';
import { apiEvent, bodyOf } from '../support/test-event';
import { makeReport, newUser, presignedUpload, uploadById } from '../support/reports';

describe('the largest answer within the payload limit', () => {
  it('a report of 6,000+ articles (9 MB of JSON): gzip when accepted, 406 when not, columns fit as they are', async () => {
    const u = await newUser(1_000_000, 'payload');
    const g = makeReport({ rows: 20_000, articles: 7_000, format: 'zip', seed: 4242 });
    const uploadId = await presignedUpload(u.token, g);
    const r = await uploadById(u.token, uploadId);
    // Ready within the route's wait, the upload's own answer is the whole report: over the limit for a
    // client that does not accept gzip (406, nothing lost: the report is on the list).
    if (r.statusCode === 406) expect(bodyOf<{ error: { code: string } }>(r).error.code).toBe('response_too_large');
    const listed = await listHandler(apiEvent({ method: 'GET', path: '/api/reports', token: u.token }));
    const id =
      bodyOf<{ report?: { id: string } }>(r).report?.id ?? bodyOf<{ items: { id: string }[] }>(listed).items[0]!.id;
    const get = (headers: Record<string, string>, query?: Record<string, string>) =>
      getHandler(
        apiEvent({
          method: 'GET',
          path: `/api/reports/${id}`,
          token: u.token,
          pathParameters: { id },
          query,
          headers,
        }),
      );
    // Built by the worker (in this process); the columns answer tells when it is ready.
    for (let i = 0; ; i++) {
      const c = await get({}, { items: 'columns' });
      if (bodyOf<{ report: { status: string } }>(c).report.status === 'ready') break;
      if (i > 240) throw new Error('the report was not ready in time');
      await new Promise((res) => setTimeout(res, 500));
    }

    const plain = await get({});
    expect(plain.statusCode).toBe(406);
    expect(bodyOf<{ error: { code: string } }>(plain).error.code).toBe('response_too_large');

    const zipped = await get({ 'accept-encoding': 'gzip' });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers?.['Content-Encoding']).toBe('gzip');
    expect(Buffer.byteLength(zipped.body!)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const full = JSON.parse(gunzipSync(Buffer.from(zipped.body!, 'base64')).toString()) as {
      report: { items: unknown[] };
    };
    expect(full.report.items.length).toBeGreaterThan(5_500);

    const columns = await get({}, { items: 'columns' });
    expect(columns.statusCode).toBe(200);
    expect(Buffer.byteLength(columns.body!)).toBeLessThanOrEqual(MAX_BODY_BYTES);
  });
});
