import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../shared/store/table';

/**
 * `serverless package` (what `npm run package` runs) must work on a machine with no AWS
 * credentials and no network, and its CloudFormation template must carry every route of API.md,
 * the table of shared/store/table.ts and a private bucket. Each function's zip is loaded the way
 * the Lambda runtime loads it.
 */
const root = path.resolve(__dirname, '..', '..');

/** Every route of shared/docs API.md, path parameters as serverless.yml names them. */
const ROUTES: Array<[string, string, string]> = [
  ['POST', '/api/auth/register', 'authRegister'],
  ['GET', '/api/auth/confirm', 'authConfirm'],
  ['POST', '/api/auth/login', 'authLogin'],
  ['GET', '/api/auth/me', 'authMe'],
  ['PATCH', '/api/auth/me', 'authUpdateMe'],
  ['POST', '/api/auth/forgot-password', 'authForgotPassword'],
  ['GET', '/api/auth/limit-history', 'authLimitHistory'],
  ['POST', '/api/auth/top-up', 'authTopUp'],
  ['POST', '/api/reports/upload-url', 'reportsUploadUrl'],
  ['POST', '/api/reports/count-rows', 'reportsCountRows'],
  ['POST', '/api/reports/upload', 'reportsUpload'],
  ['GET', '/api/reports', 'reportsList'],
  ['GET', '/api/reports/{id}', 'reportsGet'],
  ['DELETE', '/api/reports/{id}', 'reportsDelete'],
  ['PUT', '/api/reports/items/{item_id}/manual-value', 'reportsManualValue'],
  ['POST', '/api/reports/{id}/rebuild', 'reportsRebuildOne'],
  ['POST', '/api/reports/rebuild', 'reportsRebuildMany'],
  ['POST', '/api/reports/combine', 'reportsCombine'],
  ['GET', '/api/reports/combine-status/{job_id}', 'reportsCombine'],
  ['GET', '/api/reports/{id}/export', 'reportsExport'],
  ['GET', '/api/reports/{id}/source', 'reportsSource'],
  ['POST', '/api/reports/summary-export', 'reportsSummaryExport'],
  ['GET', '/api/products', 'productsList'],
  ['PUT', '/api/products/{article}', 'productsPut'],
  ['POST', '/api/products/import', 'productsImport'],
  ['GET', '/api/sellers', 'sellersList'],
  ['PATCH', '/api/sellers/{id}', 'sellersUpdate'],
];

const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');

// The template is untyped JSON; the assertions themselves check its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Template = { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };

let outDir: string;
let workFolder: string;
let template: Template;
let result: { status: number | null; output: string };

function ofType(type: string) {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}

async function unzip(zipFile: string, dest: string): Promise<string[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zipFile, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z!))),
  );
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      names.push(entry.fileName);
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const target = path.join(dest, entry.fileName);
          mkdirSync(path.dirname(target), { recursive: true });
          writeFileSync(target, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return names;
}

/** The Lambda Node.js runtime's rule: split the handler's base name at its FIRST dot. */
function loadLikeLambda(codeDir: string, handler: string): unknown {
  const dir = path.dirname(handler);
  const base = path.basename(handler);
  const moduleName = base.slice(0, base.indexOf('.'));
  const nested = base.slice(base.indexOf('.') + 1);
  const candidates = ['', '.js', '.mjs', '.cjs'].map((ext) => path.join(codeDir, dir, moduleName + ext));
  const file = candidates.find((f) => existsSync(f));
  if (!file) throw new Error(`Runtime.ImportModuleError: no ${moduleName}(.js) for ${handler}`);
  const mod = createRequire(__filename)(file) as Record<string, unknown>;
  return nested.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], mod);
}

describe('npm run package (offline, no AWS credentials)', () => {
  beforeAll(() => {
    outDir = path.join(os.tmpdir(), `rp-package-${randomUUID()}`);
    workFolder = path.join('.esbuild', `package-${randomUUID().slice(0, 8)}`);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AWS_')) env[k] = v;
    Object.assign(env, {
      AWS_CONFIG_FILE: path.join(outDir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(outDir, 'no-aws-credentials'),
      ESBUILD_WORK_FOLDER: workFolder,
      SLS_TELEMETRY_DISABLED: '1',
      FORCE_COLOR: '0',
    });
    const r = spawnSync(process.execPath, [require.resolve('osls/bin/serverless.js'), 'package', '--stage', 'prod', '--region', 'eu-central-1', '--package', outDir], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 280_000,
    });
    result = { status: r.status, output: `${r.stdout}\n${r.stderr}` };
    if (r.status === 0) template = JSON.parse(readFileSync(path.join(outDir, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
  });

  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
    rmSync(path.join(root, workFolder), { recursive: true, force: true });
  });

  it('succeeds and writes the CloudFormation template', () => {
    expect(result.output).not.toMatch(/credentials|Error/i);
    expect(result.status).toBe(0);
    expect(existsSync(path.join(outDir, 'cloudformation-template-update-stack.json'))).toBe(true);
  });

  it('lists exactly the routes of API.md, each served by its own function (combine: one for both)', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    expect(routes.sort()).toEqual(ROUTES.map(([m, p]) => `${m} ${p}`).sort());
    // Which function serves each route: route → integration → function.
    const integrationTarget = new Map(
      ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, (r.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]]),
    );
    const servedBy = new Map(
      ofType('AWS::ApiGatewayV2::Route').map(([, r]) => {
        const target = (r.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
        const integration = (target[1] as { Ref: string }).Ref;
        return [r.Properties.RouteKey as string, integrationTarget.get(integration)];
      }),
    );
    for (const [m, p, fn] of ROUTES) {
      expect(servedBy.get(`${m} ${p}`), `${m} ${p}`).toBe(`${fn[0].toUpperCase()}${fn.slice(1)}LambdaFunction`);
    }
    expect(ofType('AWS::Lambda::Function')).toHaveLength(new Set(ROUTES.map(([, , f]) => f)).size);
  });

  it('matches the routes the handbook lists, when the handbook is beside the repository', () => {
    const apiMd = path.resolve(root, '..', 'shared', 'docs', 'API.md');
    if (!existsSync(apiMd)) return;
    const documented = new Set<string>();
    for (const m of readFileSync(apiMd, 'utf8').matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?\s]*)/g)) {
      documented.add(`${m[1]} ${shape(m[2])}`);
    }
    expect([...documented].sort()).toEqual([...new Set(ROUTES.map(([m, p]) => `${m} ${shape(p)}`))].sort());
  });

  it('declares the table of shared/store/table.ts with point-in-time recovery and TTL on `ttl`', () => {
    const [[, table]] = ofType('AWS::DynamoDB::Table');
    const def = tableDefinition('x');
    const p = table.Properties;
    expect(p.TableName).toBe('report-profitability-prod');
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.KeySchema).toEqual(def.KeySchema);
    expect(p.AttributeDefinitions).toEqual(def.AttributeDefinitions);
    expect(p.GlobalSecondaryIndexes).toEqual(def.GlobalSecondaryIndexes);
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
  });

  it('declares a private, encrypted bucket that lets the web page PUT and expires abandoned uploads', () => {
    const bucketId = 'FilesBucket';
    const p = template.Resources[bucketId].Properties;
    expect(p.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(p.CorsConfiguration.CorsRules[0].AllowedMethods).toEqual(expect.arrayContaining(['PUT', 'GET', 'HEAD']));
    expect(p.CorsConfiguration.CorsRules[0].ExposedHeaders).toContain('ETag');
    // The framework's deployment bucket is private too.
    expect(template.Resources.ServerlessDeploymentBucket.Properties.PublicAccessBlockConfiguration).toEqual(p.PublicAccessBlockConfiguration);
    expect(p.LifecycleConfiguration.Rules).toContainEqual(expect.objectContaining({ Prefix: 'uploads/', ExpirationInDays: 2, Status: 'Enabled' }));
    // Functions get the generated name by Ref, and the secret through a deploy-time reference.
    const fn = template.Resources.ReportsGetLambdaFunction.Properties;
    expect(fn.Environment.Variables.BUCKET_NAME).toEqual({ Ref: bucketId });
    expect(fn.Environment.Variables.JWT_SECRET).toBe('{{resolve:secretsmanager:report-profitability/prod/jwt-secret}}');
  });

  it('gives every function a role of its group, none with wildcard resources', () => {
    const roles = new Map(ofType('AWS::IAM::Role'));
    for (const [alias, fn] of ofType('AWS::Lambda::Function')) {
      const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const group = alias.startsWith('Auth') ? 'AuthRole' : alias.startsWith('Reports') ? 'ReportsRole' : 'CatalogRole';
      expect(roleId, alias).toBe(group);
    }
    const actions = (roleId: string) =>
      (roles.get(roleId)!.Properties.Policies as Array<{ PolicyDocument: { Statement: Array<{ Action: string[]; Resource: unknown[] }> } }>).flatMap((p) =>
        p.PolicyDocument.Statement.flatMap((s) => {
          expect(JSON.stringify(s.Resource)).not.toMatch(/"\*"/);
          return s.Action;
        }),
      );
    expect(actions('AuthRole')).toContain('ses:SendEmail');
    expect(actions('AuthRole').some((a) => a.startsWith('s3:'))).toBe(false);
    expect(actions('ReportsRole')).toEqual(expect.arrayContaining(['s3:PutObject', 's3:GetObject', 'dynamodb:Query']));
    expect(actions('ReportsRole')).not.toContain('ses:SendEmail');
    expect(actions('CatalogRole')).not.toContain('s3:PutObject');
  });

  it('packs each function so that the Lambda runtime finds its handler', async () => {
    // Extract inside the repository so the bundles resolve the AWS SDK (excluded: the runtime has it).
    const codeRoot = path.join(root, workFolder, 'unzipped');
    const zips = readdirSync(outDir).filter((f) => f.endsWith('.zip'));
    expect(zips).toHaveLength(new Set(ROUTES.map(([, , f]) => f)).size);
    for (const [alias, fn] of ofType('AWS::Lambda::Function')) {
      const handler = fn.Properties.Handler as string;
      const zipName = path.basename((fn.Properties.Code.S3Key as string));
      const dest = path.join(codeRoot, alias);
      const names = await unzip(path.join(outDir, zipName), dest);
      // Only this function's bundle (no other function's code, no node_modules).
      expect(names.filter((n) => n.endsWith('.handler.js')), alias).toEqual([handler.slice(0, handler.lastIndexOf('.')) + '.js']);
      expect(names.some((n) => n.startsWith('node_modules/')), alias).toBe(false);
      expect(typeof loadLikeLambda(dest, handler), `${alias}: ${handler}`).toBe('function');
    }
  });
});
