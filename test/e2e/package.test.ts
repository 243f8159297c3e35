import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  functionEntries,
  FUNCTIONS,
  type Access,
  type FunctionName,
  type FunctionSpec,
} from '../../shared/contract/functions';
import { SECRET_PARAMETERS, secretsOf } from '../../scripts/serverless/render';
import { ROUTES as CONTRACT_ROUTES } from '../../shared/contract/routes';
import { tableDefinition } from '../../shared/store/table';
import { functionResource, MAIL, resourceName, secretResource } from '../support/cfn';

/**
 * `serverless package` (what `npm run package` runs) must work on a machine with no AWS
 * credentials and no network, and its CloudFormation template must carry every route of docs/API.md,
 * every function as shared/contract/functions.ts declares it (settings, role, throttling), the table
 * of shared/store/table.ts and a private bucket. Each function's zip is loaded the way the Lambda
 * runtime loads it.
 */
const root = path.resolve(__dirname, '..', '..');

/** Every route of the contract (shared/contract/routes.ts): method, path as API Gateway names it, function. */
const ROUTES: Array<[string, string, string]> = Object.values(CONTRACT_ROUTES).map((r) => [r.method, r.path, r.fn]);
/** Every function of shared/contract/functions.ts, those that serve no route (the report worker) too. */
const FUNCTION_NAMES = functionEntries().map(([fn]) => fn);

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

/** The deploy parameters with no default on a deployed stage (what `npm run package` passes). */
const REQUIRED_PARAMS = [
  '--param=mailFrom=no-reply@example.org',
  '--param=appUrl=https://app.example.org',
  '--param=webOrigin=https://app.example.org',
];

describe('a deployed stage without mailFrom, appUrl or webOrigin', () => {
  it('does not resolve, naming the settings that miss them', () => {
    const r = spawnSync(
      process.execPath,
      [
        require.resolve('osls/bin/serverless.js'),
        'print',
        '--stage',
        'prod',
        '--region',
        'eu-central-1',
        REQUIRED_PARAMS[1]!,
      ],
      {
        cwd: root,
        env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status).not.toBe(0);
    expect(out).toMatch(/provider\.environment\.MAIL_FROM": Value not found at "param" source/);
    expect(out).toMatch(/provider\.httpApi\.cors\.allowedOrigins\.0": Value not found/);
    expect(out).not.toMatch(/provider\.environment\.APP_URL"/);
  });
});

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
        ...REQUIRED_PARAMS,
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

  it('cfn-lint finds nothing in the template (false alarms listed in .cfnlintrc.yaml)', (ctx) => {
    const which = spawnSync('sh', ['-c', 'command -v cfn-lint'], { encoding: 'utf8' });
    if (which.status !== 0) return ctx.skip();
    const r = spawnSync(
      'cfn-lint',
      ['--format', 'parseable', path.join(outDir, 'cloudformation-template-update-stack.json')],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 240_000,
      },
    );
    expect(`${r.stdout}${r.stderr}`.trim(), 'cfn-lint findings').toBe('');
    expect(r.status).toBe(0);
  });

  it('alarms on failures, errors, throttles, rates and the tick, every one to a topic CloudWatch can publish to', () => {
    const alarms = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
    const byName = Object.fromEntries(alarms);
    for (const id of [
      'WorkerFailuresAlarm',
      'WorkerErrorsAlarm',
      'FunctionErrorsAlarm1',
      'FunctionThrottlesAlarm1',
      'AsyncEventsAlarm',
      'TableThrottlesAlarm',
      'Api5xxRateAlarm',
      'Api429RateAlarm',
      'SesBounceRateAlarm',
      'SesComplaintRateAlarm',
      'WbSyncFailuresAlarm',
      'WbSyncTickDurationAlarm',
    ])
      expect(byName[id], id).toBeDefined();
    for (const [id, r] of alarms) expect(r.Properties.AlarmActions, id).toEqual([{ Ref: 'AlarmTopic' }]);
    // Not the AWS managed key (CloudWatch cannot be granted it): the stack's own, which grants CloudWatch.
    expect(template.Resources.AlarmTopic!.Properties.KmsMasterKeyId).toEqual({ Ref: 'AlarmKey' });
    expect(
      (template.Resources.AlarmKey!.Properties.KeyPolicy.Statement as Array<{ Principal: { Service?: string } }>).some(
        (st) => st.Principal.Service === 'cloudwatch.amazonaws.com',
      ),
    ).toBe(true);
    // Every Lambda metric of an alarm names one of this stack's functions, never the account's whole.
    for (const [id, r] of alarms) {
      const metrics = r.Properties.MetricName
        ? [r.Properties]
        : (r.Properties.Metrics as Array<{ MetricStat?: { Metric: Record<string, unknown> } }>)
            .filter((m) => m.MetricStat)
            .map((m) => m.MetricStat!.Metric);
      for (const m of metrics.filter((x) => x.Namespace === 'AWS/Lambda'))
        expect(template.Resources[(m.Dimensions as Array<{ Value: { Ref: string } }>)[0]!.Value.Ref]?.Type, id).toBe(
          'AWS::Lambda::Function',
        );
    }
    expect(byName.WorkerFailuresAlarm!.Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(template.Resources.AlarmTopic!.Type).toBe('AWS::SNS::Topic');
    expect((template.Resources.AlarmEmailSubscription as unknown as { Condition: string }).Condition).toBe(
      'HasAlarmEmail',
    );
  });

  it('reserves the worker’s, the tick’s and the sweep’s concurrency by settings (40, 1, 1 unless set; 0: none)', () => {
    const worker = template.Resources.ReportsWorkerLambdaFunction!.Properties;
    expect(worker.ReservedConcurrentExecutions).toEqual({
      'Fn::If': ['HasWorkerConcurrency', '40', { Ref: 'AWS::NoValue' }],
    });
    expect(template.Resources.WbSyncTickLambdaFunction!.Properties.ReservedConcurrentExecutions).toEqual({
      'Fn::If': ['HasTickConcurrency', '1', { Ref: 'AWS::NoValue' }],
    });
    expect(template.Resources.ReportsSweepLambdaFunction!.Properties.ReservedConcurrentExecutions).toEqual({
      'Fn::If': ['HasSweepConcurrency', '1', { Ref: 'AWS::NoValue' }],
    });
  });

  it('protects the table from deletion, logs the stage’s requests, expires WB pages, says what every log group becomes', () => {
    expect(template.Resources.Table!.Properties.DeletionProtectionEnabled).toBe(true);
    const stage = template.Resources.HttpApiStage!.Properties;
    expect(stage.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': ['HttpApiLogGroup', 'Arn'] });
    expect(template.Resources.HttpApiLogGroup!.Properties.RetentionInDays).toBe(30);
    const rules = template.Resources.FilesBucket!.Properties.LifecycleConfiguration.Rules as Array<{ Prefix?: string }>;
    expect(rules.map((r) => r.Prefix)).toContain('sources/wbsync/');
    const logGroups = ofType('AWS::Logs::LogGroup');
    expect(logGroups.length).toBe(FUNCTION_NAMES.length + 1);
    for (const [id, r] of logGroups) {
      const policies = r as unknown as { DeletionPolicy?: string; UpdateReplacePolicy?: string };
      expect([policies.DeletionPolicy, policies.UpdateReplacePolicy], id).toEqual(['Delete', 'Delete']);
    }
    const queue = template.Resources.WorkerFailuresQueue as unknown as { DeletionPolicy?: string };
    expect(queue.DeletionPolicy).toBe('Retain');
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
    // And the functions that serve no route (the report worker): every declared function, no other.
    expect(
      ofType('AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual(FUNCTION_NAMES.map((fn) => `${fn[0]!.toUpperCase()}${fn.slice(1)}LambdaFunction`).sort());
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
    // The limits each function declares (`throttle`), on each of its routes, and no others.
    const declared = Object.fromEntries(
      Object.values(CONTRACT_ROUTES).flatMap((r) => {
        const t = (FUNCTIONS[r.fn] as { throttle?: { rate: number; burst: number } }).throttle;
        return t ? [[`${r.method} ${r.path}`, { ThrottlingRateLimit: t.rate, ThrottlingBurstLimit: t.burst }]] : [];
      }),
    );
    expect(props.RouteSettings).toEqual(declared);
    const limited = Object.keys(declared);
    // The sign-in, registration and expensive routes among them.
    expect(limited).toEqual(
      expect.arrayContaining([
        'POST /api/reports/upload',
        'POST /api/reports/count-rows',
        'POST /api/products/import',
        'POST /api/auth/login',
        'POST /api/auth/register',
        'POST /api/auth/forgot-password',
      ]),
    );
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
    // Functions get the generated name by Ref; the JWT key is not in any environment, only the name of
    // the SecureString they read (shared/secrets.ts), and each reading function may read that one.
    const fn = template.Resources.ReportsGetLambdaFunction!.Properties;
    expect(fn.Environment.Variables.BUCKET_NAME).toEqual({ Ref: bucketId });
    for (const name of FUNCTION_NAMES) {
      const resource = template.Resources[`${name[0]!.toUpperCase()}${name.slice(1)}LambdaFunction`]!;
      const vars = resource.Properties.Environment.Variables as Record<string, unknown>;
      expect(vars.JWT_SECRET ?? '', name).toBe('');
      expect(vars.JWT_SECRET_PARAMETER, name).toBe('/report-profitability/prod/jwt-secret');
    }
    const reads = (role: string) =>
      JSON.stringify(template.Resources[role]!.Properties.Policies).includes('"ssm:GetParameter"');
    expect(reads('ReportsGetRole')).toBe(true);
    expect(reads('AppConfigRole')).toBe(false);
    expect(reads('ReportsWorkerRole')).toBe(false);
  });

  /**
   * Least privilege, one role per function: what each function may do is exactly what its
   * declaration (shared/contract/functions.ts, `access`) says, which test/integration/iam-coverage.test.ts
   * holds to what its code does. The resources are written as their CloudFormation references
   * (`Table`, `Table/index/gsi2`, `FilesBucket/uploads/*`, `ses:identity`, `function:<name>`).
   */
  describe('IAM: one role per function, only what its declaration grants', () => {
    const TABLE = 'Table';
    const GSI1 = 'Table/index/gsi1';
    const GSI2 = 'Table/index/gsi2';
    const UPLOADS = 'FilesBucket/uploads/*';
    const SOURCES = 'FilesBucket/sources/*';
    const QUEUE = 'WorkerFailuresQueue';

    /** A function's permissions besides its own log group, from its declaration: resource → actions. */
    function expectedOf(fn: FunctionName): Record<string, string[]> {
      const spec = FUNCTIONS[fn] as { access: Access; async?: { onFailure?: string } };
      const a = spec.access;
      const out: Record<string, string[]> = {};
      if (a.table) out[TABLE] = a.table.map((x) => `dynamodb:${x}`);
      for (const index of a.indexes ?? []) out[`Table/index/${index}`] = ['dynamodb:Query'];
      for (const index of a.scanIndexes ?? [])
        out[`Table/index/${index}`] = [...(out[`Table/index/${index}`] ?? []), 'dynamodb:Scan'];
      for (const [prefix, actions] of Object.entries(a.bucket ?? {}))
        out[`FilesBucket/${prefix}/*`] = actions.map((x) => `s3:${x}`);
      for (const target of a.invoke ?? []) out[functionResource(target)] = ['lambda:InvokeFunction'];
      if (a.mail) out[MAIL] = ['ses:SendEmail'];
      // The WB tokens' KMS key, by its resource (serverless.base.yml WbTokenKey).
      if (a.kms?.length) out.WbTokenKey = a.kms.map((x) => `kms:${x}`).sort();
      for (const name of secretsOf(fn, spec as FunctionSpec)) out[secretResource(name)] = ['ssm:GetParameter'];
      if (spec.async?.onFailure) out[spec.async.onFailure] = ['sqs:SendMessage'];
      return out;
    }

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
    const functions = () => FUNCTION_NAMES;

    it('gives every function a role of its own, assumable by Lambda only, with no managed policies', () => {
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

    it('grants each function exactly the table actions, indexes, bucket prefixes, invokes and mail it declares', () => {
      for (const fn of functions()) {
        const want = Object.fromEntries(Object.entries(expectedOf(fn)).map(([r, a]) => [r, [...a].sort()]));
        expect(permissions(fn), fn).toEqual(want);
      }
    });

    it('keeps to the shape of the data: indexes are only queried, nothing scans (but the sweep, gsi2 alone), describes or lists', () => {
      // The recovery sweep scans the sparse pending index (gsi2: only reports still in flight), never the table.
      expect(permissions('reportsSweep')[GSI2]).toEqual(['dynamodb:Scan']);
      for (const fn of functions()) {
        const p = permissions(fn);
        for (const index of [GSI1, GSI2])
          if (p[index] && !(fn === 'reportsSweep' && index === GSI2)) expect(p[index], fn).toEqual(['dynamodb:Query']);
        expect(
          Object.keys(p)
            .filter((r) => r.startsWith('Table/'))
            .every((r) => r === GSI1 || r === GSI2),
          fn,
        ).toBe(true);
        if (fn !== 'reportsSweep') expect(allActions(fn), fn).not.toContain('dynamodb:Scan');
        for (const banned of [
          'dynamodb:DescribeTable',
          'dynamodb:DeleteTable',
          's3:ListBucket',
          'logs:CreateLogGroup',
        ]) {
          expect(allActions(fn), fn).not.toContain(banned);
        }
      }
    });

    it('keeps the bucket to its two prefixes and every grant to the stack’s own resources', () => {
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
              Object.keys(SECRET_PARAMETERS).some((name) => r === secretResource(name)) ||
              r === 'WbTokenKey' ||
              (r.startsWith('function:') && r.slice('function:'.length) in FUNCTIONS) ||
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
        [secretResource('jwt')]: ['ssm:GetParameter'],
      });
      // The catalog import reads its file from the multipart body, never from the bucket.
      expect(allActions('productsImport').some((a) => a.startsWith('s3:'))).toBe(false);
      // Deleting a report removes its source object; it never reads the bucket.
      expect(permissions('reportsDelete')[SOURCES]).toEqual(['s3:DeleteObject']);
      // Mail (abuse-prone) only from the three routes that send it and the notifications' delivery tick
      // (the token expiry notice, the digest and every other notification go out there).
      const mails = functions().filter((fn) => allActions(fn).some((a) => a.startsWith('ses:')));
      expect(mails.sort()).toEqual(['authConfirm', 'authForgotPassword', 'authRegister', 'notificationsTick']);
    });

    it('names an invoked function by the name it is deployed under in this stage', () => {
      const deployed = new Set(ofType('AWS::Lambda::Function').map(([, r]) => r.Properties.FunctionName as string));
      let invokes = 0;
      for (const fn of functions())
        for (const st of statementsOf(fn).filter((x) => list(x.Action).includes('lambda:InvokeFunction'))) {
          const name = /:function:([^"]+)"\]\]\}$/.exec(JSON.stringify(st.Resource))?.[1];
          expect(name, fn).toMatch(/^report-profitability-prod-/);
          expect(deployed.has(name!), `${fn} invokes ${name}`).toBe(true);
          invokes++;
        }
      expect(invokes).toBeGreaterThan(0);
    });
  });

  describe('each function on Lambda as declared', () => {
    const fnOf = (fn: string) => template.Resources[`${fn[0]!.toUpperCase()}${fn.slice(1)}LambdaFunction`]!;

    it('runs each function with its declared memory, timeout and reserved concurrency (the provider’s defaults otherwise)', () => {
      for (const [fn, spec] of functionEntries()) {
        const p = fnOf(fn).Properties;
        expect(p.MemorySize, fn).toBe(spec.memorySize ?? 1024);
        expect(p.Timeout, fn).toBe(spec.timeout ?? 29);
        // The worker's, the tick's and the sweep's are deploy settings (serverless.base.yml; checked above).
        if (!['reportsWorker', 'wbSyncTick', 'reportsSweep'].includes(fn))
          expect(p.ReservedConcurrentExecutions, fn).toBe(spec.reservedConcurrency);
        expect(p.Architectures, fn).toEqual(['arm64']);
        expect(p.Runtime, fn).toBe('nodejs24.x');
        expect(p.FunctionName, fn).toBe(`report-profitability-prod-${fn}`);
      }
      // Combine runs at any concurrency (its jobs' states are stored; docs/ARCHITECTURE.md): no
      // reservation a new account's 10–50 quota could refuse.
      expect(fnOf('reportsCombine').Properties.ReservedConcurrentExecutions).toBeUndefined();
    });

    it('configures asynchronous invocation where declared: retries, event age and the on-failure queue', () => {
      const configs = ofType('AWS::Lambda::EventInvokeConfig');
      const withAsync = functionEntries().filter(([, spec]) => spec.async);
      expect(withAsync.map(([fn]) => fn)).toContain('reportsWorker');
      expect(configs).toHaveLength(withAsync.length);
      for (const [fn, spec] of withAsync) {
        const mine = configs.filter(
          ([, r]) =>
            (r.Properties.FunctionName as { Ref: string }).Ref ===
            `${fn[0]!.toUpperCase()}${fn.slice(1)}LambdaFunction`,
        );
        expect(mine, fn).toHaveLength(1);
        const props = mine[0]![1].Properties;
        expect(props.MaximumRetryAttempts, fn).toBe(spec.async!.maximumRetryAttempts);
        expect(props.MaximumEventAgeInSeconds, fn).toBe(spec.async!.maximumEventAge);
        if (spec.async!.onFailure) {
          expect(props.DestinationConfig, fn).toEqual({
            OnFailure: { Destination: { 'Fn::GetAtt': [spec.async!.onFailure, 'Arn'] } },
          });
          expect(template.Resources[spec.async!.onFailure]!.Type).toBe('AWS::SQS::Queue');
        }
      }
    });

    it('tells every function the worker’s deployed name', () => {
      for (const fn of FUNCTION_NAMES)
        expect(fnOf(fn).Properties.Environment.Variables.WORKER_FUNCTION_NAME, fn).toBe(
          'report-profitability-prod-reportsWorker',
        );
    });
  });

  it('packs each function so that the Lambda runtime finds its handler, with every package it requires inside', async () => {
    // Extracted outside the repository, where no node_modules can be found: a bundle that required a
    // package it does not hold (the AWS SDK left to the runtime) fails to load, as it would on a runtime
    // without that package or with another version of it.
    const codeRoot = path.join(outDir, 'unzipped');
    const zips = readdirSync(outDir).filter((f) => f.endsWith('.zip'));
    expect(zips).toHaveLength(FUNCTION_NAMES.length);
    // A handler parses its settings as it loads (cold start), as on Lambda, where the template's
    // environment is set: give the loader one of the same shape (values are never used).
    const deployed: Record<string, string> = {
      JWT_SECRET_PARAMETER: '/report-profitability/prod/jwt-secret',
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
      // Nothing but Node's own modules is required at run time; the one exception is the AWS SDK's
      // optional CRT signer, required inside a try only for SigV4a (S3 multi-region access points, which
      // nothing here uses) and present in no runtime either.
      const code = readFileSync(path.join(dest, handler.slice(0, handler.lastIndexOf('.')) + '.js'), 'utf8');
      const required = [...code.matchAll(/require\("([^"./][^"]*)"\)/g)].map((m) => m[1]!);
      expect([...new Set(required.filter((r) => !isBuiltin(r) && r !== '@aws-sdk/signature-v4-crt'))], alias).toEqual(
        [],
      );
      // And the files it reads at run time (the summary template).
      const spec = functionEntries().find(([f]) => `${f[0]!.toUpperCase()}${f.slice(1)}LambdaFunction` === alias)![1];
      for (const f of spec.files ?? []) expect(names, `${alias}: ${f}`).toContain(f);
    }
  });
});
