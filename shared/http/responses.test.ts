import { describe, expect, it } from 'vitest';
import { binary, contentDisposition, json, redirect } from './responses';

describe('responses', () => {
  it('json sets status, content type and body', () => {
    const r = json(201, { a: 1 });
    expect(r.statusCode).toBe(201);
    expect(r.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(r.body as string)).toEqual({ a: 1 });
  });

  it('binary is base64 with isBase64Encoded and a download name', () => {
    const data = Buffer.from([0, 1, 2, 255]);
    const r = binary(data, { contentType: 'application/vnd.ms-excel', filename: 'Сводка.xls' });
    expect(r.isBase64Encoded).toBe(true);
    expect(Buffer.from(r.body as string, 'base64')).toEqual(data);
    expect(r.headers?.['Content-Length']).toBe('4');
    expect(r.headers?.['Content-Disposition']).toBe(
      `attachment; filename="______.xls"; filename*=UTF-8''${encodeURIComponent('Сводка')}.xls`,
    );
  });

  it('content disposition escapes quotes, separators and newlines', () => {
    const h = contentDisposition('a"b;c\r\nd/e.xlsx', 'inline');
    expect(h.startsWith('inline; filename="a_b_c  d_e.xlsx"; filename*=UTF-8\'\'')).toBe(true);
    expect(h).not.toMatch(/[\r\n]/);
    expect(h).toContain("filename*=UTF-8''a%22b%3Bc%20%20d_e.xlsx");
  });

  it('redirect carries the location', () => {
    const r = redirect('https://example.com/x?sig=1');
    expect(r.statusCode).toBe(302);
    expect(r.headers?.Location).toBe('https://example.com/x?sig=1');
  });
});
