/**
 * What each function's bundle may hold (docs/PERFORMANCE.md, Bundles), read from esbuild's metafile of
 * the bundles `npm run bundles` builds with serverless-esbuild's settings — not from a kept size:
 * - an AWS SDK client only where the function's IAM role (serverless.yml) has an action of its service:
 *   a client the function may not call is dead weight loaded at every cold start;
 * - the spreadsheet libraries only in the functions that read or write spreadsheets.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundles, roleActions, type Bundle } from './bundles';

/** AWS SDK clients (externals: the Lambda runtime provides them) and the IAM service they call. */
const CLIENT_SERVICE: Record<string, string> = {
  '@aws-sdk/client-s3': 's3',
  '@aws-sdk/s3-request-presigner': 's3',
  '@aws-sdk/client-sesv2': 'ses',
  '@aws-sdk/client-lambda': 'lambda',
  '@aws-sdk/client-dynamodb': 'dynamodb',
  '@aws-sdk/lib-dynamodb': 'dynamodb',
};

/** The functions that may carry each library; every other function must not. */
const LIBRARY_USERS: Record<string, string[]> = {
  // writes .xlsx: the report export, the analytics export, the P&L export and the cash flow's
  exceljs: ['reportsExport', 'analyticsExport', 'pnlExport', 'cashFlowExport'],
  // reads .xls/.xlsx reports, catalog and own-costs files; writes the legacy .xls summary
  '@e965/xlsx': [
    'reportsCountRows',
    'reportsUpload',
    'reportsRebuildOne',
    'reportsRebuildMany',
    'reportsWorker',
    'reportsSummaryExport',
    'productsImport',
    // the period-cost import reads csv with the catalog import's helpers (shared/catalog/import-file.ts)
    'periodCosts',
    'ownCostsImport',
  ],
};

/** The packages a bundle holds or requires, by name (`@aws-sdk/client-s3`, `exceljs`). */
function packagesOf(b: Bundle): Set<string> {
  const pkg = (p: string) =>
    p
      .split('/')
      .slice(0, p.startsWith('@') ? 2 : 1)
      .join('/');
  return new Set([...b.inputs.map((i) => i.module), ...b.externals.map(pkg)]);
}

/** The packages of `b` that break a rule. */
function breaches(b: Bundle, actions: Set<string>): string[] {
  const held = packagesOf(b);
  const out: string[] = [];
  for (const [client, service] of Object.entries(CLIENT_SERVICE))
    if (held.has(client) && ![...actions].some((a) => a.startsWith(`${service}:`))) out.push(client);
  for (const [lib, users] of Object.entries(LIBRARY_USERS)) if (held.has(lib) && !users.includes(b.name)) out.push(lib);
  return out.sort();
}

let bundles: Bundle[];
let actions: Map<string, Set<string>>;

beforeAll(async () => {
  actions = roleActions();
  bundles = await buildBundles();
}, 300_000);

describe('function bundles (esbuild metafile)', () => {
  it('every function of serverless.yml is built, each with a role', () => {
    expect(bundles.length).toBeGreaterThan(30);
    for (const b of bundles) expect(actions.get(b.name)?.size, b.name).toBeGreaterThan(0);
  });

  it('no function carries an AWS SDK client its role cannot use, nor a spreadsheet library it does not use', () => {
    const found: Record<string, string[]> = {};
    for (const b of bundles) {
      const list = breaches(b, actions.get(b.name)!);
      if (list.length > 0) found[b.name] = list;
    }
    expect(found).toEqual({});
  });

  it('the auth functions carry neither spreadsheet library; only the mailing ones load SES', () => {
    for (const b of bundles.filter((x) => x.name.startsWith('auth'))) {
      const held = packagesOf(b);
      expect(held.has('exceljs') || held.has('@e965/xlsx'), b.name).toBe(false);
      expect(held.has('@aws-sdk/client-sesv2'), b.name).toBe(
        ['authRegister', 'authConfirm', 'authForgotPassword'].includes(b.name),
      );
    }
  });

  it('the rules see what they look for: the worker holds SheetJS and requires the S3 client', () => {
    const worker = packagesOf(bundles.find((b) => b.name === 'reportsWorker')!);
    expect(worker.has('@e965/xlsx')).toBe(true);
    expect(worker.has('@aws-sdk/client-s3')).toBe(true);
    expect(breaches({ ...bundles.find((b) => b.name === 'reportsWorker')!, name: 'authLogin' }, new Set())).toEqual(
      expect.arrayContaining(['@e965/xlsx', '@aws-sdk/client-s3']),
    );
  });
});
