/**
 * What a real AWS account needs of the template (issue 31), checked on serverless.yml as the generator
 * writes it (the same resources `serverless package` copies into the CloudFormation template; the
 * package test, test/e2e/package.test.ts, checks the packaged template too): alarms that can deliver
 * and watch this stack alone, scheduled functions that never pile up, data that cannot be deleted by
 * accident, access logs, the lifecycle of WB pages, Node 24 and the SDK in the bundle.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { functionEntries } from '../../shared/contract/functions';
import { pageKey } from '../../shared/marketplaces/wb/sync/step';
import { logGroupId, logicalName, renderServerlessYml, ROOT } from './render';

const oslsRequire = createRequire(require.resolve('osls/package.json'));
const yaml = oslsRequire('js-yaml') as { load(text: string): unknown };

// Untyped YAML; the assertions check its shape.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Resource = {
  Type?: string;
  Properties: any;
  Condition?: string;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};
const config = yaml.load(renderServerlessYml()) as {
  params: { default: Record<string, unknown>; local: Record<string, unknown> };
  provider: any;
  custom: { esbuild: any };
  functions: Record<string, { timeout?: number; events?: Array<{ schedule?: string }> }>;
  resources: {
    Resources: Record<string, Resource>;
    extensions: Record<string, any>;
    Conditions: Record<string, unknown>;
  };
};
const R = config.resources.Resources;
const X = config.resources.extensions;
const alarms = Object.entries(R).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
const fnRef = (fn: string) => ({ Ref: `${logicalName(fn)}LambdaFunction` });
/** Every metric an alarm reads (its own, or each of its metric math's). */
function metricsOf(r: Resource): Array<{ Namespace: string; MetricName: string; Dimensions?: any[] }> {
  const p = r.Properties;
  if (p.MetricName) return [{ Namespace: p.Namespace, MetricName: p.MetricName, Dimensions: p.Dimensions }];
  return (p.Metrics as any[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
}
const allMetrics = alarms.flatMap(([id, r]) => metricsOf(r).map((m) => ({ id, ...m })));
const periodSeconds = (schedule: string) => {
  const m = /^rate\((\d+) minutes?\)$/.exec(schedule);
  if (!m) throw new Error(`unexpected schedule ${schedule}`);
  return Number(m[1]) * 60;
};

describe('alarms that reach someone', () => {
  it('publish to a topic under a key of the stack that lets CloudWatch use it (not alias/aws/sns)', () => {
    expect(R.AlarmTopic!.Properties.KmsMasterKeyId).toEqual({ Ref: 'AlarmKey' });
    const key = R.AlarmKey!;
    expect(key.Type).toBe('AWS::KMS::Key');
    const grant = (key.Properties.KeyPolicy.Statement as any[]).find(
      (s) => s.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    expect(grant).toMatchObject({ Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] });
    const publish = (R.AlarmTopicPolicy!.Properties.PolicyDocument.Statement as any[])[0];
    expect(publish).toMatchObject({
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: 'sns:Publish',
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    });
    expect(alarms.length).toBeGreaterThan(10);
    for (const [id, r] of alarms) expect(r.Properties.AlarmActions, id).toEqual([{ Ref: 'AlarmTopic' }]);
  });

  it('mail the address of alarmEmail (a subscription only when it is set)', () => {
    expect(R.AlarmEmailSubscription).toMatchObject({
      Condition: 'HasAlarmEmail',
      Properties: { TopicArn: { Ref: 'AlarmTopic' }, Protocol: 'email', Endpoint: '${param:alarmEmail}' },
    });
    expect(config.resources.Conditions.HasAlarmEmail).toEqual({
      'Fn::Not': [{ 'Fn::Equals': ['${param:alarmEmail}', ''] }],
    });
  });

  it('watch every function of this stack by name, errors and throttles, ten metrics an alarm at most', () => {
    const lambda = allMetrics.filter((m) => m.Namespace === 'AWS/Lambda');
    // No Lambda metric of the whole account: each one names a function of this stack.
    for (const m of lambda) expect(m.Dimensions, `${m.id} ${m.MetricName}`).toHaveLength(1);
    for (const [fn] of functionEntries())
      for (const metric of ['Errors', 'Throttles'])
        expect(
          lambda.some(
            (m) => m.MetricName === metric && JSON.stringify(m.Dimensions![0].Value) === JSON.stringify(fnRef(fn)),
          ),
          `${fn} ${metric}`,
        ).toBe(true);
    for (const [id, r] of alarms) expect(metricsOf(r).length, id).toBeLessThanOrEqual(10);
  });

  it('watch dropped asynchronous events and failed deliveries of the functions invoked asynchronously', () => {
    const dropped = allMetrics.filter((m) => m.MetricName === 'AsyncEventsDropped');
    const delivery = allMetrics.filter((m) => m.MetricName === 'DestinationDeliveryFailures');
    for (const [fn, spec] of functionEntries().filter(([, s]) => s.async)) {
      expect(
        dropped.some((m) => JSON.stringify(m.Dimensions![0].Value) === JSON.stringify(fnRef(fn))),
        fn,
      ).toBe(true);
      if (spec.async!.onFailure)
        expect(
          delivery.some((m) => JSON.stringify(m.Dimensions![0].Value) === JSON.stringify(fnRef(fn))),
          fn,
        ).toBe(true);
    }
    expect(dropped.map((m) => m.Dimensions![0].Value.Ref).sort()).toEqual(
      [
        'NotificationsDigestLambdaFunction',
        'NotificationsTickLambdaFunction',
        'ReportsSweepLambdaFunction',
        'ReportsWorkerLambdaFunction',
        'WbSyncTickLambdaFunction',
      ].sort(),
    );
  });

  it('watch failed WB sync steps (the metric the tick emits, in this stage’s namespace)', () => {
    const tickSource = readFileSync(`${ROOT}/functions/wb/sync-tick.handler.ts`, 'utf8');
    expect(tickSource).toContain("countMetric('WbSyncStepsFailed'");
    expect(config.provider.environment.METRICS_NAMESPACE).toBe('ReportProfitability/${sls:stage}');
    const m = allMetrics.find((x) => x.MetricName === 'WbSyncStepsFailed');
    expect(m).toMatchObject({ Namespace: 'ReportProfitability/${sls:stage}' });
    expect(m!.Dimensions).toEqual([{ Name: 'service', Value: '${self:service}' }]);
  });

  it('watch read and write throttles of the table and of both indexes', () => {
    const dynamo = allMetrics.filter((m) => m.Namespace === 'AWS/DynamoDB');
    for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents'])
      for (const index of [undefined, 'gsi1', 'gsi2'])
        expect(
          dynamo.some(
            (m) =>
              m.MetricName === metric &&
              m.Dimensions!.some((d) => d.Name === 'TableName' && d.Value.Ref === 'Table') &&
              (index === undefined
                ? m.Dimensions!.length === 1
                : m.Dimensions!.some((d) => d.Name === 'GlobalSecondaryIndexName' && d.Value === index)),
          ),
          `${metric} ${index ?? 'table'}`,
        ).toBe(true);
  });

  it('watch the 5xx and the 429 rates of this API (429s counted from its access log)', () => {
    const api = allMetrics.filter((m) => m.Namespace === 'AWS/ApiGateway');
    for (const m of api) expect(m.Dimensions).toEqual([{ Name: 'ApiId', Value: { Ref: 'HttpApi' } }]);
    expect(api.some((m) => m.MetricName === '5xx')).toBe(true);
    expect(R.Api429Filter!.Properties).toMatchObject({
      LogGroupName: { Ref: 'HttpApiLogGroup' },
      FilterPattern: '{ $.status = 429 }',
      MetricTransformations: [{ MetricNamespace: 'ReportProfitability/${sls:stage}', MetricName: 'Api429' }],
    });
    expect(allMetrics.some((m) => m.id === 'Api429RateAlarm' && m.MetricName === 'Api429')).toBe(true);
  });

  it('watch SES bounce and complaint rates below the levels at which AWS reviews an account (5 %, 0.1 %)', () => {
    const ses = alarms.filter(([, r]) => r.Properties.Namespace === 'AWS/SES');
    const threshold = (name: string) => ses.find(([, r]) => r.Properties.MetricName === name)![1].Properties.Threshold;
    expect(threshold('Reputation.BounceRate')).toBeLessThan(0.05);
    expect(threshold('Reputation.ComplaintRate')).toBeLessThan(0.001);
  });

  it('watch the tick’s duration against its period', () => {
    const [, a] = alarms.find(([, r]) => r.Properties.MetricName === 'Duration')!;
    expect(a.Properties.Dimensions).toEqual([{ Name: 'FunctionName', Value: fnRef('wbSyncTick') }]);
    expect(a.Properties.Statistic).toBe('Maximum');
    const period = periodSeconds(config.functions.wbSyncTick!.events!.find((e) => e.schedule)!.schedule!);
    expect(a.Properties.Threshold).toBeLessThan(period * 1000);
  });
});

describe('the scheduled functions', () => {
  for (const fn of ['wbSyncTick', 'reportsSweep'] as const) {
    it(`${fn}: no retry, no event older than its period, a run shorter than it, reserved concurrency a setting`, () => {
      const spec = functionEntries().find(([f]) => f === fn)![1];
      const period = periodSeconds(spec.schedule!);
      expect(spec.async).toMatchObject({ maximumRetryAttempts: 0 });
      expect(spec.async!.maximumEventAge).toBeLessThanOrEqual(period);
      expect(spec.async!.maximumEventAge).toBeGreaterThanOrEqual(60);
      expect(spec.timeout!).toBeLessThan(period);
      expect(spec.reservedConcurrency).toBeUndefined();
      const param = fn === 'wbSyncTick' ? 'tickConcurrency' : 'sweepConcurrency';
      const condition = fn === 'wbSyncTick' ? 'HasTickConcurrency' : 'HasSweepConcurrency';
      expect(X[`${logicalName(fn)}LambdaFunction`].Properties.ReservedConcurrentExecutions).toEqual({
        'Fn::If': [condition, `\${param:${param}}`, { Ref: 'AWS::NoValue' }],
      });
      expect(config.resources.Conditions[condition]).toEqual({
        'Fn::Not': [{ 'Fn::Equals': [`\${param:${param}}`, '0'] }],
      });
      expect(config.params.default[param]).toBe('1');
      expect(config.params.local[param]).toBe('0');
    });
  }

  it('the tick starts no step late enough to run past its timeout, whose end is before the next tick', () => {
    const spec = functionEntries().find(([f]) => f === 'wbSyncTick')![1];
    // A step takes seconds (a 100 000-row page ~5 s, docs/PERFORMANCE.md): the budget leaves it 30 s.
    // The handler's constant, read from its source (loading the handler would need its settings).
    const source = readFileSync(`${ROOT}/functions/wb/sync-tick.handler.ts`, 'utf8');
    const budget = Number(/export const TICK_BUDGET_MS = ([\d_]+);/.exec(source)![1]!.replace(/_/g, ''));
    expect(source).toContain('budgetMs: TICK_BUDGET_MS');
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThanOrEqual(spec.timeout! * 1000 - 30_000);
    // A step waiting for a call due just after the tick's start waits no later than the budget's end.
    const ahead = Number(/export const TICK_AHEAD_MS = ([\d_]+);/.exec(source)![1]!.replace(/_/g, ''));
    expect(source).toContain('aheadMs: TICK_AHEAD_MS');
    expect(ahead).toBeLessThanOrEqual(budget);
  });
});

describe('data and logs', () => {
  it('the table refuses deletion; the bucket expires WB pages under the prefix the sync writes them to', () => {
    expect(R.Table!.Properties.DeletionProtectionEnabled).toBe(true);
    const rule = (R.FilesBucket!.Properties.LifecycleConfiguration.Rules as any[]).find(
      (r) => r.Id === 'expire-wb-pages',
    );
    expect(rule).toMatchObject({ Status: 'Enabled', Prefix: 'sources/wbsync/' });
    expect(rule.ExpirationInDays).toBeGreaterThanOrEqual(7);
    expect(pageKey({ user_id: 'U1', id: 'C1' }, 7, 0).startsWith(rule.Prefix)).toBe(true);
  });

  it('the stage writes access logs as JSON with a numeric status, kept as the functions’ logs are', () => {
    const format = config.provider.logs.httpApi.format as string;
    const line = JSON.parse(
      format.replace(/\$context\.status|\$context\.responseLatency/g, '1').replace(/\$context\.[a-zA-Z.]+/g, 'x'),
    );
    expect(line).toMatchObject({ status: 1, requestId: 'x', routeKey: 'x' });
    expect(config.provider.logRetentionInDays).toBe(30);
  });

  it('every log group and the failure queue say what happens to them on deletion and replacement', () => {
    for (const [fn] of functionEntries())
      expect(X[logGroupId(fn)], fn).toEqual({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(X.HttpApiLogGroup).toEqual({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(R.WorkerFailuresQueue).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    for (const id of ['Table', 'FilesBucket', 'WbTokenKey', 'AlarmKey'])
      expect(R[id]!.DeletionPolicy && R[id]!.UpdateReplacePolicy, id).toBeTruthy();
  });
});

describe('what is deployed is what is tested', () => {
  it('Node 24 on Lambda and in the bundles, and the AWS SDK bundled, never left to the runtime', () => {
    expect(config.provider.runtime).toBe('nodejs24.x');
    expect(config.custom.esbuild.target).toBe('node24');
    expect(config.custom.esbuild.exclude).toEqual([]);
    expect(config.custom.esbuild.external).toBeUndefined();
  });
});
