/**
 * Every Lambda function of the service, declared once: its handler, its runtime settings and what it
 * may touch on AWS (its IAM role, by intent). The routes it serves are the ROUTES whose `fn` names it
 * (routes.ts); a function no route names (the report worker) serves none.
 *
 * serverless.yml is generated from this file and serverless.base.yml (`npm run serverless:generate`,
 * scripts/serverless/generate.ts): one function per entry, one HTTP event per route, one IAM role per
 * function. The tests read this file too: test/integration/iam-coverage.test.ts runs each function
 * with exactly the calls `access` allows, and test/e2e/package.test.ts checks the packaged template
 * against it.
 *
 * IAM: a role allows only what its function's code does: writing its own log group (always, added by
 * the generator); on the table, the item actions it performs (transactions are authorised per
 * element: Put → PutItem, Update → UpdateItem; no function uses ConditionCheck; BatchWriteItem covers
 * its puts and deletes; nothing scans and nothing describes the table); Query on exactly the indexes it
 * reads (gsi1 = reports of one seller, gsi2 = a user's unfinished uploads; indexes are only ever
 * queried); on the bucket, only the actions under the prefixes it touches (no function lists the
 * bucket: a missing key answers 403, read as missing; HeadObject is authorised as s3:GetObject; a
 * CopyObject needs GetObject on its source and PutObject on its target; a presigned URL carries the
 * signer's permission for its action); ses:SendEmail from the MAIL_FROM identity; lambda:InvokeFunction
 * on the functions it invokes asynchronously. No managed policies, no wildcard actions, no wildcard
 * resources but the object keys under one prefix. Every authenticated route reads its caller (GetItem).
 *
 * This module is data only (no AWS, no Node APIs): the web client type-checks routes.ts against it.
 */

export type TableAction =
  'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem';
export type TableIndex = 'gsi1' | 'gsi2';
export type ObjectAction = 'GetObject' | 'PutObject' | 'DeleteObject';
/** The bucket's two prefixes (shared/files/objects.ts): files as uploaded, and reports' stored sources. */
export type BucketPrefix = 'uploads' | 'sources';
/** The resources of serverless.base.yml a function may name. */
export type QueueResource = 'WorkerFailuresQueue';

/** What a function may do on AWS besides writing its own log group; absent = nothing. */
export interface Access {
  /** Item actions on the table itself. */
  table?: readonly TableAction[];
  /** The indexes it queries (dynamodb:Query on each). */
  indexes?: readonly TableIndex[];
  /** The indexes it scans (dynamodb:Scan on each): only a sparse index of a few records, never the table. */
  scanIndexes?: readonly TableIndex[];
  /** Object actions under each bucket prefix (`<prefix>/*`). */
  bucket?: Partial<Record<BucketPrefix, readonly ObjectAction[]>>;
  /** The functions it invokes asynchronously (lambda:InvokeFunction, by the deployed name). */
  invoke?: readonly string[];
  /** ses:SendEmail from the MAIL_FROM identity (its domain, or the address itself). */
  mail?: true;
  /**
   * The secrets it reads at cold start (shared/secrets.ts: ssm:GetParameter on each SecureString).
   * Absent: `['jwt']` for a function that serves routes (the HTTP stack loads the JWT key before every
   * route; shared/http/handler.ts), none otherwise. A route's handler that declares `secrets: []` says
   * `secrets: []` here too.
   */
  secrets?: readonly SecretName[];
  /**
   * Actions on the KMS key that wraps sellers' WB tokens (serverless.base.yml `WbTokenKey`;
   * shared/marketplaces/wb/kms-wrapper.ts): GenerateDataKey to seal a token, Decrypt to open one. Every call carries
   * the encryption context (the seller), which the key policy does not need to name.
   */
  kms?: readonly KmsAction[];
}

export type KmsAction = 'GenerateDataKey' | 'Decrypt';

/** The secrets of shared/secrets.ts (kept here as data: this module imports nothing). */
export type SecretName = 'jwt' | 'telegramBot' | 'telegramWebhook';

export interface FunctionSpec {
  /** The module and its export as the Lambda runtime names it: `functions/<area>/<name>.handler.handler`. */
  handler: string;
  /** MB; the provider's default (1024) when absent. */
  memorySize?: number;
  /** Seconds; the provider's default (29, API Gateway's limit) when absent. */
  timeout?: number;
  reservedConcurrency?: number;
  /** Asynchronous invocation: Lambda's retries of a failed run, and where an event that failed them all goes. */
  async?: { maximumRetryAttempts: number; maximumEventAge: number; onFailure?: QueueResource };
  /** An EventBridge schedule that runs it (`rate(5 minutes)`, `cron(...)`), besides any routes. */
  schedule?: string;
  /** Files the function reads at run time besides its bundle (package patterns). */
  files?: readonly string[];
  /**
   * API Gateway throttling of each of its routes (requests per second for the whole stage, and the
   * bucket size); the stage's default (100/200, serverless.base.yml) when absent.
   */
  throttle?: { rate: number; burst: number };
  access: Access;
}

export const FUNCTIONS = {
  // --- auth ---
  authRegister: {
    handler: 'functions/auth/register.handler.handler',
    throttle: { rate: 5, burst: 10 },
    access: {
      // the user by email, the `seller` role record, the new user with its email marker (one
      // transaction of two Puts), the mail throttle record
      table: ['GetItem', 'PutItem'],
      mail: true,
    },
  },
  authConfirm: {
    handler: 'functions/auth/confirm.handler.handler',
    access: {
      // the user; confirm = conditional Update; a reset link = used-token Put + password Update (one
      // transaction)
      table: ['GetItem', 'PutItem', 'UpdateItem'],
      mail: true,
    },
  },
  authLogin: {
    handler: 'functions/auth/login.handler.handler',
    throttle: { rate: 20, burst: 40 },
    access: {
      // the user by email; failed sign-ins counted per address and source (throttle Get + conditional
      // Put), forgotten on success (Delete)
      table: ['GetItem', 'PutItem', 'DeleteItem'],
    },
  },
  authMe: {
    handler: 'functions/auth/me.handler.handler',
    // the caller (every authenticated route reads its user)
    access: { table: ['GetItem'] },
  },
  authUpdateMe: {
    handler: 'functions/auth/update-me.handler.handler',
    // the caller; its tax profile
    access: { table: ['GetItem', 'UpdateItem'] },
  },
  authForgotPassword: {
    handler: 'functions/auth/forgot-password.handler.handler',
    throttle: { rate: 5, burst: 10 },
    access: {
      // the user by email, the mail throttle record
      table: ['GetItem', 'PutItem'],
      mail: true,
    },
  },
  authLimitHistory: {
    handler: 'functions/auth/limit-history.handler.handler',
    // the caller; its history (the user's partition); the titles of the page's reports
    access: { table: ['GetItem', 'Query', 'BatchGetItem'] },
  },
  authTopUp: {
    handler: 'functions/auth/top-up.handler.handler',
    // the caller, the user, the idempotency key, the balance; limits Update + history Put +
    // idempotency Put (one transaction)
    access: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  },
  authChangePassword: {
    handler: 'functions/auth/change-password.handler.handler',
    // the caller; the conditional Update of its password hash
    access: { table: ['GetItem', 'UpdateItem'] },
  },
  appConfig: {
    handler: 'functions/config/get.handler.handler',
    // reads its environment only: no table, bucket, mail or secret
    access: { secrets: [] },
  },

  // --- reports ---
  reportsUploadUrl: {
    handler: 'functions/reports/upload-url.handler.handler',
    access: {
      // the caller; the upload record
      table: ['GetItem', 'PutItem'],
      // the presigned PUT the browser sends carries this permission
      bucket: { uploads: ['PutObject'] },
    },
  },
  reportsCountRows: {
    handler: 'functions/reports/count-rows.handler.handler',
    // The file is read where it lies (ranged GETs, no /tmp copy); a zipped report is held once in
    // memory while counted (a 1M-row week: ~370 MB).
    memorySize: 2048,
    throttle: { rate: 10, burst: 20 },
    access: {
      // the caller; the upload record (Get, and Update: the count kept for the upload that follows);
      // the report of a duplicate (Get) found by its identity record (Query of the user's partition)
      table: ['GetItem', 'Query', 'UpdateItem'],
      // size (HeadObject) and bytes of the upload; a big upload's read kept beside it for the worker
      // (shared/reports/upload/read-handover.ts); nothing deleted
      bucket: { uploads: ['GetObject', 'PutObject'] },
    },
  },
  reportsUpload: {
    handler: 'functions/reports/upload.handler.handler',
    // As count-rows: the file is read where it lies; a zipped report is held once in memory.
    memorySize: 2048,
    throttle: { rate: 10, burst: 20 },
    access: {
      // the caller, upload record, idempotency claims (Get), limits charge (Update + history Put +
      // report Put + claim Puts, one transaction), the report while waiting for the worker (Get) and
      // its items once ready (Query); the recovery sweep (recover.ts): hand a stuck report to a worker
      // (Update), fail + refund an upload whose attempts are spent (Update + Puts; its items Query +
      // BatchWrite deletes, its identity Delete)
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
      // the sweep's unfinished uploads
      indexes: ['gsi2'],
      bucket: {
        // reads the upload (and is the source of the copy to sources/), deletes it once consumed
        uploads: ['GetObject', 'DeleteObject'],
        // stores the source (copy or multipart bytes); deletes it when the charge is refused or the
        // sweep fails an upload
        sources: ['PutObject', 'DeleteObject'],
      },
      // hands the report to the worker
      invoke: ['reportsWorker'],
    },
  },
  reportsList: {
    handler: 'functions/reports/list.handler.handler',
    access: {
      // the caller; its reports (the user's partition; gsi1 for one seller) and sellers: only reads
      table: ['GetItem', 'Query'],
      indexes: ['gsi1'],
    },
  },
  reportsGet: {
    handler: 'functions/reports/get.handler.handler',
    // the caller, report, seller; items (Query); current cost prices for `stale` (BatchGet)
    access: { table: ['GetItem', 'BatchGetItem', 'Query'] },
  },
  reportsDelete: {
    handler: 'functions/reports/delete.handler.handler',
    access: {
      // the caller, report; items (Query + BatchWrite deletes), record and identity record (Delete)
      table: ['GetItem', 'Query', 'DeleteItem', 'BatchWriteItem'],
      // the report's stored source
      bucket: { sources: ['DeleteObject'] },
    },
  },
  reportsUpdate: {
    handler: 'functions/reports/update.handler.handler',
    // the caller, report, seller; title and seller link (conditional Update)
    access: { table: ['GetItem', 'UpdateItem'] },
  },
  reportsManualValue: {
    handler: 'functions/reports/manual-value.handler.handler',
    // the caller, report, item; item values and report totals (conditional Updates); items for the
    // totals (Query); the report's analytics summary (conditional Put)
    access: { table: ['GetItem', 'Query', 'UpdateItem', 'PutItem'] },
  },
  reportsRebuildOne: {
    handler: 'functions/reports/rebuild-one.handler.handler',
    memorySize: 2048,
    access: {
      // the caller, report, seller (Get); the rebuild task (conditional Update); the rebuilt items once
      // the worker is done (Query). The worker reads and writes the rest
      table: ['GetItem', 'Query', 'UpdateItem'],
      invoke: ['reportsWorker'],
    },
  },
  reportsRebuildMany: {
    handler: 'functions/reports/rebuild-many.handler.handler',
    memorySize: 2048,
    access: {
      // as reportsRebuildOne, plus the caller's reports (Query of the user's partition)
      table: ['GetItem', 'Query', 'UpdateItem'],
      invoke: ['reportsWorker'],
    },
  },
  reportsExport: {
    handler: 'functions/reports/export.handler.handler',
    memorySize: 2048,
    throttle: { rate: 10, burst: 20 },
    // the caller, report, seller; items (Query)
    access: { table: ['GetItem', 'Query'] },
  },
  reportsSource: {
    handler: 'functions/reports/source.handler.handler',
    throttle: { rate: 10, burst: 20 },
    access: {
      // the caller, report
      table: ['GetItem'],
      // HeadObject, GetObject, and the presigned GET of a big source
      bucket: { sources: ['GetObject'] },
    },
  },
  reportsSummaryExport: {
    handler: 'functions/reports/summary-export.handler.handler',
    // The legacy template the summary fills (shared/workbooks/summary-template.ts reads it from /var/task).
    files: ['fixtures/templates/summary-template.xls'],
    throttle: { rate: 10, burst: 20 },
    // the caller, reports; the user's sellers (Query)
    access: { table: ['GetItem', 'Query'] },
  },
  // ONE function for the three combine routes, at any concurrency: a job runs in the memory of the
  // environment that started it, and its state is stored (JOB#…) so a status call reaching another
  // environment answers from it (docs/ARCHITECTURE.md, "Combine jobs and the Lambda trade-off").
  reportsCombine: {
    handler: 'functions/reports/combine.handler.handler',
    memorySize: 2048,
    access: {
      // the caller, reports; their items (Query); the new report: items (BatchWrite; deleted again if
      // the record fails), record (conditional Put); recombine: the next item generation (BatchWrite)
      // switched by one conditional Update
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'BatchWriteItem'],
    },
  },
  // The report worker: no HTTP route. Invoked asynchronously (InvocationType Event) by upload,
  // rebuild, rebuild-many and recovery (the scheduled sweep, upload) and by itself for a retry
  // (shared/jobs/worker-invoke.ts). Minutes, not API Gateway's 29 s; Lambda retries a crashed run
  // twice, then the event goes to the on-failure destination (a queue kept 14 days for inspection;
  // the generator grants the role sqs:SendMessage on it, since Lambda delivers with the function's
  // role); recovery ends any report such a run left behind (shared/reports/worker/recover.ts).
  reportsWorker: {
    handler: 'functions/reports/worker.handler.handler',
    memorySize: 3008,
    timeout: 900,
    async: { maximumRetryAttempts: 2, maximumEventAge: 3600, onFailure: 'WorkerFailuresQueue' },
    access: {
      // the report, user, seller (Get); claim, heartbeat, finish (conditional Updates); the seller
      // found or created (transaction of Puts), cost prices (BatchGet), missing products (Put), items
      // (BatchWrite puts; a rebuild's old generation Query + BatchWrite deletes); failing an upload:
      // refund (Update + Puts), its items, its identity record (Delete) and the seller it created when
      // nothing refers to it (gsi1 Query, Deletes)
      table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
      indexes: ['gsi1'],
      // reads the stored source; deletes it when an upload fails; takes (reads, then deletes) the read
      // its preview kept beside the upload (shared/reports/upload/read-handover.ts)
      bucket: { sources: ['GetObject', 'DeleteObject'], uploads: ['GetObject', 'DeleteObject'] },
      // the next attempt after a transient failure
      invoke: ['reportsWorker'],
    },
  },

  // The recovery sweep: no HTTP route. Every 5 minutes, every user's reports whose worker died are
  // handed to a new worker, or failed and refunded once after the last attempt
  // (shared/reports/worker/recover.ts sweepPendingReports). Locally the stack runs it on an interval.
  reportsSweep: {
    handler: 'functions/reports/sweep.handler.handler',
    timeout: 120,
    schedule: 'rate(5 minutes)',
    // Not retried and never older than its period: the next sweep comes within 5 minutes and finds the
    // same reports. Reserved concurrency: the deploy setting sweepConcurrency (serverless.base.yml).
    async: { maximumRetryAttempts: 0, maximumEventAge: 300 },
    access: {
      // every user's pending reports (Scan of the sparse gsi2), each record (Get); hand a stuck report
      // to a worker (Update), fail + refund an upload whose attempts are spent (Update + Puts; its items
      // Query + BatchWrite deletes, its identity Delete)
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
      scanIndexes: ['gsi2'],
      // deletes the stored source of a failed upload
      bucket: { sources: ['DeleteObject'] },
      // hands a report whose worker died to a new one
      invoke: ['reportsWorker'],
    },
  },

  // --- WB connections (docs/WB-API.md) ---
  // ONE function for the six connection routes: they share the token check and the presenter.
  wbConnections: {
    handler: 'functions/wb/connections.handler.handler',
    access: {
      // the caller; its connections (Query of the user's partition), one connection (Get); connect: the
      // seller found or created (transaction of Puts), the connection with its cursor (Put), the user's
      // token-check throttle (Get, conditional Put), the WB account's call budget (Update once WB accepted
      // the token); PATCH/sync (conditional Updates); disconnect (Delete)
      table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      // disconnect: the pages of rows the connection read and had not imported yet
      bucket: { sources: ['DeleteObject'] },
      // seals a new token under a fresh data key
      kms: ['GenerateDataKey'],
    },
  },
  // The sync tick (EventBridge, every minute; locally the stack runs it on an interval): runs one step of
  // every connection that is due (shared/marketplaces/wb/sync/step.ts), each step at most one WB call.
  wbSyncTick: {
    handler: 'functions/wb/sync-tick.handler.handler',
    // A full page of WB rows is ~210 MB of JSON (docs/WB-API.md): read as a stream of rows, its checked rows
    // held and gzip'd (about 0.5 GB at the peak, docs/PERFORMANCE.md «The WB sync»); the memory buys CPU too.
    memorySize: 2048,
    // Under the schedule's 60 s period: no step starts after 25 s of a tick (TICK_BUDGET_MS of the
    // handler), so a tick ends before the next begins. Its reserved concurrency is the deploy setting
    // tickConcurrency (serverless.base.yml; 1 unless set, 0 on a small quota: the claims make an overlap
    // harmless anyway).
    timeout: 55,
    // A tick that failed or could not run is not retried: the next one comes within the minute and
    // takes the same due connections. Lambda drops the event (alarmed: AsyncEventsDropped).
    async: { maximumRetryAttempts: 0, maximumEventAge: 60 },
    access: {
      // the due connections (gsi1, partition WBSYNC#DUE), each connection (Get), its claim and cursor (conditional Updates),
      // the WB account's budget (conditional Update: reserved at the claim, released by WB's answer); an imported report: limits charge (Update +
      // history Put + report Put + identity Put, one transaction), the user and the seller (Get), the
      // identity lookup (Query of the user's partition); per-article costs: the seller's reports (gsi1),
      // the costs of each call (BatchWriteItem), a report's rebuild started (Update)
      table: ['BatchWriteItem', 'GetItem', 'Query', 'PutItem', 'UpdateItem'],
      indexes: ['gsi1'],
      // the pages of rows read from WB, joined into the report's source (rebuilds read it again), then
      // deleted once the report is imported or found a duplicate
      bucket: { sources: ['PutObject', 'GetObject', 'DeleteObject'] },
      // opens the connection's token
      kms: ['Decrypt'],
      // hands an imported report to the worker
      invoke: ['reportsWorker'],
      // 7 days before a connection's token expires: the token_expiring notification recorded (Put; the
      // notifications tick mails it: shared/marketplaces/wb/sync/expiry.ts)
    },
    schedule: 'rate(1 minute)',
  },

  // --- catalog ---
  productsList: {
    handler: 'functions/products/list.handler.handler',
    // the caller; its products (Query)
    access: { table: ['GetItem', 'Query'] },
  },
  productsPut: {
    handler: 'functions/products/put.handler.handler',
    // the caller; the product (read, then a Put conditional on its updated_at: dated prices)
    access: { table: ['GetItem', 'PutItem'] },
  },
  productsImport: {
    handler: 'functions/products/import.handler.handler',
    throttle: { rate: 5, burst: 10 },
    // the caller; existing products (BatchGet), the imported ones (BatchWrite). The file comes in the
    // multipart body: no S3
    access: { table: ['GetItem', 'BatchGetItem', 'BatchWriteItem'] },
  },
  // ONE function for listing, setting and deleting own per-unit costs (one record per user).
  ownCosts: {
    handler: 'functions/own-costs/own-costs.handler.handler',
    // the caller; the user's own-costs record (Get, then a Put conditional on its revision); a change
    // starts the covered reports' rebuilds (rebuild-covered.ts): the user's reports (Query), each rebuild
    // task or its rebuild_again mark (conditional Update), the worker invoked
    access: { table: ['GetItem', 'PutItem', 'Query', 'UpdateItem'], invoke: ['reportsWorker'] },
  },
  ownCostsImport: {
    handler: 'functions/own-costs/import.handler.handler',
    throttle: { rate: 5, burst: 10 },
    // the caller; the file's articles in the catalog (BatchGet), the own-costs record (Get, conditional
    // Put). The file comes in the multipart body: no S3. The covered reports' rebuilds as ownCosts
    access: { table: ['GetItem', 'BatchGetItem', 'PutItem', 'Query', 'UpdateItem'], invoke: ['reportsWorker'] },
  },
  sellersList: {
    handler: 'functions/sellers/list.handler.handler',
    // the caller; its sellers (Query)
    access: { table: ['GetItem', 'Query'] },
  },
  sellersUpdate: {
    handler: 'functions/sellers/update.handler.handler',
    // the caller; the seller (conditional Update)
    access: { table: ['GetItem', 'UpdateItem'] },
  },

  // --- analytics ---
  // ONE function for the period analytics and an article's unit economics and what-if.
  analyticsGet: {
    handler: 'functions/analytics/get.handler.handler',
    // the caller, the seller asked for; reports, summaries, products and sellers (Query of the user's
    // partition); items of a report whose summary is out of date, or of the weeks of an article's unit
    // economics (Query), a summary rewritten (conditional Put)
    access: { table: ['GetItem', 'Query', 'PutItem'] },
  },
  analyticsExport: {
    handler: 'functions/analytics/export.handler.handler',
    // as analyticsGet
    access: { table: ['GetItem', 'Query', 'PutItem'] },
  },

  // --- P&L and period costs ---
  pnlGet: {
    handler: 'functions/pnl/get.handler.handler',
    // the caller, the seller asked for (Get); reports with their totals, period costs, sellers (Query
    // of the user's partition). Reads only
    access: { table: ['GetItem', 'Query'] },
  },
  pnlExport: {
    handler: 'functions/pnl/export.handler.handler',
    // as pnlGet
    access: { table: ['GetItem', 'Query'] },
  },
  periodCosts: {
    handler: 'functions/pnl/period-costs.handler.handler',
    throttle: { rate: 10, burst: 20 },
    // the caller, a seller (Get); the costs (Query); one cost written or deleted (conditional Put,
    // Delete); an import's costs (BatchWrite). The file comes in the multipart body: no S3
    access: { table: ['GetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem'] },
  },

  // --- purchases and the cash flow ---
  cashFlowGet: {
    handler: 'functions/cashflow/get.handler.handler',
    // as pnlGet, plus the purchases, WB's balance readings and the WB connections (Query of the user's partition). Reads only
    access: { table: ['GetItem', 'Query'] },
  },
  cashFlowExport: {
    handler: 'functions/cashflow/export.handler.handler',
    // as cashFlowGet
    access: { table: ['GetItem', 'Query'] },
  },
  purchases: {
    handler: 'functions/cashflow/purchases.handler.handler',
    throttle: { rate: 10, burst: 20 },
    // the caller, a seller, the articles named (Get, BatchGet of the product shards); the purchases
    // (Query); one written or deleted (conditional Put, Delete); an import's (BatchWrite). No S3
    access: { table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem'] },
  },

  // --- Telegram (docs/NOTIFICATIONS.md «Telegram») ---
  telegram: {
    handler: 'functions/notifications/telegram.handler.handler',
    // the caller; its link (Get), a new link code (conditional Put); unlinking deletes the link and its
    // chat marker (Delete). The bot's token tells the chat it is unlinked
    access: { table: ['GetItem', 'PutItem', 'DeleteItem'], secrets: ['jwt', 'telegramBot'] },
  },
  telegramWebhook: {
    handler: 'functions/notifications/telegram-webhook.handler.handler',
    throttle: { rate: 30, burst: 60 },
    // the code (conditional Update; Get when refused), the link and chat markers (Get; one transaction
    // of Puts and Deletes), `/stop` deletes them. Answers in the webhook reply: no bot token
    access: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], secrets: ['telegramWebhook'] },
  },
  // --- notifications (docs/NOTIFICATIONS.md) ---
  notifications: {
    handler: 'functions/notifications/notifications.handler.handler',
    // the caller; its settings (Get, Put); its deliveries (Query of the user's partition)
    access: { table: ['GetItem', 'PutItem', 'Query'] },
  },
  notificationsUnsubscribe: {
    handler: 'functions/notifications/unsubscribe.handler.handler',
    throttle: { rate: 10, burst: 20 },
    // the token's user and its settings (Get), the settings written (Put); the token is checked with the
    // signing secret (jwt)
    access: { table: ['GetItem', 'PutItem'] },
  },
  // The delivery tick: no HTTP route. Every minute: new events into deliveries, then the due deliveries
  // claimed and sent (shared/notifications/deliver.ts). A run ends well within the minute (at most
  // TICK_BATCH messages); an overlap is harmless: the claims keep each delivery to one tick.
  notificationsTick: {
    handler: 'functions/notifications/tick.handler.handler',
    memorySize: 512,
    timeout: 55,
    schedule: 'rate(1 minute)',
    async: { maximumRetryAttempts: 0, maximumEventAge: 60 },
    access: {
      // new events (gsi1 NOTIFY#NEW) and due deliveries (gsi1 NOTIFY#DUE), the only Queries; the event, the user, the
      // settings (Get); deliveries written once (conditional Put); the event taken off the new list, a
      // claim and its end (conditional Updates); the user's Telegram link (Get), marked broken (Update)
      table: ['GetItem', 'PutItem', 'UpdateItem'],
      indexes: ['gsi1'],
      mail: true,
      // the bot's token, when Telegram is configured (sendMessage)
      secrets: ['telegramBot'],
    },
  },
  // The weekly digest: Monday 07:00 UTC (10:00 Moscow), after WB's reports of the week. Each account
  // with something new gets one digest event (`digest:<user>:<ISO week>`); the tick mails it.
  notificationsDigest: {
    handler: 'functions/notifications/digest.handler.handler',
    memorySize: 1024,
    timeout: 600,
    schedule: 'cron(0 7 ? * MON *)',
    async: { maximumRetryAttempts: 0, maximumEventAge: 3600 },
    access: {
      // the roster of the week (Query), each user and settings (Get), its reports (Query of the user's
      // partition), the digest event (conditional Put)
      table: ['GetItem', 'PutItem', 'Query'],
      // the unsubscribe link is signed with the signing secret
      secrets: ['jwt'],
    },
  },

  // --- docs ---
  // The OpenAPI document (docs/openapi.json, bundled into the function): no AWS access at all.
  apiOpenapi: {
    handler: 'functions/docs/openapi.handler.handler',
    memorySize: 256,
    access: { secrets: [] },
  },
} as const satisfies Record<string, FunctionSpec>;

export type FunctionName = keyof typeof FUNCTIONS;

/** Every declared function with its spec, in declaration order. */
export const functionEntries = (): Array<[FunctionName, FunctionSpec]> =>
  Object.entries(FUNCTIONS) as Array<[FunctionName, FunctionSpec]>;
