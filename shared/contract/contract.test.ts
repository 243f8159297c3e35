import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReportError, type ReportErrorCode } from '../engine/errors';
import { AppError, toAppError } from '../errors';
import { ERROR_CODES, ERRORS, statusesOf, statusOf, type ErrorCode } from './errors';
import { FUNCTIONS } from './functions';
import { buildOpenApi, openApiText } from './openapi';
import { errorsOf, ROUTES, type RouteSpec } from './routes';

const root = path.join(__dirname, '..', '..');
const routes = Object.entries(ROUTES) as Array<[string, RouteSpec]>;

describe('the OpenAPI document', () => {
  it('docs/openapi.json is what the contract generates (run `npm run openapi` after changing shared/contract)', () => {
    expect(readFileSync(path.join(root, 'docs', 'openapi.json'), 'utf8')).toBe(openApiText());
  });

  it('is OpenAPI 3.1 and lists every route with its request, its answers and its error codes', () => {
    const doc = buildOpenApi() as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            requestBody?: unknown;
            responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
          }
        >
      >;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toBe('3.1.0');
    let operations = 0;
    for (const [key, r] of routes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      if (!op) throw new Error(`${r.method} ${r.path} is not in docs/openapi.json`);
      expect(op.operationId, `${r.method} ${r.path}`).toBe(key);
      operations++;
      if (r.body) expect(op.requestBody, key).toBeDefined();
      for (const status of Object.keys(r.responses)) expect(op.responses[status], `${key} ${status}`).toBeDefined();
      for (const code of errorsOf(r)) {
        for (const status of statusesOf(code)) {
          const schema = JSON.stringify(op.responses[String(status)]?.content?.['application/json']?.schema);
          expect(schema, `${key}: ${code} under ${status}`).toContain(`"${code}"`);
        }
      }
    }
    expect(Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0)).toBe(operations);
    // Every $ref points at a component that exists.
    const text = JSON.stringify(doc);
    for (const m of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      expect(doc.components.schemas[m[1]!], m[1]).toBeDefined();
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Report', 'Item', 'Error', 'User']));
  });
});

describe('the route table', () => {
  it('names, for every route, a function that functions.ts declares (serverless.yml is generated from both)', () => {
    for (const [key, r] of routes) expect(Object.keys(FUNCTIONS), key).toContain(r.fn);
  });

  it('has one route per method and path', () => {
    const keys = routes.map(([, r]) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('the error catalogue', () => {
  it('gives every code an HTTP error status and a Russian message', () => {
    for (const code of ERROR_CODES) {
      for (const s of statusesOf(code)) expect(s >= 400 && s < 600, code).toBe(true);
      expect(ERRORS[code].message, code).toMatch(/^[А-ЯЁ][^a-z]*[а-яё][^]*[.!]$/);
    }
  });

  it('holds every code the file reader refuses with, and toAppError answers them with the catalogue status', () => {
    const readerCodes: Record<ReportErrorCode, true> = {
      unsupported_format: true,
      not_a_spreadsheet: true,
      file_too_large: true,
      zip_bomb: true,
      too_many_entries: true,
      too_many_rows: true,
      cell_too_long: true,
      no_report_in_zip: true,
      missing_headers: true,
      empty_report: true,
      corrupt_file: true,
      value_out_of_range: true,
    };
    for (const code of Object.keys(readerCodes) as ReportErrorCode[]) {
      const e = toAppError(new ReportError(code, 'x'));
      expect(e.status, code).toBe(statusOf(code as ErrorCode));
    }
    expect(toAppError(new ReportError('unsupported_format', 'x')).status).toBe(415);
    expect(toAppError(new ReportError('file_too_large', 'x')).status).toBe(413);
    expect(toAppError(new ReportError('corrupt_file', 'x')).status).toBe(422);
  });

  it('lists under each route only codes of the catalogue', () => {
    for (const [key, r] of routes) for (const c of errorsOf(r)) expect(ERROR_CODES, key).toContain(c);
    expect(new AppError(409, 'source_missing', 'x').code).toBe('source_missing');
  });
});
