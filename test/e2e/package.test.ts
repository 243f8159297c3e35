import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ROUTES as CONTRACT_ROUTES } from '../../shared/contract/routes';
import { tableDefinition } from '../../shared/store/table';
import { MAIL, WORKER, resourceName } from '../support/cfn';

/**
 * `serverless package` (what `npm run package` runs) must work on a machine with no AWS
 * credentials and no network, and its CloudFormation template must carry every route of docs/API.md,
 * the table of shared/store/table.ts and a private bucket. Each function's zip is loaded the way
 * the Lambda runtime loads it.
 */
const root = path.resolve(__dirname, '..', '..');

/** Every route of the contract (shared/contract/routes.ts): method, path as serverless.yml names it, function. */
const ROUTES: Array<[string, string, string]> = Object.values(CONTRACT_ROUTES).map((r) => [r.method, r.path, r.fn]);

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
    const r = spawnSync(
      process.execPath,
      [
        require.resolve('osls/bin/serverless.js'),
        'package',
        '--stage',
        'prod',
        '--region',
        'eu-central-1',
        '--package',
        outDir,
      ],
      {
        cwd: root,
        env,
        encoding: 'utf8',
        timeout: 280_000,
      },
    );
    result = { status: r.status, output: `${r.stdout}\n${r.stderr}` };
    if (r.status === 0)
      template = JSON.parse(
        readFileSync(path.join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'),
      ) as Template;
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

  it('lists exactly the routes of docs/API.md, each served by its own function (combine: one for both)', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    expect(routes.sort()).toEqual(ROUTES.map(([m, p]) => `${m} ${p}`).sort());
    // Which function serves each route: route → integration → function.
    const integrationTarget = new Map(
      ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [
        id,
        (r.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0],
      ]),
    );
    const servedBy = new Map(
      ofType('AWS::ApiGatewayV2::Route').map(([, r]) => {
        const target = (r.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
        const integration = (target[1] as { Ref: string }).Ref;
        return [r.Properties.RouteKey as string, integrationTarget.get(integration)];
      }),
    );
    for (const [m, p, fn] of ROUTES) {
      expect(servedBy.get(`${m} ${p}`), `${m} ${p}`).toBe(`${fn[0]!.toUpperCase()}${fn.slice(1)}LambdaFunction`);
    }
    // Plus the report worker and the recovery sweep, which serve no route.
    expect(ofType('AWS::Lambda::Function')).toHaveLength(new Set(ROUTES.map(([, , f]) => f)).size + 2);
  });

  it('matches the routes docs/API.md documents, one heading per route', () => {
    const apiMd = readFileSync(path.join(root, 'docs', 'API.md'), 'utf8');
    const documented = [...apiMd.matchAll(/^### `(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?\s]*)/gm)].map(
      (m) => `${m[1]} ${shape(m[2]!)}`,
    );
    expect(documented.length).toBe(new Set(documented).size);
    expect(documented.sort()).toEqual([...new Set(ROUTES.map(([m, p]) => `${m} ${shape(p)}`))].sort());
  });

  it('declares the table of shared/store/table.ts with point-in-time recovery and TTL on `ttl`', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
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

  it('throttles every route at the stage, and the expensive and sign-in routes tighter (routes created first)', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const [, stage] = stages[0]!;
    const props = stage.Properties as {
      DefaultRouteSettings: { ThrottlingRateLimit: number; ThrottlingBurstLimit: number };
      RouteSettings: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    };
    expect(props.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    const limited = [
      'POST /api/reports/upload',
      'POST /api/reports/count-rows',
      'POST /api/products/import',
      'GET /api/reports/{id}/export',
      'POST /api/reports/summary-export',
      'POST /api/auth/login',
      'POST /api/auth/register',
      'POST /api/auth/forgot-password',
    ];
    const routeIds = new Map(
      ofType('AWS::ApiGatewayV2::Route').map(([id, r]) => [r.Properties.RouteKey as string, id]),
    );
    const dependsOn = new Set((stage as { DependsOn?: string[] }).DependsOn ?? []);
    for (const key of limited) {
      const s = props.RouteSettings[key]!;
      expect(s, key).toBeDefined();
      expect(s.ThrottlingRateLimit).toBeLessThan(props.DefaultRouteSettings.ThrottlingRateLimit);
      expect(s.ThrottlingBurstLimit).toBeGreaterThanOrEqual(s.ThrottlingRateLimit);
    }
    // Every throttled route exists, and the stage waits for it (else CloudFormation cannot find it).
    for (const key of Object.keys(props.RouteSettings)) {
      expect(routeIds.has(key), key).toBe(true);
      expect(dependsOn.has(routeIds.get(key)!), key).toBe(true);
    }
  });

  it('declares a private, encrypted bucket that lets the web page PUT and expires abandoned uploads', () => {
    const bucketId = 'FilesBucket';
    const p = template.Resources[bucketId]!.Properties;
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
      'AES256',
    );
    expect(p.CorsConfiguration.CorsRules[0].AllowedMethods).toEqual(expect.arrayContaining(['PUT', 'GET', 'HEAD']));
    expect(p.CorsConfiguration.CorsRules[0].ExposedHeaders).toContain('ETag');
    // The framework's deployment bucket is private too.
    expect(template.Resources.ServerlessDeploymentBucket!.Properties.PublicAccessBlockConfiguration).toEqual(
      p.PublicAccessBlockConfiguration,
    );
    expect(p.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ Prefix: 'uploads/', ExpirationInDays: 2, Status: 'Enabled' }),
    );
    // Functions get the generated name by Ref, and the secret through a deploy-time reference.
    const fn = template.Resources.ReportsGetLambdaFunction!.Properties;
    expect(fn.Environment.Variables.BUCKET_NAME).toEqual({ Ref: bucketId });
    expect(fn.Environment.Variables.JWT_SECRET).toBe('{{resolve:secretsmanager:report-profitability/prod/jwt-secret}}');
  });

  /**
   * Least privilege, one role per function (serverless.yml): what each function may do is exactly
   * what its code does. The resources are written as their CloudFormation references
   * (`Table`, `Table/index/gsi2`, `FilesBucket/uploads/*`, `ses:identity`).
   */
  describe('IAM: one role per function, only what its code does', () => {
    const TABLE = 'Table';
    const GSI1 = 'Table/index/gsi1';
    const GSI2 = 'Table/index/gsi2';
    const UPLOADS = 'FilesBucket/uploads/*';
    const SOURCES = 'FilesBucket/sources/*';
    const db = (...actions: string[]) => actions.map((a) => `dynamodb:${a}`);
    const s3 = (...actions: string[]) => actions.map((a) => `s3:${a}`);
    const mail = ['ses:SendEmail'];
    const invoke = ['lambda:InvokeFunction'];
    const QUEUE = 'WorkerFailuresQueue';

    /** Every function's permissions besides its own log group: resource → actions. */
    const EXPECTED: Record<string, Record<string, string[]>> = {
      authRegister: { [TABLE]: db('GetItem', 'PutItem'), [MAIL]: mail },
      authConfirm: { [TABLE]: db('GetItem', 'PutItem', 'UpdateItem'), [MAIL]: mail },
      authLogin: { [TABLE]: db('GetItem', 'PutItem', 'DeleteItem') },
      authMe: { [TABLE]: db('GetItem') },
      authUpdateMe: { [TABLE]: db('GetItem', 'UpdateItem') },
      authForgotPassword: { [TABLE]: db('GetItem', 'PutItem'), [MAIL]: mail },
      authLimitHistory: { [TABLE]: db('GetItem', 'Query', 'BatchGetItem') },
      authTopUp: { [TABLE]: db('GetItem', 'PutItem', 'UpdateItem') },
      authChangePassword: { [TABLE]: db('GetItem', 'UpdateItem') },
      appConfig: {},
      reportsUploadUrl: { [TABLE]: db('GetItem', 'PutItem'), [UPLOADS]: s3('PutObject') },
      reportsCountRows: { [TABLE]: db('GetItem', 'Query', 'UpdateItem'), [UPLOADS]: s3('GetObject') },
      reportsUpload: {
        [TABLE]: db('GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
        // gsi1: the sweep of an abandoned upload asks whether its on-demand seller is still referred to
        [GSI1]: db('Query'),
        [GSI2]: db('Query'),
        [UPLOADS]: s3('GetObject', 'DeleteObject'),
        [SOURCES]: s3('PutObject', 'DeleteObject'),
        [WORKER]: invoke,
      },
      reportsList: { [TABLE]: db('GetItem', 'Query'), [GSI1]: db('Query') },
      reportsSweep: {
        [TABLE]: db('GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
        [GSI1]: db('Query'),
        [GSI2]: db('Scan'),
        [SOURCES]: s3('DeleteObject'),
        [WORKER]: invoke,
      },
      reportsGet: { [TABLE]: db('GetItem', 'BatchGetItem', 'Query') },
      reportsDelete: { [TABLE]: db('GetItem', 'Query', 'DeleteItem', 'BatchWriteItem'), [SOURCES]: s3('DeleteObject') },
      reportsUpdate: { [TABLE]: db('GetItem', 'UpdateItem') },
      reportsManualValue: { [TABLE]: db('GetItem', 'Query', 'UpdateItem', 'PutItem') },
      reportsRebuildOne: { [TABLE]: db('GetItem', 'Query', 'UpdateItem'), [WORKER]: invoke },
      reportsRebuildMany: { [TABLE]: db('GetItem', 'Query', 'UpdateItem'), [WORKER]: invoke },
      reportsWorker: {
        [TABLE]: db('GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
        [GSI1]: db('Query'),
        [SOURCES]: s3('GetObject', 'DeleteObject'),
        [WORKER]: invoke,
        [QUEUE]: ['sqs:SendMessage'],
      },
      reportsExport: { [TABLE]: db('GetItem', 'Query') },
      reportsSource: { [TABLE]: db('GetItem'), [SOURCES]: s3('GetObject') },
      reportsSummaryExport: { [TABLE]: db('GetItem', 'Query') },
      reportsCombine: { [TABLE]: db('GetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem') },
      productsList: { [TABLE]: db('GetItem', 'Query') },
      productsPut: { [TABLE]: db('GetItem', 'PutItem') },
      productsImport: { [TABLE]: db('GetItem', 'BatchGetItem', 'BatchWriteItem') },
      sellersList: { [TABLE]: db('GetItem', 'Query') },
      sellersUpdate: { [TABLE]: db('GetItem', 'UpdateItem') },
      // Its own log group only: the document is in the bundle.
      apiOpenapi: {},
      analyticsGet: { [TABLE]: db('GetItem', 'Query', 'PutItem') },
      analyticsExport: { [TABLE]: db('GetItem', 'Query', 'PutItem') },
    };

    type Statement = {
      Effect: string;
      Action: string | string[];
      Resource: unknown;
      Principal?: unknown;
      Condition?: unknown;
    };
    const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);
    const alias = (fn: string) => `${fn[0]!.toUpperCase()}${fn.slice(1)}`;

    function roleOf(fn: string): { id: string; role: Template['Resources'][string] } {
      const f = template.Resources[`${alias(fn)}LambdaFunction`]!;
      const id = (f.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      return { id, role: template.Resources[id]! };
    }

    function statementsOf(fn: string): Statement[] {
      const policies = (roleOf(fn).role.Properties.Policies ?? []) as Array<{
        PolicyDocument: { Statement: Statement[] };
      }>;
      return policies.flatMap((p) => p.PolicyDocument.Statement);
    }

    /** resource → sorted actions, over every statement except the log group's. */
    function permissions(fn: string): Record<string, string[]> {
      const out: Record<string, Set<string>> = {};
      for (const s of statementsOf(fn)) {
        if (list(s.Action).every((a) => a.startsWith('logs:'))) continue;
        for (const r of list(s.Resource)) {
          const name = resourceName(r);
          out[name] ??= new Set();
          for (const a of list(s.Action)) out[name].add(a);
        }
      }
      return Object.fromEntries(Object.entries(out).map(([r, a]) => [r, [...a].sort()]));
    }
    const allActions = (fn: string) => statementsOf(fn).flatMap((s) => list(s.Action));
    const functions = () => [...new Set(ROUTES.map(([, , f]) => f)), 'reportsWorker', 'reportsSweep'];

    it('gives every function a role of its own, assumable by Lambda only, with no managed policies', () => {
      expect(Object.keys(EXPECTED).sort()).toEqual(functions().sort());
      const roleIds = functions().map((fn) => roleOf(fn).id);
      expect(new Set(roleIds).size).toBe(roleIds.length);
      for (const fn of functions()) {
        const { id, role } = roleOf(fn);
        expect(id, fn).toBe(`${alias(fn)}Role`);
        expect(role.Type).toBe('AWS::IAM::Role');
        expect(role.Properties.ManagedPolicyArns, fn).toBeUndefined();
        expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
          { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ]);
      }
      // No role left unused (e.g. the framework's default role, or an old group role).
      expect(
        ofType('AWS::IAM::Role')
          .map(([id]) => id)
          .sort(),
      ).toEqual([...roleIds].sort());
    });

    it('lets each function write its own log group and no other', () => {
      for (const fn of functions()) {
        const logStatements = statementsOf(fn).filter((s) => list(s.Action).some((a) => a.startsWith('logs:')));
        expect(logStatements, fn).toEqual([
          {
            Effect: 'Allow',
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: { 'Fn::GetAtt': [`${alias(fn)}LogGroup`, 'Arn'] },
          },
        ]);
        const group = template.Resources[`${alias(fn)}LogGroup`]!;
        expect(group.Type).toBe('AWS::Logs::LogGroup');
        expect(group.Properties.LogGroupName).toBe(
          `/aws/lambda/${template.Resources[`${alias(fn)}LambdaFunction`]!.Properties.FunctionName as string}`,
        );
      }
    });

    it('has no wildcard action, no wildcard resource and only Allow statements', () => {
      for (const fn of functions()) {
        for (const s of statementsOf(fn)) {
          expect(s.Effect, fn).toBe('Allow');
          expect(s.Principal ?? s.Condition, fn).toBeUndefined();
          for (const a of list(s.Action)) expect(a, fn).toMatch(/^[a-z0-9]+:[A-Za-z]+$/);
          for (const r of list(s.Resource)) {
            const name = resourceName(r);
            // The only wildcards are the object keys under one of the bucket's two prefixes.
            if (name.includes('*')) expect([UPLOADS, SOURCES], `${fn}: ${name}`).toContain(name);
          }
        }
      }
    });

    it('grants each function exactly the table actions, indexes, bucket prefixes and mail its code uses', () => {
      for (const fn of functions()) {
        const want = Object.fromEntries(Object.entries(EXPECTED[fn]!).map(([r, a]) => [r, [...a].sort()]));
        expect(permissions(fn), fn).toEqual(want);
      }
    });

    it('keeps to the shape of the data: indexes are only queried, nothing scans, describes or lists (but the sweep, the sparse pending index)', () => {
      for (const fn of functions()) {
        const p = permissions(fn);
        // The recovery sweep reads every user's pending reports: a Scan of gsi2, which holds nothing else.
        const scansPending = fn === 'reportsSweep';
        for (const index of [GSI1, GSI2])
          if (p[index])
            expect(p[index], fn).toEqual([scansPending && index === GSI2 ? 'dynamodb:Scan' : 'dynamodb:Query']);
        expect(
          Object.keys(p)
            .filter((r) => r.startsWith('Table/'))
            .every((r) => r === GSI1 || r === GSI2),
          fn,
        ).toBe(true);
        for (const banned of [
          ...(scansPending ? [] : ['dynamodb:Scan']),
          'dynamodb:DescribeTable',
          'dynamodb:DeleteTable',
          's3:ListBucket',
          'logs:CreateLogGroup',
        ]) {
          expect(allActions(fn), fn).not.toContain(banned);
        }
      }
    });

    it('gives S3 only to the functions that touch the bucket, and mail only to register, confirm and forgot-password', () => {
      const usesS3 = functions().filter((fn) => allActions(fn).some((a) => a.startsWith('s3:')));
      expect(usesS3.sort()).toEqual(
        [
          'reportsUploadUrl',
          'reportsCountRows',
          'reportsUpload',
          'reportsSweep',
          'reportsDelete',
          'reportsSource',
          'reportsWorker',
        ].sort(),
      );
      const mails = functions().filter((fn) => allActions(fn).some((a) => a.startsWith('ses:')));
      expect(mails.sort()).toEqual(['authConfirm', 'authForgotPassword', 'authRegister']);
      for (const fn of functions()) {
        const resources = Object.keys(permissions(fn));
        expect(
          resources.filter((r) => r.startsWith('FilesBucket')).every((r) => r === UPLOADS || r === SOURCES),
          fn,
        ).toBe(true);
        expect(
          resources.every(
            (r) =>
              r === TABLE ||
              r.startsWith('Table/') ||
              r.startsWith('FilesBucket/') ||
              r === MAIL ||
              r === WORKER ||
              r === QUEUE,
          ),
          fn,
        ).toBe(true);
      }
    });

    it('spot checks: reading a report needs no bucket and no mail; uploads and the catalog import as their code does', () => {
      expect(allActions('reportsGet').some((a) => a.startsWith('s3:') || a.startsWith('ses:'))).toBe(false);
      expect(permissions('reportsUpload')[SOURCES]).toContain('s3:PutObject');
      expect(permissions('reportsUpload')[UPLOADS]).not.toContain('s3:PutObject');
      // The presigned PUT the browser sends is authorised by the signer's role.
      expect(permissions('reportsUploadUrl')).toEqual({
        [TABLE]: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        [UPLOADS]: ['s3:PutObject'],
      });
      // The catalog import reads its file from the multipart body, never from the bucket.
      expect(allActions('productsImport').some((a) => a.startsWith('s3:'))).toBe(false);
      // Deleting a report removes its source object; it never reads the bucket.
      expect(permissions('reportsDelete')[SOURCES]).toEqual(['s3:DeleteObject']);
    });

    it('lets only the routes that hand work to the worker (and the worker, for its retry, and the recovery sweep) invoke it, and nothing else', () => {
      const invokers = functions().filter((fn) => allActions(fn).some((a) => a.startsWith('lambda:')));
      expect(invokers.sort()).toEqual(
        ['reportsUpload', 'reportsSweep', 'reportsRebuildOne', 'reportsRebuildMany', 'reportsWorker'].sort(),
      );
      for (const fn of invokers)
        expect(Object.keys(permissions(fn)).filter((r) => r.startsWith('function:'))).toEqual([WORKER]);
      // The ARN names the worker as deployed for this stage.
      const statement = statementsOf('reportsUpload').find((st) => list(st.Action).includes('lambda:InvokeFunction'));
      const joined = JSON.stringify(statement?.Resource);
      expect(joined).toContain(':function:report-profitability-prod-reportsWorker');
    });
  });

  describe('the report worker and the combine function on Lambda', () => {
    const fnOf = (alias: string) => template.Resources[`${alias}LambdaFunction`];

    it('declares the worker with minutes of timeout, its own memory, two async retries and an on-failure queue', () => {
      const worker = fnOf('ReportsWorker');
      expect(worker!.Properties.Timeout).toBe(900);
      expect(worker!.Properties.MemorySize).toBe(3008);
      expect(worker!.Properties.FunctionName).toBe('report-profitability-prod-reportsWorker');
      const configs = ofType('AWS::Lambda::EventInvokeConfig').filter(
        ([, r]) => (r.Properties.FunctionName as { Ref: string }).Ref === 'ReportsWorkerLambdaFunction',
      );
      expect(configs).toHaveLength(1);
      const props = configs[0]![1].Properties;
      expect(props.MaximumRetryAttempts).toBe(2);
      expect(props.DestinationConfig).toEqual({
        OnFailure: { Destination: { 'Fn::GetAtt': ['WorkerFailuresQueue', 'Arn'] } },
      });
      expect(template.Resources.WorkerFailuresQueue!.Type).toBe('AWS::SQS::Queue');
      // Every function knows the worker by the name it is deployed under.
      for (const fn of ['ReportsUpload', 'ReportsSweep', 'ReportsRebuildOne', 'ReportsRebuildMany', 'ReportsWorker'])
        expect(fnOf(fn)!.Properties.Environment.Variables.WORKER_FUNCTION_NAME, fn).toBe(
          'report-profitability-prod-reportsWorker',
        );
      // The test hook is off outside the local stage.
      expect(worker!.Properties.Environment.Variables.WORKER_FAULT).toBe('');
    });

    it('runs the recovery sweep every 5 minutes on an EventBridge schedule', () => {
      const rules = ofType('AWS::Events::Rule').filter(([, r]) =>
        JSON.stringify(r.Properties.Targets).includes('ReportsSweepLambdaFunction'),
      );
      expect(rules).toHaveLength(1);
      expect(rules[0]![1].Properties.ScheduleExpression).toBe('rate(5 minutes)');
    });

    it('keeps the combine function to one execution environment (reserved concurrency 1), so its job registry is one', () => {
      expect(fnOf('ReportsCombine')!.Properties.ReservedConcurrentExecutions).toBe(1);
      // Only combine: reserving for others would take from the account's pool for nothing.
      const reserved = ofType('AWS::Lambda::Function').filter(
        ([, r]) => r.Properties.ReservedConcurrentExecutions !== undefined,
      );
      expect(reserved.map(([id]) => id)).toEqual(['ReportsCombineLambdaFunction']);
    });
  });

  it('packs each function so that the Lambda runtime finds its handler', async () => {
    // Extract inside the repository so the bundles resolve the AWS SDK (excluded: the runtime has it).
    const codeRoot = path.join(root, workFolder, 'unzipped');
    const zips = readdirSync(outDir).filter((f) => f.endsWith('.zip'));
    expect(zips).toHaveLength(new Set(ROUTES.map(([, , f]) => f)).size + 2);
    // A handler parses its settings as it loads (cold start), as on Lambda, where the template's
    // environment is set: give the loader one of the same shape (values are never used).
    const deployed: Record<string, string> = {
      JWT_SECRET: 'packaging-test-secret-0123456789',
      TABLE_NAME: 'report-profitability-prod',
      BUCKET_NAME: 'report-profitability-prod-files',
      MAIL_FROM: 'no-reply@example.org',
      APP_URL: 'https://app.example.org',
    };
    const saved = Object.fromEntries(Object.keys(deployed).map((k) => [k, process.env[k]]));
    Object.assign(process.env, deployed);
    onTestFinished(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
    for (const [alias, fn] of ofType('AWS::Lambda::Function')) {
      const handler = fn.Properties.Handler as string;
      const zipName = path.basename(fn.Properties.Code.S3Key as string);
      const dest = path.join(codeRoot, alias);
      const names = await unzip(path.join(outDir, zipName), dest);
      // Only this function's bundle (no other function's code, no node_modules).
      expect(
        names.filter((n) => n.endsWith('.handler.js')),
        alias,
      ).toEqual([handler.slice(0, handler.lastIndexOf('.')) + '.js']);
      expect(
        names.some((n) => n.startsWith('node_modules/')),
        alias,
      ).toBe(false);
      expect(typeof loadLikeLambda(dest, handler), `${alias}: ${handler}`).toBe('function');
    }
  });
});
