/**
 * The per-function IAM roles of serverless.yml against what the functions really call. DynamoDB
 * Local, s3rver and the SES emulator enforce no IAM, so a role that is one action short would pass
 * every other suite and fail only on AWS. Here every AWS call the handlers make is recorded (a
 * middleware on the process's DynamoDB, S3 and SES clients, presigning included) while each route's
 * paths run in-process — the rare ones too: uploads by id and by body, an upload undone after its
 * charge, abandoned uploads swept by the scheduled sweep and by upload, big and small sources, a rebuild that re-adds
 * a product, the combine job, password reset, idempotent top-up. Then, per function:
 *   - every recorded call is allowed by its role (action and resource, with IAM's wildcards);
 *   - every action the role grants was used by at least one of those calls, so no grant is idle.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL, WORKER, resourceName } from '../support/cfn';
import { handler as changePasswordHandler } from '../../functions/auth/change-password.handler';
import { handler as confirmHandler } from '../../functions/auth/confirm.handler';
import { handler as configHandler } from '../../functions/config/get.handler';
import { handler as forgotHandler } from '../../functions/auth/forgot-password.handler';
import { handler as historyHandler } from '../../functions/auth/limit-history.handler';
import { handler as loginHandler } from '../../functions/auth/login.handler';
import { handler as meHandler } from '../../functions/auth/me.handler';
import { handler as registerHandler } from '../../functions/auth/register.handler';
import { handler as topUpHandler } from '../../functions/auth/top-up.handler';
import { handler as updateMeHandler } from '../../functions/auth/update-me.handler';
import { handler as productsImportHandler } from '../../functions/products/import.handler';
import { handler as productsListHandler } from '../../functions/products/list.handler';
import { handler as productsPutHandler } from '../../functions/products/put.handler';
import { handler as analyticsExportHandler } from '../../functions/analytics/export.handler';
import { handler as analyticsGetHandler } from '../../functions/analytics/get.handler';
import { handler as combineHandler } from '../../functions/reports/combine.handler';
import { handler as countRowsHandler } from '../../functions/reports/count-rows.handler';
import { handler as deleteHandler } from '../../functions/reports/delete.handler';
import { handler as exportHandler } from '../../functions/reports/export.handler';
import { handler as getHandler } from '../../functions/reports/get.handler';
import { handler as listHandler } from '../../functions/reports/list.handler';
import { handler as manualValueHandler } from '../../functions/reports/manual-value.handler';
import { handler as rebuildManyHandler } from '../../functions/reports/rebuild-many.handler';
import { handler as rebuildOneHandler } from '../../functions/reports/rebuild-one.handler';
import { handler as sourceHandler } from '../../functions/reports/source.handler';
import { handler as summaryHandler } from '../../functions/reports/summary-export.handler';
import { handler as updateHandler } from '../../functions/reports/update.handler';
import { handler as uploadHandler } from '../../functions/reports/upload.handler';
import { handler as uploadUrlHandler } from '../../functions/reports/upload-url.handler';
import { handler as sellersListHandler } from '../../functions/sellers/list.handler';
import { handler as sellersUpdateHandler } from '../../functions/sellers/update.handler';
import { handler as openapiHandler } from '../../functions/docs/openapi.handler';
import { signToken } from '../../shared/auth/tokens';
import { getConfig, resetConfig } from '../../shared/config';
import { bucketName, s3, s3Public } from '../../shared/files/client';
import { apiEvent, bodyOf, multipartBody, type EventInput } from '../support/test-event';
import type { HttpResult } from '../../shared/http/responses';
import { ses } from '../../shared/mail/client';
import type { ApiReport } from '../../shared/reports/present';
import { ABANDONED_UPLOAD_AFTER_MS } from '../../shared/reports/recover';
import { runWorkerEvent } from '../../shared/reports/worker';
import { overrideReportDeps, reportDeps } from '../../shared/reports/deps';
import type { WorkerInvoker } from '../../shared/jobs/worker-invoke';
import { writeItems } from '../../shared/store/items.repo';
import { handler as sweepHandler } from '../../functions/reports/sweep.handler';
import { ddb, tableName } from '../../shared/store/client';
import { productKey, summaryKey } from '../../shared/store/keys';
import { ensureSellerByNumber, getSeller } from '../../shared/store/sellers.repo';
import { createUser, setRole } from '../../shared/store/users.repo';
import { waitForMail, type SentMail } from '../support/emulators';
import { chargedBuildingReport, makeReport } from '../support/reports';
import { CONFIRM_SUBJECT, PASSWORD_SUBJECT, confirmTokenOf, passwordOf } from '../support/sign-up';

const root = path.resolve(__dirname, '..', '..');

// ---------------------------------------------------------------------------------------------
// The roles, read from serverless.yml the way osls reads it (js-yaml resolves the anchors).

interface Grant {
  action: string;
  /** The resource as its CloudFormation references read: `Table`, `Table/index/gsi2`, `FilesBucket/uploads/*`, MAIL. */
  resource: string;
}

function grantsByFunction(): Map<string, Grant[]> {
  const yaml = createRequire(require.resolve('osls/package.json'))('js-yaml') as { load(text: string): unknown };
  type Statement = { Effect: string; Action: string | string[]; Resource: unknown };
  const config = yaml.load(readFileSync(path.join(root, 'serverless.yml'), 'utf8')) as {
    functions: Record<string, { role: string }>;
    resources: {
      Resources: Record<string, { Properties: { Policies: Array<{ PolicyDocument: { Statement: Statement[] } }> } }>;
    };
  };
  const out = new Map<string, Grant[]>();
  for (const [fn, def] of Object.entries(config.functions)) {
    const grants: Grant[] = [];
    for (const policy of config.resources.Resources[def.role]!.Properties.Policies) {
      for (const s of policy.PolicyDocument.Statement) {
        if (s.Effect !== 'Allow') continue;
        const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
        // Log writes, and the worker's on-failure queue, are the Lambda service's, not the code's:
        // the package test checks those.
        if (actions.every((a) => a.startsWith('logs:') || a.startsWith('sqs:'))) continue;
        for (const r of Array.isArray(s.Resource) ? s.Resource : [s.Resource])
          for (const action of actions) grants.push({ action, resource: resourceName(r) });
      }
    }
    out.set(fn, grants);
  }
  return out;
}

/** IAM's resource matching: `*` matches any run of characters, `/` included. */
function matches(pattern: string, resource: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(resource);
}

// ---------------------------------------------------------------------------------------------
// Recording: which IAM actions each AWS call needs, attributed to the function being invoked.

interface Call {
  action: string;
  resource: string;
  /** The SDK command, for messages. */
  command: string;
}

const calls = new Map<string, Call[]>();
let current: string | null = null;

function record(list: Call[]) {
  if (current === null) return;
  const mine = calls.get(current) ?? [];
  mine.push(...list);
  calls.set(current, mine);
}

const tableResource = (table: unknown, index?: unknown): string => {
  const base = table === tableName() ? 'Table' : `table:${String(table)}`;
  return index ? `${base}/index/${String(index)}` : base;
};

/** DynamoDB: the actions IAM checks for a (low-level) command, transactions per element. */
function dynamoCalls(command: string, input: Record<string, unknown>): Call[] {
  const single: Record<string, string> = {
    GetItemCommand: 'GetItem',
    PutItemCommand: 'PutItem',
    UpdateItemCommand: 'UpdateItem',
    DeleteItemCommand: 'DeleteItem',
    QueryCommand: 'Query',
    ScanCommand: 'Scan',
  };
  if (single[command])
    return [
      { action: `dynamodb:${single[command]}`, resource: tableResource(input.TableName, input.IndexName), command },
    ];
  if (command === 'BatchGetItemCommand' || command === 'BatchWriteItemCommand') {
    const action = command === 'BatchGetItemCommand' ? 'dynamodb:BatchGetItem' : 'dynamodb:BatchWriteItem';
    return Object.keys(input.RequestItems as object).map((t) => ({ action, resource: tableResource(t), command }));
  }
  if (command === 'TransactWriteItemsCommand') {
    const per: Record<string, string> = {
      Put: 'PutItem',
      Update: 'UpdateItem',
      Delete: 'DeleteItem',
      ConditionCheck: 'ConditionCheckItem',
    };
    return (input.TransactItems as Array<Record<string, { TableName: string }>>).flatMap((el) =>
      Object.entries(el).map(([kind, op]) => ({
        action: `dynamodb:${per[kind] ?? kind}`,
        resource: tableResource(op.TableName),
        command,
      })),
    );
  }
  return [{ action: `dynamodb:${command.replace(/Command$/, '')}`, resource: tableResource(input.TableName), command }];
}

/** S3: object actions as IAM names them (HeadObject is GetObject; a copy reads its source and writes its target). */
function s3Calls(command: string, input: Record<string, unknown>): Call[] {
  const object = (key: unknown) =>
    input.Bucket === bucketName() ? `FilesBucket/${String(key)}` : `bucket:${String(input.Bucket)}/${String(key)}`;
  switch (command) {
    case 'GetObjectCommand':
    case 'HeadObjectCommand':
      return [{ action: 's3:GetObject', resource: object(input.Key), command }];
    case 'PutObjectCommand':
      return [{ action: 's3:PutObject', resource: object(input.Key), command }];
    case 'DeleteObjectCommand':
      return [{ action: 's3:DeleteObject', resource: object(input.Key), command }];
    case 'CopyObjectCommand': {
      const source = decodeURIComponent(String(input.CopySource));
      const prefix = `${bucketName()}/`;
      return [
        {
          action: 's3:GetObject',
          resource: source.startsWith(prefix) ? `FilesBucket/${source.slice(prefix.length)}` : `bucket:${source}`,
          command,
        },
        { action: 's3:PutObject', resource: object(input.Key), command },
      ];
    }
    default:
      return [{ action: `s3:${command.replace(/Command$/, '')}`, resource: object(input.Key ?? ''), command }];
  }
}

function sesCalls(command: string, input: Record<string, unknown>): Call[] {
  const identity =
    input.FromEmailAddress === getConfig().MAIL_FROM ? MAIL : `identity:${String(input.FromEmailAddress)}`;
  return [{ action: `ses:${command.replace(/Command$/, '')}`, resource: identity, command }];
}

type Stack = { add(mw: unknown, options: { step: string; name: string }): void };
function recordOn(
  client: { middlewareStack: unknown },
  toCalls: (command: string, input: Record<string, unknown>) => Call[],
) {
  (client.middlewareStack as Stack).add(
    (next: (args: { input: Record<string, unknown> }) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        record(toCalls(context.commandName ?? 'UnknownCommand', args.input));
        return next(args);
      },
    { step: 'initialize', name: 'iamCoverageRecorder' },
  );
}

/** Runs `fn`'s invocation(s) with every AWS call attributed to `fn`. */
async function as<T>(fn: string, run: () => Promise<T>): Promise<T> {
  current = fn;
  try {
    return await run();
  } finally {
    current = null;
  }
}

// ---------------------------------------------------------------------------------------------

type Handler = (event: ReturnType<typeof apiEvent>) => Promise<HttpResult>;

async function call(fn: string, handler: Handler, input: EventInput, expected: number): Promise<HttpResult> {
  const r = await as(fn, () => handler(apiEvent(input)));
  expect(r.statusCode, `${fn} ${input.method ?? ''} ${input.path ?? ''}: ${r.body ?? ''}`).toBe(expected);
  return r;
}

const ENV_KEYS = ['MAX_INLINE_SOURCE_BYTES', 'WORKER_LEASE_MS', 'UPLOAD_WAIT_MS'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

beforeAll(() => {
  resetConfig();
  recordOn(ddb(), dynamoCalls);
  recordOn(s3(), s3Calls);
  if (s3Public() !== s3()) recordOn(s3Public(), s3Calls);
  recordOn(ses(), sesCalls);
  // The worker's asynchronous invoke, as Lambda would do it: the caller's call is recorded as the
  // lambda:InvokeFunction it needs, and the worker runs with its calls attributed to reportsWorker.
  overrideReportDeps({ invoker });
});

const invoker: WorkerInvoker = {
  async invoke(event) {
    record([{ action: 'lambda:InvokeFunction', resource: WORKER, command: 'InvokeCommand' }]);
    if (dropInvokes) return;
    const caller = current;
    current = 'reportsWorker';
    try {
      await runWorkerEvent(reportDeps(), event);
    } finally {
      current = caller;
    }
  },
};

/** While true, worker invokes are recorded but the worker does not run (a lost invoke, a dead worker). */
let dropInvokes = false;

afterAll(() => {
  overrideReportDeps(null);
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  resetConfig();
});

const sesEndpoint = () => process.env.SES_ENDPOINT as string;

describe('IAM roles of serverless.yml against the calls the code makes', () => {
  it('runs every route through its paths, recording the AWS calls of each function', async () => {
    let changedToken = '';
    // --- auth: register → confirm mail → password mail → login; reset by mail; the rest as a user and an admin.
    const email = `iam-${randomUUID()}@example.com`;
    const mailOf = (subject: string, after: Set<string>) =>
      waitForMail(sesEndpoint(), email, (m: SentMail) => m.subject === subject && !after.has(m.id));
    const seen = new Set<string>();
    await call('authRegister', registerHandler, { method: 'POST', path: '/api/auth/register', body: { email } }, 202);
    const confirmMail = await mailOf(CONFIRM_SUBJECT, seen);
    seen.add(confirmMail.id);
    await call(
      'authConfirm',
      confirmHandler,
      { method: 'GET', path: '/api/auth/confirm', query: { token: confirmTokenOf(confirmMail) } },
      200,
    );
    const passwordMail = await mailOf(PASSWORD_SUBJECT, seen);
    seen.add(passwordMail.id);
    // A wrong password is counted (throttle Put); the sign-in that follows forgets it (Delete).
    await call(
      'authLogin',
      loginHandler,
      { method: 'POST', path: '/api/auth/login', body: { email, password: 'not-the-password' } },
      401,
    );
    const login = await call(
      'authLogin',
      loginHandler,
      { method: 'POST', path: '/api/auth/login', body: { email, password: passwordOf(passwordMail) } },
      200,
    );
    const firstSession = bodyOf<{ token: string }>(login).token;
    await call(
      'authForgotPassword',
      forgotHandler,
      { method: 'POST', path: '/api/auth/forgot-password', body: { email } },
      202,
    );
    const resetMail = await mailOf('Сброс пароля', seen);
    seen.add(resetMail.id);
    await call(
      'authConfirm',
      confirmHandler,
      { method: 'GET', path: '/api/auth/confirm', query: { token: confirmTokenOf(resetMail) } },
      200,
    );
    // The reset ended the first session; sign in with the new password.
    await call('authMe', meHandler, { method: 'GET', path: '/api/auth/me', token: firstSession }, 401);
    const newPasswordMail = await mailOf('Ваш новый пароль', seen);
    seen.add(newPasswordMail.id);
    const relogin = await call(
      'authLogin',
      loginHandler,
      { method: 'POST', path: '/api/auth/login', body: { email, password: passwordOf(newPasswordMail) } },
      200,
    );
    const beforeChange = bodyOf<{ token: string }>(relogin).token;
    await call(
      'authChangePassword',
      changePasswordHandler,
      {
        method: 'POST',
        path: '/api/auth/change-password',
        token: beforeChange,
        body: { current_password: passwordOf(newPasswordMail), new_password: 'a-chosen-password' },
      },
      200,
    ).then((r) => {
      changedToken = bodyOf<{ token: string }>(r).token;
    });
    const token = changedToken;
    await call('authMe', meHandler, { method: 'GET', path: '/api/auth/me', token }, 200);
    await call('appConfig', configHandler, { method: 'GET', path: '/api/config' }, 200);
    await call(
      'authUpdateMe',
      updateMeHandler,
      { method: 'PATCH', path: '/api/auth/me', token, body: { tax: { usn_rate: 6 } } },
      200,
    );
    await call('authLimitHistory', historyHandler, { method: 'GET', path: '/api/auth/limit-history', token }, 200);

    const admin = await createUser({ email: `iam-admin-${randomUUID()}@example.com`, confirmed: true });
    await setRole(admin.id, 'admin');
    const adminToken = signToken({ user_id: admin.id }, 'access');
    const me = bodyOf<{ user: { id: string } }>(
      await meHandler(apiEvent({ method: 'GET', path: '/api/auth/me', token })),
    );
    const key = randomUUID();
    for (const body of [
      { email, rows: 100_000, idempotency_key: key },
      { email, rows: 100_000, idempotency_key: key },
      { user_id: me.user.id, rows: 5 },
    ]) {
      await call('authTopUp', topUpHandler, { method: 'POST', path: '/api/auth/top-up', token: adminToken, body }, 200);
    }

    // --- uploads: presigned (count, then upload by id), multipart, an upload undone after its charge, abandoned ones swept.
    const first = makeReport({ seed: 21 });
    const target = bodyOf<{ upload_id: string; url: string; method: string }>(
      await call(
        'reportsUploadUrl',
        uploadUrlHandler,
        {
          method: 'POST',
          path: '/api/reports/upload-url',
          token,
          body: { filename: first.filename, size: first.file.length },
        },
        200,
      ),
    );
    expect((await fetch(target.url, { method: target.method, body: first.file })).status).toBe(200);
    await call(
      'reportsCountRows',
      countRowsHandler,
      { method: 'POST', path: '/api/reports/count-rows', token, body: { upload_id: target.upload_id } },
      200,
    );
    // A pre-worker upload that died after its charge, with the seller it created on demand: the upload's
    // sweep undoes it and removes that seller, since no report links it (gsi1).
    const orphanSeller = await ensureSellerByNumber(me.user.id, String(900_000_000 + randomInt(99_999_999)));
    await chargedBuildingReport(
      me.user.id,
      makeReport({ seed: 11, rows: 40 }),
      ABANDONED_UPLOAD_AFTER_MS + 60_000,
      orphanSeller.id,
    );
    const byId = bodyOf<{ report: ApiReport }>(
      await call(
        'reportsUpload',
        uploadHandler,
        { method: 'POST', path: '/api/reports/upload', token, body: { upload_id: target.upload_id } },
        201,
      ),
    ).report;
    expect(await getSeller(me.user.id, orphanSeller.id)).toBeNull();
    const multipart = (g: { filename: string; file: Buffer }) => {
      const { body, contentType } = multipartBody({ filename: g.filename, content: g.file });
      return { method: 'POST', path: '/api/reports/upload', token, body, headers: { 'content-type': contentType } };
    };
    const second = bodyOf<{ report: ApiReport }>(
      await call('reportsUpload', uploadHandler, multipart(makeReport({ seed: 22 })), 201),
    ).report;
    // An item store that fails after writing the items, every attempt.
    overrideReportDeps({
      invoker,
      items: {
        async writeItems(...args: Parameters<typeof writeItems>) {
          await writeItems(...args);
          throw new Error('the worker fails after writing the items, every attempt');
        },
      },
    });
    try {
      await call('reportsUpload', uploadHandler, multipart(makeReport({ seed: 23 })), 500);
    } finally {
      overrideReportDeps({ invoker });
    }
    // A worker that never ran (lost invoke): the sweep hands the report to a new one once its lease ran out.
    process.env.WORKER_LEASE_MS = '1';
    process.env.UPLOAD_WAIT_MS = '0';
    resetConfig();
    dropInvokes = true;
    try {
      await call('reportsUpload', uploadHandler, multipart(makeReport({ seed: 24 })), 202);
    } finally {
      dropInvokes = false;
      delete process.env.WORKER_LEASE_MS;
      delete process.env.UPLOAD_WAIT_MS;
      resetConfig();
    }
    await new Promise((r) => setTimeout(r, 5));
    // A pre-worker upload that died, linked to the seller it created: the sweep undoes both.
    const crashedSeller = await ensureSellerByNumber(me.user.id, '9090909');
    await chargedBuildingReport(
      me.user.id,
      makeReport({ seed: 11, rows: 40 }),
      ABANDONED_UPLOAD_AFTER_MS + 60_000,
      crashedSeller.id,
    );
    await as('reportsSweep', () => sweepHandler({}));
    await call('reportsList', listHandler, { method: 'GET', path: '/api/reports', token }, 200);
    const sellerId = byId.seller?.id as string;
    expect(sellerId).toBeTruthy();
    await call(
      'reportsList',
      listHandler,
      { method: 'GET', path: '/api/reports', token, query: { seller_id: sellerId } },
      200,
    );

    // --- reading, correcting, rebuilding, exporting, combining, deleting.
    const id = byId.id;
    const report = bodyOf<{ report: ApiReport }>(
      await call(
        'reportsGet',
        getHandler,
        { method: 'GET', path: `/api/reports/${id}`, token, pathParameters: { id } },
        200,
      ),
    ).report;
    const item = report.items[0]!;
    const manual = (value: number | null) => ({
      method: 'PUT',
      path: `/api/reports/items/${item.item_id}/manual-value`,
      token,
      pathParameters: { item_id: item.item_id },
      body: { field: 'realization', value },
    });
    await call('reportsManualValue', manualValueHandler, manual(123), 200);
    await call('reportsManualValue', manualValueHandler, manual(null), 200);
    // A product gone from the catalog is added back by the rebuild (a conditional Put).
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: productKey(me.user.id, item.article) }));
    await call(
      'reportsRebuildOne',
      rebuildOneHandler,
      { method: 'POST', path: `/api/reports/${id}/rebuild`, token, pathParameters: { id } },
      200,
    );
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: productKey(me.user.id, item.article) }));
    const many = await call(
      'reportsRebuildMany',
      rebuildManyHandler,
      { method: 'POST', path: '/api/reports/rebuild', token, body: {} },
      200,
    );
    expect(bodyOf<{ rebuilt: string[] }>(many).rebuilt).toEqual(expect.arrayContaining([id, second.id]));
    await call(
      'reportsExport',
      exportHandler,
      { method: 'GET', path: `/api/reports/${id}/export`, token, pathParameters: { id } },
      200,
    );
    await call(
      'reportsSource',
      sourceHandler,
      { method: 'GET', path: `/api/reports/${id}/source`, token, pathParameters: { id } },
      200,
    );
    process.env.MAX_INLINE_SOURCE_BYTES = '1000';
    resetConfig();
    await call(
      'reportsSource',
      sourceHandler,
      { method: 'GET', path: `/api/reports/${id}/source`, token, pathParameters: { id } },
      302,
    );
    delete process.env.MAX_INLINE_SOURCE_BYTES;
    resetConfig();
    await call(
      'reportsSummaryExport',
      summaryHandler,
      { method: 'POST', path: '/api/reports/summary-export', token, body: { report_ids: [id, second.id] } },
      200,
    );
    // Analytics: a summary gone (a write that failed) is rebuilt from the items on read.
    for (const [fn, handler, path] of [
      ['analyticsGet', analyticsGetHandler, '/api/analytics'],
      ['analyticsExport', analyticsExportHandler, '/api/analytics/export'],
    ] as const) {
      await ddb().send(new DeleteCommand({ TableName: tableName(), Key: summaryKey(me.user.id, id, 0) }));
      await call(fn, handler, { method: 'GET', path, token, query: { seller_id: sellerId } }, 200);
    }
    await as('reportsCombine', async () => {
      let job = bodyOf<{ job_id: string; status: string; report_id?: string }>(
        await combineHandler(
          apiEvent({ method: 'POST', path: '/api/reports/combine', token, body: { report_ids: [id, second.id] } }),
        ),
      );
      for (let i = 0; i < 300 && job.status !== 'done' && job.status !== 'failed'; i++) {
        await new Promise((res) => setTimeout(res, 100));
        job = bodyOf(
          await combineHandler(
            apiEvent({
              method: 'GET',
              path: `/api/reports/combine-status/${job.job_id}`,
              token,
              pathParameters: { job_id: job.job_id },
            }),
          ),
        );
      }
      expect(job.status).toBe('done');
      // Recombine the combined report (the next item generation, switched by an Update).
      const combinedId = job.report_id as string;
      job = bodyOf(
        await combineHandler(
          apiEvent({
            method: 'POST',
            path: `/api/reports/${combinedId}/recombine`,
            token,
            pathParameters: { id: combinedId },
          }),
        ),
      );
      for (let i = 0; i < 300 && job.status !== 'done' && job.status !== 'failed'; i++) {
        await new Promise((res) => setTimeout(res, 100));
        job = bodyOf(
          await combineHandler(
            apiEvent({
              method: 'GET',
              path: `/api/reports/combine-status/${job.job_id}`,
              token,
              pathParameters: { job_id: job.job_id },
            }),
          ),
        );
      }
      expect(job.status).toBe('done');
    });
    await call(
      'reportsUpdate',
      updateHandler,
      {
        method: 'PATCH',
        path: `/api/reports/${id}`,
        token,
        pathParameters: { id },
        body: { title: 'IAM report', seller_id: sellerId },
      },
      200,
    );
    await call(
      'reportsDelete',
      deleteHandler,
      { method: 'DELETE', path: `/api/reports/${second.id}`, token, pathParameters: { id: second.id } },
      204,
    );
    // The history names the reports it charged for (BatchGetItem), the deleted one as deleted.
    const history = bodyOf<{ items: Array<{ report_id: string | null; report_deleted: boolean }> }>(
      await call('authLimitHistory', historyHandler, { method: 'GET', path: '/api/auth/limit-history', token }, 200),
    );
    expect(history.items.find((e) => e.report_id === second.id)?.report_deleted).toBe(true);
    expect(history.items.find((e) => e.report_id === id)?.report_deleted).toBe(false);

    // --- catalog and sellers.
    await call(
      'productsPut',
      productsPutHandler,
      {
        method: 'PUT',
        path: '/api/products/IAM-1',
        token,
        pathParameters: { article: 'IAM-1' },
        body: { cost_price: 10.5 },
      },
      200,
    );
    await call(
      'productsList',
      productsListHandler,
      { method: 'GET', path: '/api/products', token, query: { search: 'iam' } },
      200,
    );
    const csv = multipartBody({
      filename: 'prices.csv',
      content: Buffer.from('Артикул;Себестоимость\nIAM-1;11\nIAM-2;12\n', 'utf8'),
    });
    await call(
      'productsImport',
      productsImportHandler,
      {
        method: 'POST',
        path: '/api/products/import',
        token,
        body: csv.body,
        headers: { 'content-type': csv.contentType },
      },
      200,
    );
    await call('sellersList', sellersListHandler, { method: 'GET', path: '/api/sellers', token }, 200);
    await call(
      'sellersUpdate',
      sellersUpdateHandler,
      {
        method: 'PATCH',
        path: `/api/sellers/${sellerId}`,
        token,
        pathParameters: { id: sellerId },
        body: { name: 'IAM seller' },
      },
      200,
    );
  });

  it('serves the OpenAPI document without a single AWS call', async () => {
    const r = await call('apiOpenapi', openapiHandler, { method: 'GET', path: '/api/openapi.json' }, 200);
    expect(JSON.parse(r.body ?? '{}').openapi).toBe('3.1.0');
    expect(calls.get('apiOpenapi')).toBeUndefined();
  });

  it('allows every recorded call by the role of the function that made it', () => {
    const grants = grantsByFunction();
    // A function granted nothing (GET /api/config reads its environment, GET /api/openapi.json its bundle) makes no AWS call at all.
    const granted = [...grants].filter(([, g]) => g.length > 0).map(([fn]) => fn);
    expect([...calls.keys()].sort()).toEqual(granted.sort());
    expect(calls.get('appConfig')).toBeUndefined();
    const denied: string[] = [];
    for (const [fn, list] of calls) {
      const mine = grants.get(fn) ?? [];
      for (const c of list) {
        if (!mine.some((g) => g.action === c.action && matches(g.resource, c.resource)))
          denied.push(`${fn}: ${c.action} on ${c.resource} (${c.command})`);
      }
    }
    expect([...new Set(denied)]).toEqual([]);
  });

  it('grants no action that none of the recorded calls used', () => {
    const idle: string[] = [];
    for (const [fn, mine] of grantsByFunction()) {
      const list = calls.get(fn) ?? [];
      for (const g of mine) {
        if (!list.some((c) => c.action === g.action && matches(g.resource, c.resource)))
          idle.push(`${fn}: ${g.action} on ${g.resource}`);
      }
    }
    expect(idle).toEqual([]);
  });
});
