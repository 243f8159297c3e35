/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the schemas with zod 4's
 * `z.toJSONSchema` (JSON Schema draft 2020-12, which OpenAPI 3.1 uses as is). Schemas with an `id`
 * (`.meta({id})`) become `components.schemas`; every route lists its error codes with their statuses.
 * `npm run openapi` writes it to docs/openapi.json; a unit test keeps that file current.
 */
import { z } from 'zod';
import { ERRORS, errorBodySchema, statusesOf, type ErrorCode } from './errors';
import { errorsOf, ROUTES, type RouteSpec } from './routes';

type Json = Record<string, unknown>;

const TITLE = 'Report Profitability Service API';
const VERSION = '1.0.0';

/**
 * One route's schema in OpenAPI form: its `$defs` hoisted into `components.schemas`. zod's output form
 * of an object forbids unknown keys and its input form does not, so a named schema used in requests
 * gets its own component `<Id>Input` when the two forms differ.
 */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Json): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override: tidy }) as Json;
  const defs = (json.$defs ?? {}) as Record<string, Json>;
  delete json.$defs;
  delete json.$schema;
  const names = new Map<string, string>();
  const nameFor = (id: string, def: Json): string => {
    if (io === 'output') return id;
    const known = components[id];
    return known === undefined || JSON.stringify(known) === JSON.stringify(def) ? id : `${id}Input`;
  };
  for (const [id, def] of Object.entries(defs)) names.set(id, nameFor(id, rewriteRefs(def, new Map()) as Json));
  for (const [id, def] of Object.entries(defs)) {
    const name = names.get(id) as string;
    const body = rewriteRefs(def, names) as Json;
    const known = components[name];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(body))
      throw new Error(`openapi: two different schemas are named ${name}`);
    components[name] = body;
  }
  const top = rewriteRefs(json, names) as Json;
  // A schema with an id at the top comes back as itself with the id: a component, referred to.
  if (typeof json.id === 'string') {
    const name = nameFor(json.id, top);
    components[name] = top;
    return { $ref: `#/components/schemas/${name}` };
  }
  return top;
}

/**
 * zod writes `additionalProperties: false` on every output object; the API may add fields to an
 * answer, so only `.strict()` objects (catchall never) keep it. Integers lose the ±2^53 bounds zod adds.
 */
function tidy(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }): void {
  const js = ctx.jsonSchema as Json;
  const def = ctx.zodSchema._zod.def as { type: string; catchall?: { _zod: { def: { type: string } } } };
  if (def.type === 'object' && js.additionalProperties === false && def.catchall?._zod.def.type !== 'never')
    delete js.additionalProperties;
  if (js.type === 'integer') {
    if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
    if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
  }
}

/** `#/$defs/X` → `#/components/schemas/<name of X>`; zod's `id` keys dropped (the component's name says it). */
function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') {
        const m = /^#\/\$defs\/(.+)$/.exec(v);
        out[k] = m ? `#/components/schemas/${names.get(m[1]!) ?? m[1]}` : v;
      } else if (k === 'id' && typeof v === 'string') continue;
      else out[k] = rewriteRefs(v, names);
    }
    return out;
  }
  return value;
}

/** `{a}` path parameters and `?x` query parameters from the route's object schemas. */
function parameters(r: RouteSpec, components: Json): Json[] {
  const out: Json[] = [];
  const add = (where: 'path' | 'query', schema: z.ZodType | undefined) => {
    if (!schema) return;
    const json = toSchema(schema, 'input', components);
    const props = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, s] of Object.entries(props)) {
      const { description, ...rest } = s;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  };
  add('path', r.params);
  add('query', r.query);
  return out;
}

function requestBody(r: RouteSpec, components: Json): Json | undefined {
  const content: Json = {};
  if (r.body) content['application/json'] = { schema: toSchema(r.body, 'input', components) };
  if (r.multipart) {
    const fields = r.body ? (toSchema(r.body, 'input', components) as Json) : { type: 'object', properties: {} };
    content['multipart/form-data'] = {
      schema: {
        type: 'object',
        properties: {
          ...((fields.properties as Json | undefined) ?? {}),
          file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file' },
        },
      },
    };
  }
  if (Object.keys(content).length === 0) return undefined;
  return { required: !(r.bodyOptional || r.multipart), content };
}

function responses(r: RouteSpec, components: Json): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(r.responses)) {
    const content = spec.schema
      ? { 'application/json': { schema: toSchema(spec.schema, 'output', components) } }
      : spec.contentType
        ? { [spec.contentType]: { schema: { type: 'string', contentMediaType: spec.contentType } } }
        : undefined;
    const headers = spec.headers
      ? Object.fromEntries(
          Object.entries(spec.headers).map(([name, description]) => [
            name,
            { description, schema: { type: 'string' } },
          ]),
        )
      : undefined;
    out[status] = { description: spec.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(r)) {
    const statuses = statusesOf(code);
    // A code with several statuses (source_missing) is listed under each; the route's description says which.
    for (const st of statuses) byStatus.set(st, [...(byStatus.get(st) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`).join('\n\n'),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/Error' },
              { properties: { error: { properties: { code: { enum: codes } } } } },
            ],
          },
        },
      },
    };
  }
  return out;
}

export function buildOpenApi(): Json {
  const components: Json = {};
  toSchema(errorBodySchema, 'output', components);
  const paths: Record<string, Json> = {};
  for (const [key, r] of Object.entries(ROUTES) as Array<[string, RouteSpec]>) {
    const op: Json = {
      operationId: key,
      tags: [r.tag],
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      ...(r.auth === 'none' ? { security: [] } : {}),
      ...(r.auth === 'admin' ? { 'x-required-role': 'admin' } : {}),
    };
    const params = parameters(r, components);
    if (params.length > 0) op.parameters = params;
    const body = requestBody(r, components);
    if (body) op.requestBody = body;
    op.responses = responses(r, components);
    (paths[r.path] ??= {})[r.method.toLowerCase()] = op;
  }
  const sorted: Json = {};
  for (const k of Object.keys(components).sort()) sorted[k] = components[k];
  return {
    openapi: '3.1.0',
    info: {
      title: TITLE,
      version: VERSION,
      description:
        'Per-article profitability of Wildberries detailed sales reports. Money in JSON is roubles with 2 decimals. Every error answers `{"error": {"code", "message", "details"}}` with a stable code; the codes of each route are listed under its error statuses. Generated from shared/contract by `npm run openapi`.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'auth', description: 'Accounts, sign-in, limits' },
      { name: 'reports', description: 'Uploading, reading, correcting, combining and exporting reports' },
      { name: 'catalog', description: 'Cost prices and sellers' },
      { name: 'wb', description: 'WB accounts connected with an API token: weekly reports imported by themselves' },
      { name: 'analytics', description: 'Period analytics across reports' },
      { name: 'cashflow', description: 'When WB’s money arrives, the balance, purchases of goods, money out by month' },
      { name: 'notifications', description: 'What the service tells a seller by mail and Telegram, and how often' },
      { name: 'app', description: 'The page’s settings' },
      { name: 'docs', description: 'This document' },
    ],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: sorted,
    },
  };
}

/** The document as committed: 2-space JSON with a final newline. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}
