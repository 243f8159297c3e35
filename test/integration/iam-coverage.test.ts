/**
 * Each function's IAM role (its `access` in shared/contract/functions.ts, rendered as serverless.yml
 * renders it) against what the function really calls. DynamoDB Local, s3rver and the SES emulator
 * enforce no IAM, so a role one action short would pass every other suite and fail only on AWS. Here
 * every AWS call of the process's DynamoDB, S3 and SES clients (presigning included) is checked as it
 * is made against the role of the function it runs for, and refused as AWS would refuse it when the
 * role does not allow it. One test per function runs that function's paths — the rare ones too:
 * uploads by id and by body, an upload undone after its charge, abandoned uploads swept by list and
 * upload, big and small sources, a rebuild that re-adds a product, the combine job, password reset,
 * idempotent top-up; the report worker's success, retry and failure — and then holds that:
 *   - every call it made was allowed by its role (action and resource, with IAM's wildcards);
 *   - every action its role grants was used by at least one of those calls, so no grant is idle.
 * The paths of each function are in SCENARIOS, one entry per declared function (a function declared
 * without one does not type-check). Calls are attributed through the async context, so work a call
 * starts in the background (the combine job) and the worker it invokes count for the right function.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomInt, randomUUID } from 'node:crypto';
import path from 'node:path';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceName, WORKER } from '../support/cfn';
import { signInDeps } from '../../shared/auth/deps';
import { signToken } from '../../shared/auth/tokens';
import { getConfig } from '../../shared/config';
import { functionEntries, type FunctionName } from '../../shared/contract/functions';
import { bucketName, s3, s3Public } from '../../shared/files/client';
import type { HttpResult } from '../../shared/http/responses';
import { lambdaClient, type WorkerEvent } from '../../shared/jobs/worker-invoke';
import { makeReportDeps, reportDeps } from '../../shared/reports/deps';
import type { ReportDeps } from '../../shared/reports/ports';
import { idleWorkers, onWorkerEvent, useInProcessWorker } from '../../scripts/local/in-process-worker';
import { writeItems } from '../../shared/store/items.repo';
import { handler as sweepHandler } from '../../functions/reports/sweep.handler';
import { handler as wbTickHandler } from '../../functions/wb/sync-tick.handler';
import { handler as wbConnectionsHandler } from '../../functions/wb/connections.handler';
import { handler as notificationsTickHandler } from '../../functions/notifications/tick.handler';
import { handler as notificationsDigestHandler } from '../../functions/notifications/digest.handler';
import { unsubscribeKey } from '../../shared/notifications/unsubscribe-key';
import { signUnsubscribe } from '../../shared/notifications/unsubscribe-token';
import { isoWeek, lastDigestRun } from '../../shared/notifications/rules';
import { markForDigest } from '../../shared/store/notifications.repo';
import { startWbEmulator } from '../../scripts/local/wb-emulator';
import { makeEmulatorToken } from '../../scripts/local/wb/tokens';
import { ADVERT_SCOPE } from '../../shared/marketplaces/wb/sources/advert-source';
import { ANALYTICS_SCOPE, FINANCE_SCOPE } from '../../shared/marketplaces/wb/token';
import { getConnection as getWbConnection } from '../../shared/store/wb-connections.repo';
import { stepDeps as wbStepDeps, syncSettings } from '../../shared/marketplaces/wb/sync/step-deps';
import { runStep as runWbStep } from '../../shared/marketplaces/wb/sync/step';
import { ses } from '../../shared/mail/client';
import { runWorkerEvent } from '../../shared/reports/worker/worker';
import { ddb, tableName } from '../../shared/store/client';
import { createLinkCode, handleUpdate } from '../../shared/notifications/telegram/link';
import { linkDeps, webhookDeps } from '../../shared/notifications/telegram/deps';
import { productKey, reportKey, summaryKey } from '../../shared/store/keys';
import { createUser, setRole } from '../../shared/store/users.repo';
import { statementsOf } from '../../scripts/serverless/render';
import { waitForMail, type SentMail } from '../support/emulators';
import {
  getReportOk,
  chargedProcessingReport,
  makeReport,
  newUser,
  presignedUpload,
  uploadMultipart,
  uploadOk,
  type TestUser,
} from '../support/reports';
import { CONFIRM_SUBJECT, PASSWORD_SUBJECT, confirmTokenOf } from '../support/sign-up';
import { apiEvent, bodyOf, multipartBody, type EventInput } from '../support/test-event';

const root = path.resolve(__dirname, '..', '..');
const FUNCTIONS = functionEntries();

// ---------------------------------------------------------------------------------------------
// The roles: each function's statements as the generator writes them into serverless.yml.

interface Grant {
  action: string;
  /** The resource as its CloudFormation references read: `Table`, `Table/index/gsi2`, `FilesBucket/uploads/*`, MAIL, WORKER. */
  resource: string;
}

function grantsOf(fn: FunctionName): Grant[] {
  const spec = FUNCTIONS.find(([name]) => name === fn)![1];
  const grants: Grant[] = [];
  for (const s of statementsOf(fn, spec)) {
    const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
    // Log writes, and the worker's on-failure queue, are the Lambda service's, not the code's: the
    // package test checks those. Secrets come from the environment here (JWT_SECRET); reading them from
    // SSM is test/integration/secrets.test.ts's, and the grant the package test's.
    // KMS likewise: locally the WB tokens are sealed under the local key (WB_TOKEN_KEY); the KMS adapter's
    // calls are shared/marketplaces/wb/kms-wrapper.test.ts's, the grant the package test's.
    if (
      actions.every(
        (a) => a.startsWith('logs:') || a.startsWith('sqs:') || a.startsWith('ssm:') || a.startsWith('kms:'),
      )
    )
      continue;
    for (const r of Array.isArray(s.Resource) ? s.Resource : [s.Resource])
      for (const action of actions) grants.push({ action, resource: resourceName(r) });
  }
  return grants;
}
const GRANTS = new Map(FUNCTIONS.map(([fn]) => [fn, grantsOf(fn)]));

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

const allowed = (fn: FunctionName, c: Call) =>
  GRANTS.get(fn)!.some((g) => g.action === c.action && matches(g.resource, c.resource));

// ---------------------------------------------------------------------------------------------
// Recording and refusing: which IAM actions each AWS call needs, for the function it runs for.

interface Call {
  action: string;
  resource: string;
  /** The SDK command, for messages. */
  command: string;
}

/** The function an AWS call runs for (set around a handler's invocation and the worker's runs). */
const runningFor = new AsyncLocalStorage<FunctionName>();
const calls = new Map<FunctionName, Call[]>();
const denied: string[] = [];

/** Records `list` for the function running; throws as AWS does when its role allows one of them not. */
function check(list: Call[], service: 'dynamodb' | 's3' | 'ses' | 'lambda') {
  const fn = runningFor.getStore();
  if (fn === undefined) return;
  const mine = calls.get(fn) ?? [];
  mine.push(...list);
  calls.set(fn, mine);
  const refused = list.filter((c) => !allowed(fn, c));
  if (!refused.length) return;
  for (const c of refused) denied.push(`${fn}: ${c.action} on ${c.resource} (${c.command})`);
  const e = new Error(`${fn} is not authorized to perform ${refused[0]!.action} on ${refused[0]!.resource}`);
  e.name = service === 's3' ? 'AccessDenied' : 'AccessDeniedException';
  Object.assign(e, { $metadata: { httpStatusCode: service === 's3' ? 403 : 400 }, $fault: 'client' });
  throw e;
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

/** Lambda: the worker's invoke, on the worker function (WORKER) when it names the configured one. */
function lambdaCalls(command: string, input: Record<string, unknown>): Call[] {
  const name = String(input.FunctionName);
  const resource = name === getConfig().WORKER_FUNCTION_NAME ? WORKER : `function:${name}`;
  return [{ action: `lambda:${command.replace(/Command$/, 'Function')}`, resource, command }];
}

function sesCalls(command: string, input: Record<string, unknown>): Call[] {
  const identity =
    input.FromEmailAddress === getConfig().MAIL_FROM ? 'ses:identity' : `identity:${String(input.FromEmailAddress)}`;
  return [{ action: `ses:${command.replace(/Command$/, '')}`, resource: identity, command }];
}

type Stack = { add(mw: unknown, options: { step: string; name: string }): void };
function checkOn(
  client: { middlewareStack: unknown },
  service: 'dynamodb' | 's3' | 'ses' | 'lambda',
  toCalls: (command: string, input: Record<string, unknown>) => Call[],
) {
  (client.middlewareStack as Stack).add(
    (next: (args: { input: Record<string, unknown> }) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: Record<string, unknown> }) => {
        check(toCalls(context.commandName ?? 'UnknownCommand', args.input), service);
        return next(args);
      },
    { step: 'initialize', name: 'iamCoverageChecker' },
  );
}

// ---------------------------------------------------------------------------------------------
// Running a function's paths.

type Handler = (event: ReturnType<typeof apiEvent>) => Promise<HttpResult>;

async function handlerOf(fn: FunctionName): Promise<Handler> {
  const spec = FUNCTIONS.find(([name]) => name === fn)![1];
  const mod = (await import(path.join(root, `${spec.handler.replace(/\.handler$/, '')}.ts`))) as { handler: Handler };
  return mod.handler;
}

/** What a scenario has: the shared fixtures, and calls of the function under test. */
interface Run {
  /** Invokes the function's handler with `input` (its AWS calls count for it) and expects `status`. */
  call(input: EventInput, status: number): Promise<HttpResult>;
  /** Runs `work` as the function: everything it calls on AWS counts for it. */
  as<T>(work: () => Promise<T>): Promise<T>;
}

interface Fixtures {
  /** A user with two ready reports (`id` with a seller, `second`). */
  user: TestUser;
  id: string;
  second: string;
  sellerId: string;
  admin: TestUser;
}
let fx: Fixtures;

/** While true, worker invokes are checked but the worker does not run (a lost invoke, a dead worker). */
let dropInvokes = false;

const sesEndpoint = () => process.env.SES_ENDPOINT as string;
const mailTo = (email: string, subject: string, after = new Set<string>()) =>
  waitForMail(sesEndpoint(), email, (m: SentMail) => m.subject === subject && !after.has(m.id));

/** A confirmed user who signs in with a password. */
async function userWithPassword(): Promise<{ email: string; password: string; token: string }> {
  const email = `iam-${randomUUID()}@example.com`;
  const password = 'Iam-Password-123';
  const u = await createUser({
    email,
    confirmed: true,
    passwordHash: await signInDeps.passwords.hash(password),
    limits: 0,
  });
  return { email, password, token: signToken({ user_id: u.id }, 'access') };
}

/** The worker's composition while a scenario needs other parts (null: the real ones). */
let workerDeps: ReportDeps | null = null;

/** Runs `work` with an item store that fails after writing the items, every attempt (a worker that always fails). */
async function withFailingWorker<T>(work: () => Promise<T>): Promise<T> {
  workerDeps = makeReportDeps({
    items: {
      async writeItems(...args: Parameters<typeof writeItems>) {
        await writeItems(...args);
        throw new Error('the worker fails after writing the items, every attempt');
      },
    },
  });
  try {
    return await work();
  } finally {
    workerDeps = null;
  }
}

/** Runs `work` with the upload wait at 0 and worker leases of 1 ms: a report left to a lost worker is stuck at once. */
async function withLostWorker<T>(work: () => Promise<T>): Promise<T> {
  process.env.WORKER_LEASE_MS = '1';
  process.env.UPLOAD_WAIT_MS = '0';
  dropInvokes = true;
  try {
    return await work();
  } finally {
    dropInvokes = false;
    delete process.env.WORKER_LEASE_MS;
    delete process.env.UPLOAD_WAIT_MS;
  }
}

const multipartUpload = (token: string, g: { filename: string; file: Buffer }): EventInput => {
  const { body, contentType } = multipartBody({ filename: g.filename, content: g.file });
  return { method: 'POST', path: '/api/reports/upload', token, body, headers: { 'content-type': contentType } };
};

async function untilDone(run: Run, token: string, first: HttpResult): Promise<{ report_id?: string }> {
  let job = bodyOf<{ job_id: string; status: string; report_id?: string }>(first);
  for (let i = 0; i < 300 && job.status !== 'done' && job.status !== 'failed'; i++) {
    await new Promise((res) => setTimeout(res, 100));
    job = bodyOf(
      await run.call(
        {
          method: 'GET',
          path: `/api/reports/combine-status/${job.job_id}`,
          token,
          pathParameters: { job_id: job.job_id },
        },
        200,
      ),
    );
  }
  expect(job.status).toBe('done');
  return job;
}

/** Each function's paths: the calls that use every grant of its role. */
/**
 * An upload whose worker died on its last attempt after writing items: lease run out, attempts spent,
 * an identity recorded (recovery fails it: refund, items, source and identity deleted).
 */
async function spentUpload(userId: string): Promise<void> {
  const spent = await chargedProcessingReport(userId, makeReport({ seed: 11, rows: 40 }), true);
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: reportKey(userId, spent.id),
      UpdateExpression: 'SET lease_until = :past, attempts = :max, #identity = :identity',
      ExpressionAttributeNames: { '#identity': 'identity' },
      ExpressionAttributeValues: {
        ':past': 0,
        ':max': getConfig().WORKER_MAX_ATTEMPTS,
        ':identity': `iam-${randomUUID()}`,
      },
    }),
  );
}

const SCENARIOS: Record<FunctionName, (run: Run) => Promise<void>> = {
  // --- auth
  authRegister: async (run) => {
    await run.call(
      { method: 'POST', path: '/api/auth/register', body: { email: `iam-${randomUUID()}@example.com` } },
      202,
    );
  },
  authConfirm: async (run) => {
    // The confirmation link (confirm, password mailed), then a reset link (new password mailed).
    const email = `iam-${randomUUID()}@example.com`;
    const seen = new Set<string>();
    const register = await handlerOf('authRegister');
    expect((await register(apiEvent({ method: 'POST', path: '/api/auth/register', body: { email } }))).statusCode).toBe(
      202,
    );
    const confirmMail = await mailTo(email, CONFIRM_SUBJECT, seen);
    seen.add(confirmMail.id);
    const confirm = (token: string) => run.call({ method: 'GET', path: '/api/auth/confirm', query: { token } }, 200);
    await confirm(confirmTokenOf(confirmMail));
    seen.add((await mailTo(email, PASSWORD_SUBJECT, seen)).id);
    const forgot = await handlerOf('authForgotPassword');
    expect(
      (await forgot(apiEvent({ method: 'POST', path: '/api/auth/forgot-password', body: { email } }))).statusCode,
    ).toBe(202);
    const resetMail = await mailTo(email, 'Сброс пароля', seen);
    seen.add(resetMail.id);
    await confirm(confirmTokenOf(resetMail));
    await mailTo(email, 'Ваш новый пароль', seen);
  },
  authLogin: async (run) => {
    // A wrong password is counted (throttle Put); the sign-in that follows forgets it (Delete).
    const u = await userWithPassword();
    await run.call({ method: 'POST', path: '/api/auth/login', body: { email: u.email, password: 'not-it' } }, 401);
    await run.call({ method: 'POST', path: '/api/auth/login', body: { email: u.email, password: u.password } }, 200);
  },
  authMe: async (run) => {
    await run.call({ method: 'GET', path: '/api/auth/me', token: fx.user.token }, 200);
  },
  authUpdateMe: async (run) => {
    await run.call(
      { method: 'PATCH', path: '/api/auth/me', token: fx.user.token, body: { tax: { usn_rate: 6 } } },
      200,
    );
  },
  authForgotPassword: async (run) => {
    const u = await userWithPassword();
    await run.call({ method: 'POST', path: '/api/auth/forgot-password', body: { email: u.email } }, 202);
    await mailTo(u.email, 'Сброс пароля');
  },
  authLimitHistory: async (run) => {
    // The history names the reports it charged for (BatchGetItem).
    const history = bodyOf<{ items: Array<{ report_id: string | null }> }>(
      await run.call({ method: 'GET', path: '/api/auth/limit-history', token: fx.user.token }, 200),
    );
    expect(history.items.map((e) => e.report_id)).toContain(fx.id);
  },
  authTopUp: async (run) => {
    const u = await userWithPassword();
    const me = bodyOf<{ user: { id: string } }>(
      await (
        await handlerOf('authMe')
      )(apiEvent({ method: 'GET', path: '/api/auth/me', token: u.token })),
    );
    const key = randomUUID();
    for (const body of [
      { email: u.email, rows: 100_000, idempotency_key: key },
      { email: u.email, rows: 100_000, idempotency_key: key },
      { user_id: me.user.id, rows: 5 },
    ])
      await run.call({ method: 'POST', path: '/api/auth/top-up', token: fx.admin.token, body }, 200);
  },
  authChangePassword: async (run) => {
    const u = await userWithPassword();
    await run.call(
      {
        method: 'POST',
        path: '/api/auth/change-password',
        token: u.token,
        body: { current_password: u.password, new_password: 'a-chosen-password' },
      },
      200,
    );
  },
  appConfig: async (run) => {
    await run.call({ method: 'GET', path: '/api/config' }, 200);
  },

  // --- reports
  reportsUploadUrl: async (run) => {
    const g = makeReport({ seed: 31 });
    const target = bodyOf<{ url: string; method: string }>(
      await run.call(
        {
          method: 'POST',
          path: '/api/reports/upload-url',
          token: fx.user.token,
          body: { filename: g.filename, size: g.file.length },
        },
        200,
      ),
    );
    // The browser's PUT is authorised by the signer's role.
    expect((await fetch(target.url, { method: target.method, body: g.file })).status).toBe(200);
  },
  reportsCountRows: async (run) => {
    const uploadId = await presignedUpload(fx.user.token, makeReport({ seed: 32 }));
    await run.call(
      { method: 'POST', path: '/api/reports/count-rows', token: fx.user.token, body: { upload_id: uploadId } },
      200,
    );
    // A big upload: read whole, its read kept beside it for the worker (read-handover.ts).
    const big = await presignedUpload(fx.user.token, bigReport());
    await run.call(
      { method: 'POST', path: '/api/reports/count-rows', token: fx.user.token, body: { upload_id: big } },
      200,
    );
  },
  reportsUpload: async (run) => {
    // Its own user: the upload's sweep ends that user's abandoned uploads.
    const u = await newUser(1_000_000, 'iam');
    const first = makeReport({ seed: 21 });
    const uploadId = await presignedUpload(u.token, first);
    const count = await handlerOf('reportsCountRows');
    const counted = await count(
      apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body: { upload_id: uploadId } }),
    );
    expect(counted.statusCode).toBe(200);
    // An upload whose worker died on its last attempt: the next upload's recovery fails and refunds it.
    await spentUpload(u.id);
    await run.call({ method: 'POST', path: '/api/reports/upload', token: u.token, body: { upload_id: uploadId } }, 201);
    await run.call(multipartUpload(u.token, makeReport({ seed: 22 })), 201);
    // A worker that fails every attempt: the upload answers 500.
    await withFailingWorker(() => run.call(multipartUpload(u.token, makeReport({ seed: 23 })), 500));
    // A lost invoke: the upload answers 202 and leaves the report to recovery.
    await withLostWorker(() => run.call(multipartUpload(u.token, makeReport({ seed: 24 })), 202));
  },
  reportsList: async (run) => {
    // Only reads: the caller's reports, all and of one seller.
    await run.call({ method: 'GET', path: '/api/reports', token: fx.user.token }, 200);
    await run.call(
      { method: 'GET', path: '/api/reports', token: fx.user.token, query: { seller_id: fx.sellerId } },
      200,
    );
  },
  reportsSweep: async (run) => {
    // Its own user: a report whose worker never ran (the sweep hands it to a new one once its lease ran
    // out), and an upload whose attempts are all spent (the sweep fails it: refund, items, source and
    // identity deleted).
    const u = await newUser(1_000_000, 'iam');
    await withLostWorker(async () =>
      expect((await uploadMultipart(u.token, makeReport({ seed: 26 }))).statusCode).toBe(202),
    );
    await spentUpload(u.id);
    await new Promise((r) => setTimeout(r, 5));
    await run.as(() => sweepHandler({}));
  },
  reportsGet: async (run) => {
    const { id } = fx;
    await run.call({ method: 'GET', path: `/api/reports/${id}`, token: fx.user.token, pathParameters: { id } }, 200);
  },
  reportsDelete: async (run) => {
    const { id } = await uploadOk(fx.user.token, makeReport({ seed: 27 }));
    await run.call({ method: 'DELETE', path: `/api/reports/${id}`, token: fx.user.token, pathParameters: { id } }, 204);
  },
  reportsUpdate: async (run) => {
    const { id } = fx;
    await run.call(
      {
        method: 'PATCH',
        path: `/api/reports/${id}`,
        token: fx.user.token,
        pathParameters: { id },
        body: { title: 'IAM report', seller_id: fx.sellerId },
      },
      200,
    );
  },
  reportsManualValue: async (run) => {
    const item = (await getReportOk(fx.user.token, fx.id)).items[0]!;
    for (const value of [123, null])
      await run.call(
        {
          method: 'PUT',
          path: `/api/reports/items/${item.item_id}/manual-value`,
          token: fx.user.token,
          pathParameters: { item_id: item.item_id },
          body: { field: 'realization', value },
        },
        200,
      );
  },
  reportsRebuildOne: async (run) => {
    const { id } = fx;
    await run.call(
      { method: 'POST', path: `/api/reports/${id}/rebuild`, token: fx.user.token, pathParameters: { id } },
      200,
    );
  },
  reportsRebuildMany: async (run) => {
    const many = await run.call({ method: 'POST', path: '/api/reports/rebuild', token: fx.user.token, body: {} }, 200);
    expect(bodyOf<{ rebuilt: string[] }>(many).rebuilt).toEqual(expect.arrayContaining([fx.id, fx.second]));
  },
  reportsExport: async (run) => {
    const { id } = fx;
    await run.call(
      { method: 'GET', path: `/api/reports/${id}/export`, token: fx.user.token, pathParameters: { id } },
      200,
    );
  },
  reportsSource: async (run) => {
    // A small source in the answer, a big one by a presigned GET.
    const { id } = fx;
    const source = (status: number) =>
      run.call(
        { method: 'GET', path: `/api/reports/${id}/source`, token: fx.user.token, pathParameters: { id } },
        status,
      );
    await source(200);
    process.env.MAX_INLINE_SOURCE_BYTES = '1000';
    try {
      await source(302);
    } finally {
      delete process.env.MAX_INLINE_SOURCE_BYTES;
    }
  },
  reportsSummaryExport: async (run) => {
    await run.call(
      {
        method: 'POST',
        path: '/api/reports/summary-export',
        token: fx.user.token,
        body: { report_ids: [fx.id, fx.second] },
      },
      200,
    );
  },
  reportsCombine: async (run) => {
    // Combine, then recombine the combined report (the next item generation, switched by an Update); the
    // job runs after the answer, in this function's context.
    const token = fx.user.token;
    await run.as(async () => {
      const combined = await untilDone(
        run,
        token,
        await run.call(
          { method: 'POST', path: '/api/reports/combine', token, body: { report_ids: [fx.id, fx.second] } },
          202,
        ),
      );
      const id = combined.report_id!;
      await untilDone(
        run,
        token,
        await run.call({ method: 'POST', path: `/api/reports/${id}/recombine`, token, pathParameters: { id } }, 202),
      );
    });
  },
  reportsWorker: async () => {
    // The worker runs for the routes that invoke it (here unchecked callers): an upload (a new seller,
    // items), a rebuild that re-adds a product gone from the catalog, and an upload whose worker fails
    // every attempt (retries, then the refund, its items, identity record, source and the seller it
    // created are undone).
    const u = await newUser(1_000_000, 'iam');
    const report = await uploadOk(u.token, makeReport({ seed: 28 }));
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: productKey(u.id, report.items[0]!.article) }));
    const rebuild = await handlerOf('reportsRebuildOne');
    const r = await rebuild(
      apiEvent({
        method: 'POST',
        path: `/api/reports/${report.id}/rebuild`,
        token: u.token,
        pathParameters: { id: report.id },
      }),
    );
    expect(r.statusCode).toBe(200);
    await withFailingWorker(async () =>
      expect((await uploadMultipart(u.token, makeReport({ seed: 29 }))).statusCode).toBe(500),
    );
    // A big upload counted first: the worker takes the read its preview kept instead of the file.
    const big = await presignedUpload(u.token, bigReport());
    const body = { upload_id: big };
    const counted = await (
      await handlerOf('reportsCountRows')
    )(apiEvent({ method: 'POST', path: '/api/reports/count-rows', token: u.token, body }));
    expect(counted.statusCode).toBe(200);
    const uploaded = await (
      await handlerOf('reportsUpload')
    )(apiEvent({ method: 'POST', path: '/api/reports/upload', token: u.token, body }));
    expect(uploaded.statusCode).toBe(201);
  },

  // --- WB connections
  wbConnections: async (run) => {
    const emu = await startWbEmulator({
      port: 0,
      intervalMs: 1,
      weeks: 1,
      rowsPerWeek: 20,
      sellerId: 6_000_000 + randomInt(999_999),
    });
    process.env.WB_FINANCE_API_URL = emu.url;
    process.env.WB_CALL_INTERVAL_SECONDS = '0.001';
    try {
      const u = await newUser(1_000, 'iam');
      const created = await run.call(
        { method: 'POST', path: '/api/wb/connections', token: u.token, body: { token: emu.tokens.valid } },
        201,
      );
      const { id } = bodyOf<{ connection: { id: string } }>(created).connection;
      const one = { token: u.token, pathParameters: { id } };
      // Steps (outside the role) until a page of rows is read: DELETE then deletes it. Pages of 10 rows, so
      // the first is full and the report's read goes on (a page shorter than the limit would be its last).
      const smallPages = { ...wbStepDeps, settings: () => ({ ...syncSettings(), pageLimit: 10 }) };
      for (let i = 0; i < 40 && !(await getWbConnection(u.id, id))?.reading; i++) {
        await new Promise((res) => setTimeout(res, 5));
        await runWbStep(smallPages, u.id, id);
      }
      expect((await getWbConnection(u.id, id))?.reading?.pages).toHaveLength(1);
      await run.call({ method: 'GET', path: '/api/wb/connections', token: u.token }, 200);
      await run.call({ method: 'GET', path: `/api/wb/connections/${id}`, ...one }, 200);
      await run.call({ method: 'PATCH', path: `/api/wb/connections/${id}`, body: { paused: true }, ...one }, 200);
      await run.call({ method: 'POST', path: `/api/wb/connections/${id}/sync`, body: {}, ...one }, 202);
      await run.call({ method: 'DELETE', path: `/api/wb/connections/${id}`, ...one }, 204);
    } finally {
      await emu.close();
      delete process.env.WB_FINANCE_API_URL;
      delete process.env.WB_CALL_INTERVAL_SECONDS;
    }
  },
  wbSyncTick: async (run) => {
    // A connection made through its route (unchecked here), then ticks as the function until its one
    // week is imported: the due Query (gsi1), the claim, one WB call a tick, the pages and the source in
    // S3, the charge and the worker's invoke; its token expires in 3 days, so the tick mails about it.
    const sellerId = 6_000_000 + randomInt(999_999);
    const emu = await startWbEmulator({
      port: 0,
      intervalMs: 20,
      advertIntervalMs: 20,
      weeks: 1,
      rowsPerWeek: 30,
      sellerId,
      validToken: makeEmulatorToken({
        oid: sellerId,
        scopes: [ANALYTICS_SCOPE, ADVERT_SCOPE, FINANCE_SCOPE],
        exp: Math.floor(Date.now() / 1000) + 3 * 86_400,
      }),
    });
    process.env.WB_FINANCE_API_URL = emu.url;
    process.env.WB_CALL_INTERVAL_SECONDS = '0.02';
    // The promotion and seller-analytics APIs too: the week's ad spend, paid storage and acceptance per
    // card (BatchWriteItem) and the report's rebuild.
    process.env.WB_ADVERT_API_URL = emu.url;
    process.env.WB_ADVERT_CALL_INTERVAL_SECONDS = '0.02';
    process.env.WB_ANALYTICS_API_URL = emu.url;
    try {
      const u = await newUser(1_000, 'iam');
      const r = await wbConnectionsHandler(
        apiEvent({
          method: 'POST',
          path: '/api/wb/connections',
          token: u.token,
          body: { token: emu.tokens.valid },
        }),
      );
      expect(r.statusCode).toBe(201);
      const { id } = bodyOf<{ connection: { id: string } }>(r).connection;
      const costsDone = (c: Awaited<ReturnType<typeof getWbConnection>>) =>
        !!c?.costs && Object.keys(c.costs.done).length === 1 && c.costs.rederive.length === 0;
      for (let i = 0; i < 120; i++) {
        await new Promise((res) => setTimeout(res, 25));
        await run.as(() => wbTickHandler({}));
        if (costsDone(await getWbConnection(u.id, id))) break;
      }
      const c = await getWbConnection(u.id, id);
      expect(c?.reports_imported).toBe(1);
      expect(costsDone(c)).toBe(true);
      expect(c?.costs?.error ?? null).toBeNull();
      expect(c?.expiry_mail_sent_at).toBeTruthy();
    } finally {
      await emu.close();
      delete process.env.WB_FINANCE_API_URL;
      delete process.env.WB_CALL_INTERVAL_SECONDS;
      delete process.env.WB_ADVERT_API_URL;
      delete process.env.WB_ADVERT_CALL_INTERVAL_SECONDS;
      delete process.env.WB_ANALYTICS_API_URL;
    }
  },

  // --- catalog
  productsList: async (run) => {
    await run.call({ method: 'GET', path: '/api/products', token: fx.user.token, query: { search: 'iam' } }, 200);
  },
  productsPut: async (run) => {
    await run.call(
      {
        method: 'PUT',
        path: '/api/products/IAM-1',
        token: fx.user.token,
        pathParameters: { article: 'IAM-1' },
        body: { cost_price: 10.5 },
      },
      200,
    );
  },
  productsImport: async (run) => {
    const csv = multipartBody(
      { filename: 'prices.csv', content: Buffer.from('Артикул;Себестоимость\nIAM-1;11\nIAM-2;12\n', 'utf8') },
      { create_missing: 'true' },
    );
    await run.call(
      {
        method: 'POST',
        path: '/api/products/import',
        token: fx.user.token,
        body: csv.body,
        headers: { 'content-type': csv.contentType },
      },
      200,
    );
  },
  ownCosts: async (run) => {
    await run.call(
      { method: 'PUT', path: '/api/own-costs', token: fx.user.token, body: { name: 'Упаковка', amount: 12.5 } },
      200,
    );
    await run.call({ method: 'GET', path: '/api/own-costs', token: fx.user.token }, 200);
    await run.call(
      { method: 'DELETE', path: '/api/own-costs', token: fx.user.token, query: { name: 'Упаковка' } },
      204,
    );
  },
  ownCostsImport: async (run) => {
    const csv = multipartBody(
      {
        filename: 'own.csv',
        content: Buffer.from('Артикул;Статья;Сумма за шт\nIAM-1;Упаковка;5\n;Фулфилмент;30\n', 'utf8'),
      },
      { allow_unknown: 'true' },
    );
    await run.call(
      {
        method: 'POST',
        path: '/api/own-costs/import',
        token: fx.user.token,
        body: csv.body,
        headers: { 'content-type': csv.contentType },
      },
      200,
    );
  },
  sellersList: async (run) => {
    await run.call({ method: 'GET', path: '/api/sellers', token: fx.user.token }, 200);
  },
  sellersUpdate: async (run) => {
    const id = fx.sellerId;
    await run.call(
      {
        method: 'PATCH',
        path: `/api/sellers/${id}`,
        token: fx.user.token,
        pathParameters: { id },
        body: { name: 'IAM seller' },
      },
      200,
    );
  },

  // --- analytics: a summary gone (a write that failed) is rebuilt from the items on read.
  analyticsGet: async (run) => {
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: summaryKey(fx.user.id, fx.id, 0) }));
    await run.call(
      { method: 'GET', path: '/api/analytics', token: fx.user.token, query: { seller_id: fx.sellerId } },
      200,
    );
    // An article's unit economics: the report heads (Query), the items of its weeks (Query), the seller
    // (GetItem); the generated reports carry no cost price, so the answer is the 422 naming the article.
    const article = makeReport({ seed: 21 }).expected.articles.find((a) => a.article !== '')!.article;
    const path = `/api/articles/${encodeURIComponent(article)}`;
    await run.call(
      {
        method: 'GET',
        path: `${path}/unit-economics`,
        token: fx.user.token,
        pathParameters: { article },
        query: { seller_id: fx.sellerId, weeks: '4' },
      },
      422,
    );
    await run.call(
      {
        method: 'POST',
        path: `${path}/what-if`,
        token: fx.user.token,
        pathParameters: { article },
        body: { margin: 20 },
      },
      422,
    );
  },
  analyticsExport: async (run) => {
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: summaryKey(fx.user.id, fx.id, 0) }));
    await run.call(
      { method: 'GET', path: '/api/analytics/export', token: fx.user.token, query: { seller_id: fx.sellerId } },
      200,
    );
  },

  // --- P&L and period costs
  pnlGet: async (run) => {
    await run.call(
      {
        method: 'GET',
        path: '/api/pnl',
        token: fx.user.token,
        query: { from: '2022-01', to: '2022-12', seller_id: fx.sellerId },
      },
      200,
    );
    await run.call({ method: 'GET', path: '/api/tax-thresholds', token: fx.user.token, query: { year: '2026' } }, 200);
  },
  pnlExport: async (run) => {
    await run.call(
      { method: 'GET', path: '/api/pnl/export', token: fx.user.token, query: { from: '2022-01', to: '2022-03' } },
      200,
    );
  },
  periodCosts: async (run) => {
    const created = await run.call(
      {
        method: 'POST',
        path: '/api/period-costs',
        token: fx.user.token,
        body: { name: 'IAM rent', category: 'rent', amount: 100, kind: 'monthly', from_month: '2022-01' },
      },
      201,
    );
    const id = String(JSON.parse(created.body ?? '{}').id);
    await run.call({ method: 'GET', path: '/api/period-costs', token: fx.user.token }, 200);
    await run.call(
      {
        method: 'PUT',
        path: `/api/period-costs/${id}`,
        token: fx.user.token,
        pathParameters: { id },
        body: { name: 'IAM audit', category: 'services', amount: 5, kind: 'one_off', date: '2022-02-03' },
      },
      200,
    );
    await run.call(
      { method: 'DELETE', path: `/api/period-costs/${id}`, token: fx.user.token, pathParameters: { id } },
      204,
    );
    const csv = multipartBody({
      filename: 'costs.csv',
      content: Buffer.from('Название;Категория;Сумма;Месяц\nЗарплата;зарплаты;1000;2022-01\n', 'utf8'),
    });
    await run.call(
      {
        method: 'POST',
        path: '/api/period-costs/import',
        token: fx.user.token,
        body: csv.body,
        headers: { 'content-type': csv.contentType },
      },
      200,
    );
  },

  // --- purchases and the cash flow
  cashFlowExport: async (run) => {
    await run.call(
      { method: 'GET', path: '/api/cash-flow/export', token: fx.user.token, query: { from: '2022-01', to: '2022-03' } },
      200,
    );
  },
  cashFlowGet: async (run) => {
    await run.call(
      {
        method: 'GET',
        path: '/api/cash-flow',
        token: fx.user.token,
        query: { from: '2022-01', to: '2022-12', seller_id: fx.sellerId },
      },
      200,
    );
  },
  purchases: async (run) => {
    await run.call(
      {
        method: 'POST',
        path: '/api/purchases',
        token: fx.user.token,
        body: { date: '2022-01-10', amount: 100, article: 'IAM-no-such-article' },
      },
      422,
    );
    const created = await run.call(
      { method: 'POST', path: '/api/purchases', token: fx.user.token, body: { date: '2022-01-10', amount: 100 } },
      201,
    );
    const id = String(JSON.parse(created.body ?? '{}').id);
    await run.call({ method: 'GET', path: '/api/purchases', token: fx.user.token }, 200);
    await run.call(
      {
        method: 'PUT',
        path: `/api/purchases/${id}`,
        token: fx.user.token,
        pathParameters: { id },
        body: { date: '2022-01-11', amount: 5, quantity: 3 },
      },
      200,
    );
    await run.call(
      { method: 'DELETE', path: `/api/purchases/${id}`, token: fx.user.token, pathParameters: { id } },
      204,
    );
    const csv = multipartBody({
      filename: 'purchases.csv',
      content: Buffer.from('Дата;Сумма;Комментарий\n10.01.2022;1000;Поставщик\n', 'utf8'),
    });
    await run.call(
      {
        method: 'POST',
        path: '/api/purchases/import',
        token: fx.user.token,
        body: csv.body,
        headers: { 'content-type': csv.contentType },
      },
      200,
    );
  },

  // --- Telegram (the bot's token unset: unlinking tells no chat; the webhook answers in its reply)
  telegram: async (run) => {
    await withTelegram(async () => {
      const token = fx.user.token;
      await run.call({ method: 'GET', path: '/api/notifications/telegram', token }, 200);
      const code = bodyOf<{ code: string }>(
        await run.call({ method: 'POST', path: '/api/notifications/telegram/link', token }, 201),
      ).code;
      await startTelegram(code, randomInt(1, 1e9));
      await run.call({ method: 'DELETE', path: '/api/notifications/telegram', token }, 204);
    });
  },
  telegramWebhook: async (run) => {
    await withTelegram(async () => {
      const u = await newUser(10, 'iam-tg');
      const { code } = await createLinkCode(linkDeps(), u.id);
      const chat = randomInt(1, 1e9);
      const hook = (text: string) => ({
        method: 'POST',
        path: '/api/telegram/webhook',
        headers: { 'x-telegram-bot-api-secret-token': TELEGRAM_SECRET },
        body: { update_id: 1, message: { message_id: 1, date: 1, chat: { id: chat, type: 'private' }, text } },
      });
      // Links (code Update, link and marker Gets, transaction Puts); a reused code (Update refused, Get);
      // /stop (marker Get, link and marker Deletes).
      await run.call(hook(`/start ${code}`), 200);
      await run.call(hook(`/start ${code}`), 200);
      await run.call(hook('/stop'), 200);
    });
  },

  // --- docs
  // --- notifications
  notifications: async (run) => {
    const token = fx.user.token;
    await run.call({ method: 'GET', path: '/api/notifications/settings', token }, 200);
    const body = { events: { digest: { email: true, telegram: false } }, quiet_hours: null, profit_drop_percent: 25 };
    await run.call({ method: 'PUT', path: '/api/notifications/settings', token, body }, 200);
    await run.call({ method: 'GET', path: '/api/notifications', token }, 200);
  },
  notificationsUnsubscribe: async (run) => {
    const u = await newUser(1_000, 'iam');
    const token = signUnsubscribe(unsubscribeKey(), u.id, 'digest');
    await run.call({ method: 'GET', path: '/api/notifications/unsubscribe', query: { token } }, 200);
    await run.call({ method: 'POST', path: '/api/notifications/unsubscribe', query: { token } }, 200);
  },
  notificationsTick: async (run) => {
    // The fixtures' ready reports recorded their events: the tick turns them into deliveries and mails them.
    const r = await run.as(() => notificationsTickHandler({}));
    expect(r.sent).toBeGreaterThan(0);
  },
  notificationsDigest: async (run) => {
    // A user whose report became ready in the week before the last Monday's run, on that run's roster.
    const u = await newUser(100_000, 'iam');
    const report = await uploadOk(u.token, makeReport({ seed: 41 }));
    const run7 = lastDigestRun(Date.now());
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: reportKey(u.id, report.id),
        UpdateExpression: 'SET created_at = :at',
        ExpressionAttributeValues: { ':at': new Date(run7 - 86_400_000).toISOString() },
      }),
    );
    await markForDigest(isoWeek(run7), u.id);
    const r = await run.as(() => notificationsDigestHandler({}));
    expect(r.recorded).toBeGreaterThanOrEqual(1);
  },

  apiOpenapi: async (run) => {
    const r = await run.call({ method: 'GET', path: '/api/openapi.json' }, 200);
    expect(JSON.parse(r.body ?? '{}').openapi).toBe('3.1.0');
  },
};

const TELEGRAM_SECRET = 'iam-webhook-secret-0123456789';

/** Runs `work` with a bot name and a webhook secret set (the suite's environment has no Telegram). */
async function withTelegram(work: () => Promise<void>): Promise<void> {
  process.env.TELEGRAM_BOT_NAME = 'IamTestBot';
  process.env.TELEGRAM_WEBHOOK_SECRET = TELEGRAM_SECRET;
  try {
    await work();
  } finally {
    delete process.env.TELEGRAM_BOT_NAME;
    delete process.env.TELEGRAM_WEBHOOK_SECRET;
  }
}

/** A chat sends `/start <code>` (as the webhook use case, outside any function's role). */
async function startTelegram(code: string, chatId: number): Promise<void> {
  const reply = await handleUpdate(webhookDeps(), TELEGRAM_SECRET, {
    update_id: 1,
    message: { chat: { id: chatId, type: 'private' }, text: `/start ${code}` },
  });
  expect(reply?.text).toMatch(/^Готово/);
}

// ---------------------------------------------------------------------------------------------

const ENV_KEYS = ['MAX_INLINE_SOURCE_BYTES', 'WORKER_LEASE_MS', 'UPLOAD_WAIT_MS'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  checkOn(ddb(), 'dynamodb', dynamoCalls);
  checkOn(s3(), 's3', s3Calls);
  if (s3Public() !== s3()) checkOn(s3Public(), 's3', s3Calls);
  checkOn(ses(), 'ses', sesCalls);
  // The worker's asynchronous invoke (every composition's: the upload's, the rebuild routes', the
  // sweep's, the WB tick's) is checked as the lambda:InvokeFunction of its caller, and the worker it
  // starts at this process's Lambda endpoint (scripts/local/in-process-worker.ts) runs as reportsWorker.
  checkOn(lambdaClient(), 'lambda', lambdaCalls);
  onWorkerEvent(runWorker);
  const user = await newUser(1_000_000, 'iam');
  const first = await uploadOk(user.token, makeReport({ seed: 21 }));
  const second = await uploadOk(user.token, makeReport({ seed: 22 }));
  const admin = await createUser({ email: `iam-admin-${randomUUID()}@example.com`, confirmed: true, limits: 0 });
  await setRole(admin.id, 'admin');
  expect(first.seller?.id).toBeTruthy();
  fx = {
    user,
    id: first.id,
    second: second.id,
    sellerId: first.seller!.id,
    admin: { id: admin.id, token: signToken({ user_id: admin.id }, 'access') },
  };
});

/** A file bigger than a request reads whole (file-input.ts WHOLE_READ_MAX_BYTES), made once. */
let big: ReturnType<typeof makeReport> | undefined;
const bigReport = () => (big ??= makeReport({ rows: 9000, articles: 300, format: 'zip', seed: 34 }));

/** The worker as the Lambda endpoint runs it: as reportsWorker, unless invokes are lost. */
async function runWorker(event: WorkerEvent): Promise<void> {
  if (dropInvokes) return;
  await runningFor.run('reportsWorker', () => runWorkerEvent(workerDeps ?? reportDeps, event));
}

afterAll(() => {
  useInProcessWorker();
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

describe.each(FUNCTIONS.map(([fn]) => fn))('IAM role of %s (shared/contract/functions.ts)', (fn) => {
  it('allows every call its paths make, and grants nothing they do not use', async () => {
    const handler = await handlerOf(fn);
    const as = <T>(work: () => Promise<T>) => runningFor.run(fn, work);
    const run: Run = {
      as,
      call: async (input, status) => {
        const r = await as(() => handler(apiEvent(input)));
        expect(r.statusCode, `${fn} ${input.method ?? ''} ${input.path ?? ''}: ${r.body ?? ''}`).toBe(status);
        return r;
      },
    };
    const deniedBefore = denied.length;
    try {
      await SCENARIOS[fn](run);
      // Workers the scenario started in the background end before its calls are counted.
      await idleWorkers();
    } finally {
      // A refused call explains a failed path better than the status it led to.
      expect(denied.slice(deniedBefore), 'calls the role does not allow').toEqual([]);
    }
    const mine = calls.get(fn) ?? [];
    const grants = GRANTS.get(fn)!;
    if (!grants.length) expect(mine, 'a function granted nothing makes no AWS call').toEqual([]);
    const idle = grants
      .filter((g) => !mine.some((c) => c.action === g.action && matches(g.resource, c.resource)))
      .map((g) => `${g.action} on ${g.resource}`);
    expect(idle, 'granted, never used').toEqual([]);
  });
});

it('refused no call anywhere (the worker runs for other functions too)', () => {
  expect(denied).toEqual([]);
});
