/**
 * serverless.yml, rendered from serverless.base.yml (the hand-written part, comments included) and the
 * declarations: shared/contract/functions.ts (each function: handler, settings, IAM access) and
 * shared/contract/routes.ts (each route names the function that serves it).
 *
 * The base holds marker lines `# @generated <section>...` (with any comment lines right under them,
 * at the same indentation). Each marker stays as it is and the section's YAML follows it, indented as
 * the marker is. Sections: `functions`, `roles`, `function-alarms`, `log-group-policies`, `stage-depends-on`,
 * `stage-route-settings`.
 *
 * Extending it:
 * - a new per-function setting (say environment variables or an SQS event): add the field to
 *   FunctionSpec (shared/contract/functions.ts) and write it in `functionEntry` below;
 * - a new kind of AWS access: add it to Access, turn it into statements in `statementsOf`, and teach
 *   test/integration/iam-coverage.test.ts (`grantsOf`) and test/e2e/package.test.ts (`expectedOf`)
 *   the same grant;
 * - a new generated part of the file: a marker in serverless.base.yml and a renderer in SECTIONS.
 * Then `npm run serverless:generate` and commit serverless.yml (scripts/serverless/render.test.ts
 * fails while the committed file differs).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  functionEntries,
  FUNCTIONS,
  type FunctionName,
  type FunctionSpec,
  type SecretName,
} from '../../shared/contract/functions';
import { ROUTES, type RouteSpec } from '../../shared/contract/routes';

export const ROOT = path.resolve(__dirname, '..', '..');
export const BASE_FILE = path.join(ROOT, 'serverless.base.yml');
export const TARGET_FILE = path.join(ROOT, 'serverless.yml');

// ---------------------------------------------------------------------------------------------
// Names as osls gives them (lib/plugins/aws/lib/naming.js).

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** `authRegister` → `AuthRegister`: the prefix of the function's LambdaFunction and LogGroup resources. */
export const logicalName = (fn: string) => upperFirst(fn).replace(/-/g, 'Dash').replace(/_/g, 'Underscore');
export const roleId = (fn: string) => `${logicalName(fn)}Role`;
export const logGroupId = (fn: string) => `${logicalName(fn)}LogGroup`;
/** The AWS::ApiGatewayV2::Route resource of `METHOD /path`. */
export function routeLogicalId(routeKey: string): string {
  const part = (p: string) =>
    upperFirst(
      p
        .toLowerCase()
        .replace(/-/g, 'Dash')
        .replace(/\{(.*)\}/g, '$1Var')
        .replace(/[^0-9A-Za-z]/g, ''),
    );
  return `HttpApiRoute${routeKey.split('/').map(part).join('')}`;
}

/** The routes a function serves, in the order of the route table. */
export function routesOf(fn: FunctionName): RouteSpec[] {
  return (Object.values(ROUTES) as RouteSpec[]).filter((r) => r.fn === fn);
}

// ---------------------------------------------------------------------------------------------
// IAM statements from a function's declared access.

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export interface Statement {
  Effect: 'Allow';
  Action: string | string[];
  Resource: Json;
}

const tableArn: Json = { 'Fn::GetAtt': ['Table', 'Arn'] };
const under = (resource: string, suffix: string): Json => ({
  'Fn::Join': ['', [{ 'Fn::GetAtt': [resource, 'Arn'] }, suffix]],
});
const arn = (service: string, rest: Json[]): Json => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      `:${service}:`,
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ...rest,
    ],
  ],
});

/** Each secret's SSM parameter name on a deployed stage (serverless.base.yml passes it as the setting). */
export const SECRET_PARAMETERS: Record<SecretName, string> = {
  jwt: '/${self:service}/${sls:stage}/jwt-secret',
  telegramBot: '/${self:service}/${sls:stage}/telegram-bot-token',
  telegramWebhook: '/${self:service}/${sls:stage}/telegram-webhook-secret',
};

/** The secrets a function reads: declared, or the JWT key for a function that serves routes. */
export function secretsOf(fn: FunctionName, spec: FunctionSpec): readonly SecretName[] {
  if (spec.access.secrets) return spec.access.secrets;
  return routesOf(fn).length > 0 ? ['jwt'] : [];
}

/** Every statement of a function's role: its log group first, then what `access` declares. */
export function statementsOf(fn: string, spec: FunctionSpec): Statement[] {
  const a = spec.access;
  // The framework creates the log group (with its retention), so no logs:CreateLogGroup; the group's
  // Arn ends in `:*`, which covers its streams.
  const out: Statement[] = [
    {
      Effect: 'Allow',
      Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: { 'Fn::GetAtt': [logGroupId(fn), 'Arn'] },
    },
  ];
  if (a.table?.length) out.push({ Effect: 'Allow', Action: a.table.map((x) => `dynamodb:${x}`), Resource: tableArn });
  for (const index of a.indexes ?? [])
    out.push({ Effect: 'Allow', Action: 'dynamodb:Query', Resource: under('Table', `/index/${index}`) });
  for (const index of a.scanIndexes ?? [])
    out.push({ Effect: 'Allow', Action: 'dynamodb:Scan', Resource: under('Table', `/index/${index}`) });
  for (const prefix of ['uploads', 'sources'] as const) {
    const actions = a.bucket?.[prefix];
    if (actions?.length)
      out.push({
        Effect: 'Allow',
        Action: actions.map((x) => `s3:${x}`),
        Resource: under('FilesBucket', `/${prefix}/*`),
      });
  }
  for (const target of a.invoke ?? []) {
    if (!(target in FUNCTIONS)) throw new Error(`${fn} invokes ${target}, which functions.ts does not declare`);
    // A name-built ARN, not a GetAtt: the target's own role may need it too (the worker's retry), and a
    // reference would make a cycle.
    out.push({
      Effect: 'Allow',
      Action: 'lambda:InvokeFunction',
      Resource: arn('lambda', [`:function:\${self:service}-\${sls:stage}-${target}`]),
    });
  }
  if (a.mail)
    out.push({
      Effect: 'Allow',
      Action: 'ses:SendEmail',
      // The sending identity: the domain of MAIL_FROM, or the address itself.
      Resource: [
        arn('ses', [':identity/', { 'Fn::Select': [1, { 'Fn::Split': ['@', '${param:mailFrom}'] }] }]),
        arn('ses', [':identity/${param:mailFrom}']),
      ],
    });
  if (a.kms?.length)
    out.push({
      Effect: 'Allow',
      Action: a.kms.map((x) => `kms:${x}`),
      Resource: { 'Fn::GetAtt': ['WbTokenKey', 'Arn'] },
    });
  // Secrets read at cold start (shared/secrets.ts): the SecureString parameters, by name. A parameter
  // encrypted with the AWS managed key aws/ssm needs no KMS grant; a customer key would add kms:Decrypt.
  for (const name of secretsOf(fn as FunctionName, spec))
    out.push({
      Effect: 'Allow',
      Action: 'ssm:GetParameter',
      Resource: arn('ssm', [`:parameter${SECRET_PARAMETERS[name]}`]),
    });
  // Lambda delivers an event that failed every attempt to the on-failure queue with the function's role.
  if (spec.async?.onFailure)
    out.push({
      Effect: 'Allow',
      Action: ['sqs:SendMessage'],
      Resource: { 'Fn::GetAtt': [spec.async.onFailure, 'Arn'] },
    });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sections.

function functionEntry(fn: FunctionName, spec: FunctionSpec): Record<string, Json> {
  const def: Record<string, Json> = { handler: spec.handler, role: roleId(fn) };
  if (spec.memorySize !== undefined) def.memorySize = spec.memorySize;
  if (spec.timeout !== undefined) def.timeout = spec.timeout;
  if (spec.reservedConcurrency !== undefined) def.reservedConcurrency = spec.reservedConcurrency;
  if (spec.async) {
    def.maximumRetryAttempts = spec.async.maximumRetryAttempts;
    def.maximumEventAge = spec.async.maximumEventAge;
    if (spec.async.onFailure)
      def.destinations = { onFailure: { type: 'sqs', arn: { 'Fn::GetAtt': [spec.async.onFailure, 'Arn'] } } };
  }
  if (spec.files?.length) def.package = { patterns: [...spec.files] };
  const events: Json[] = routesOf(fn).map((r) => ({ httpApi: { method: r.method, path: r.path } }));
  if (spec.schedule) events.push({ schedule: spec.schedule });
  if (events.length) def.events = events;
  return def;
}

function roleResource(fn: FunctionName, spec: FunctionSpec): Json {
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
      },
      Policies: [
        {
          PolicyName: fn,
          PolicyDocument: { Version: '2012-10-17', Statement: statementsOf(fn, spec) as unknown as Json },
        },
      ],
    },
  };
}

/** The throttled routes (`METHOD /path` → limits), in the order of the declarations. */
export function throttledRoutes(): Array<[string, { rate: number; burst: number }]> {
  return functionEntries().flatMap(([fn, spec]) =>
    spec.throttle
      ? routesOf(fn).map((r) => [`${r.method} ${r.path}`, spec.throttle!] as [string, typeof spec.throttle & object])
      : [],
  );
}

/** The functions in groups of at most `size` (a metric math alarm takes at most 10 metrics). */
function groupsOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A metric math alarm on the sum of `metric` (AWS/Lambda, by FunctionName) over `fns`. */
function lambdaSumAlarm(
  description: string,
  metrics: ReadonlyArray<{ fn: string; metric: string }>,
  opts: { period: number; threshold: number; operator: string },
): Json {
  return {
    Type: 'AWS::CloudWatch::Alarm',
    Properties: {
      AlarmDescription: description,
      EvaluationPeriods: 1,
      Threshold: opts.threshold,
      ComparisonOperator: opts.operator,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: 'AlarmTopic' }],
      Metrics: [
        ...metrics.map(({ fn, metric }, i) => ({
          Id: `m${i}`,
          Label: `${fn} ${metric}`,
          ReturnData: false,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/Lambda',
              MetricName: metric,
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: `${logicalName(fn)}LambdaFunction` } }],
            },
            Period: opts.period,
            Stat: 'Sum',
          },
        })),
        {
          Id: 'total',
          ReturnData: true,
          Expression: `SUM(FILL([${metrics.map((_, i) => `m${i}`).join(', ')}], 0))`,
        },
      ],
    },
  };
}

/**
 * The alarms on this stack's functions (serverless.base.yml `function-alarms`): errors (crashes and
 * timeouts; the API answers its own errors) and throttles, ten functions an alarm; dropped asynchronous
 * events and failed deliveries to an on-failure queue, of the functions invoked asynchronously.
 */
export function functionAlarms(): Record<string, Json> {
  const names = functionEntries().map(([fn]) => fn);
  const out: Record<string, Json> = {};
  groupsOf(names, 10).forEach((fns, i) => {
    const range = `${fns[0]} to ${fns[fns.length - 1]}`;
    out[`FunctionErrorsAlarm${i + 1}`] = lambdaSumAlarm(
      `Functions ${range} crashed or timed out 5 times in 5 minutes`,
      fns.map((fn) => ({ fn, metric: 'Errors' })),
      { period: 300, threshold: 5, operator: 'GreaterThanOrEqualToThreshold' },
    );
    out[`FunctionThrottlesAlarm${i + 1}`] = lambdaSumAlarm(
      `Invocations of ${range} were throttled (concurrency quota or reservation reached)`,
      fns.map((fn) => ({ fn, metric: 'Throttles' })),
      { period: 300, threshold: 0, operator: 'GreaterThanThreshold' },
    );
  });
  const async = functionEntries().filter(([, spec]) => spec.async);
  out.AsyncEventsAlarm = lambdaSumAlarm(
    `Asynchronous events of ${async.map(([fn]) => fn).join(', ')} were dropped, or not delivered to their on-failure queue`,
    async.flatMap(([fn, spec]) => [
      { fn, metric: 'AsyncEventsDropped' },
      ...(spec.async!.onFailure ? [{ fn, metric: 'DestinationDeliveryFailures' }] : []),
    ]),
    { period: 300, threshold: 0, operator: 'GreaterThanThreshold' },
  );
  return out;
}

const SECTIONS: Record<string, () => Record<string, Json>> = {
  'function-alarms': functionAlarms,
  // osls names each function's log group <Function>LogGroup (its name is the function's, so a retained
  // group would block the next deploy of the stage): deleted with the stack, and on replacement.
  'log-group-policies': () =>
    Object.fromEntries(
      functionEntries().map(([fn]) => [logGroupId(fn), { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' }]),
    ),
  functions: () => ({
    functions: Object.fromEntries(functionEntries().map(([fn, spec]) => [fn, functionEntry(fn, spec)])),
  }),
  roles: () => Object.fromEntries(functionEntries().map(([fn, spec]) => [roleId(fn), roleResource(fn, spec)])),
  'stage-depends-on': () => ({ DependsOn: throttledRoutes().map(([key]) => routeLogicalId(key)) }),
  'stage-route-settings': () => ({
    RouteSettings: Object.fromEntries(
      throttledRoutes().map(([key, t]) => [key, { ThrottlingRateLimit: t.rate, ThrottlingBurstLimit: t.burst }]),
    ),
  }),
};

// ---------------------------------------------------------------------------------------------
// YAML: block style, a value on one line (flow style) when it fits.

const WIDTH = 120;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function scalar(v: Json): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  const s = v as string;
  const plain = /^[A-Za-z/][A-Za-z0-9_./:*-]*$/.test(s) && !s.endsWith(':') && !s.includes('::') && !RESERVED.test(s);
  return plain ? s : `'${s.replace(/'/g, "''")}'`;
}

function flow(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${scalar(k)}: ${flow(x)}`)
      .join(', ')} }`;
  return scalar(v);
}

const isCollection = (v: Json): v is Json[] | { [k: string]: Json } => v !== null && typeof v === 'object';

/** The lines of a mapping's entries (or a sequence's items) at `indent` spaces. */
function block(v: Json[] | { [k: string]: Json }, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  const entries: Array<[string, Json]> = Array.isArray(v)
    ? v.map((x) => ['- ', x])
    : Object.entries(v).map(([k, x]) => [`${scalar(k)}: `, x]);
  for (const [lead, x] of entries) {
    const one = `${pad}${lead}${flow(x)}`;
    // A list of mappings (events, statements) reads best one item a line, whatever its length.
    const listOfMaps = Array.isArray(x) && x.some(isCollection);
    if (
      !isCollection(x) ||
      (one.length <= WIDTH && !listOfMaps) ||
      (Array.isArray(x) ? !x.length : !Object.keys(x).length)
    ) {
      lines.push(one);
    } else if (Array.isArray(v)) {
      // A sequence item: its first line goes on the dash.
      const inner = block(x, indent + 2);
      lines.push(`${pad}- ${inner[0]!.trimStart()}`, ...inner.slice(1));
    } else {
      lines.push(`${pad}${lead.trimEnd()}`, ...block(x, indent + 2));
    }
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------

const HEADER = `# GENERATED by \`npm run serverless:generate\` (scripts/serverless/generate.ts) from serverless.base.yml,
# shared/contract/functions.ts and shared/contract/routes.ts. Do not edit: change those and regenerate.
#
`;

/** serverless.yml as the generator writes it. */
export function renderServerlessYml(base = readFileSync(BASE_FILE, 'utf8')): string {
  const lines = base.split('\n');
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]!);
    const m = /^( *)# @generated ([a-z-]+)/.exec(lines[i]!);
    if (!m) continue;
    const [, pad, name] = m as unknown as [string, string, string];
    const section = SECTIONS[name];
    if (!section) throw new Error(`serverless.base.yml: unknown section "${name}"`);
    if (seen.has(name)) throw new Error(`serverless.base.yml: section "${name}" twice`);
    seen.add(name);
    // The marker's comment continues on the comment lines right under it.
    while (i + 1 < lines.length && lines[i + 1]!.startsWith(`${pad}# `)) out.push(lines[++i]!);
    out.push(...block(section(), pad.length));
  }
  const missing = Object.keys(SECTIONS).filter((s) => !seen.has(s));
  if (missing.length) throw new Error(`serverless.base.yml: no marker for ${missing.join(', ')}`);
  return HEADER + out.join('\n');
}
