import { z } from 'zod';

/**
 * The environment, parsed once per process (a Lambda's cold start) with zod. A missing or malformed
 * setting fails loudly, naming every offending variable. Emulator endpoints are set only locally;
 * on AWS they are absent and the SDK's defaults apply.
 */
const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url().optional());

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const optionalParameter = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.string().startsWith('/').optional());

const schema = z.object({
  STAGE: z.string().min(1).default('local'),
  AWS_REGION: z.string().min(1).default('eu-central-1'),
  /**
   * The key that signs sessions and mailed links. Locally (and in tests) its value; on AWS it is not in
   * the environment: JWT_SECRET_PARAMETER names an SSM SecureString read at cold start (shared/secrets.ts).
   */
  JWT_SECRET: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.string().min(16, 'JWT_SECRET must be at least 16 characters').optional()),
  JWT_SECRET_PARAMETER: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.string().startsWith('/').optional()),
  TABLE_NAME: z.string().min(1),
  BUCKET_NAME: z.string().min(3),
  MAIL_FROM: z.email(),
  APP_URL: z.url(),
  INITIAL_LIMITS: z.coerce.number().int().nonnegative().default(10_000),
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(512 * 1024 * 1024),
  /** Source files up to this size are served through the API body; bigger ones get a 302 to a presigned GET. */
  MAX_INLINE_SOURCE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  COMBINE_WAIT_MS: z.coerce.number().int().nonnegative().default(10_000),
  /** How long GET combine-status waits for the job to finish before answering (long-poll). */
  COMBINE_STATUS_WAIT_MS: z.coerce.number().int().nonnegative().default(5_000),
  /**
   * The longest a request that starts work (upload, rebuild, rebuild-many, combine, recombine) takes before
   * it answers, whatever the stores do: well inside API Gateway's 29 s (and the Lambda's remaining time,
   * when shorter). Past it the request answers 202 with what it started, or 503 `try_again` when it
   * charged and started nothing (shared/reports/deadline.ts).
   */
  REQUEST_DEADLINE_MS: z.coerce.number().int().positive().default(20_000),
  /** How long upload and rebuild wait for the worker before answering 202 `processing`. */
  UPLOAD_WAIT_MS: z.coerce.number().int().nonnegative().default(8_000),
  /**
   * Reports of more rows than this are not waited for at all: the worker could not finish them within
   * UPLOAD_WAIT_MS anyway, so upload and rebuild answer 202 at once and the seller follows the progress.
   */
  UPLOAD_WAIT_ROWS: z.coerce.number().int().nonnegative().default(100_000),
  /**
   * Write units a second that new catalog products may take per catalog partition key (shared/store/
   * products.repo.ts, a token bucket per key `USER#<id>#PRODUCTS#<n>`): DynamoDB serves one partition
   * key at up to 1,000 write units a second, and nothing else of the seller shares those keys.
   */
  CATALOG_WRITE_UNITS_PER_SECOND: z.coerce.number().int().positive().default(1000),
  /**
   * The report worker (functions/reports/worker.handler.ts), invoked asynchronously. Empty: run it in
   * this process (integration tests, scripts); on AWS and under serverless-offline its function name.
   */
  WORKER_FUNCTION_NAME: z.string().default(''),
  /** serverless-offline's Lambda endpoint (local stack only); unset on AWS. */
  LAMBDA_ENDPOINT: optionalUrl,
  /** A worker that has not renewed its lease for this long is taken for dead (recover.ts). */
  WORKER_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  /** Attempts of one report's processing (the first included) before it fails and is refunded. */
  WORKER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** Lifetime of access tokens, in jsonwebtoken's notation ("7d", "12h", seconds as a number). */
  ACCESS_TOKEN_TTL: z.string().min(1).default('7d'),
  BCRYPT_COST: z.coerce.number().int().min(10).max(14).default(10),
  /** How sellers reach the operator (an email, a phone, a Telegram name), shown where the page says «обратитесь к администратору». */
  SUPPORT_CONTACT: z.string().max(200).default(''),
  /** The demo account's email, set only by the local stack (`npm start`): the sign-in page names it. */
  DEMO_EMAIL: z.string().max(200).default(''),
  /** WB's Finance API base URL (docs/WB-API.md); the local WB emulator's URL in development and tests. */
  WB_FINANCE_API_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' || v === undefined ? 'https://finance-api.wildberries.ru' : v.replace(/\/+$/, '')))
    .pipe(z.url()),
  /**
   * WB's seller-analytics-api base URL: the paid-storage and acceptance reports (docs/WB-API.md); the local
   * WB emulator's URL in development and tests.
   */
  WB_ANALYTICS_API_URL: z
    .string()
    .optional()
    .transform((v) =>
      v === '' || v === undefined ? 'https://seller-analytics-api.wildberries.ru' : v.replace(/\/+$/, ''),
    )
    .pipe(z.url()),
  /** The least time between two calls to WB for one WB account (WB: one a minute). Fractions for tests. */
  /** The longest wait a WB 429 (Retry-After / X-Ratelimit-Retry) is honoured for; a longer or non-finite one is this. */
  WB_RETRY_AFTER_MAX_SECONDS: z.coerce.number().positive().default(3600),
  /**
   * The whole of one WB call (connecting, headers, body): a slow WB holds a sync worker no longer. With the
   * tick's 25 s budget for starting steps, 25 s keeps a tick within its function's 55 s timeout.
   */
  WB_CALL_DEADLINE_SECONDS: z.coerce.number().positive().default(25),
  /** Failed WB calls in a row after which the connection shows `error` (it keeps retrying with backoff). */
  WB_FAILURES_BEFORE_ERROR: z.coerce.number().int().positive().default(3),
  /** Token checks (connect, a new token) one user may make per hour. */
  WB_CONNECT_ATTEMPTS_PER_HOUR: z.coerce.number().int().positive().default(10),
  WB_CALL_INTERVAL_SECONDS: z.coerce.number().positive().default(60),
  /** WB's promotion API base URL (docs/WB-API.md «Promotion (ads)»); the local WB emulator's URL in development and tests. */
  WB_ADVERT_API_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' || v === undefined ? 'https://advert-api.wildberries.ru' : v.replace(/\/+$/, '')))
    .pipe(z.url()),
  /** The least time between two promotion API calls for one WB account (fullstats: 3 a minute). Fractions for tests. */
  WB_ADVERT_CALL_INTERVAL_SECONDS: z.coerce.number().positive().default(20),
  /**
   * The key that wraps sellers' WB tokens when no KMS key is set (local stack and tests): 32 bytes,
   * base64. On AWS the KMS key WB_TOKEN_KMS_KEY_ID does it and this is empty.
   */
  WB_TOKEN_KEY: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .refine((v) => Buffer.from(v, 'base64').length === 32, 'WB_TOKEN_KEY must be 32 bytes in base64')
        .optional(),
    ),
  /** The KMS key (ARN) that wraps sellers' WB tokens on AWS (serverless.base.yml WbTokenKey). */
  WB_TOKEN_KMS_KEY_ID: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  /** CloudWatch namespace of the EMF metrics (shared/metrics.ts). */
  METRICS_NAMESPACE: z.string().min(1).default('ReportProfitability'),
  /**
   * Telegram's Bot API base URL (docs/NOTIFICATIONS.md «Telegram»); the local Telegram emulator's URL in development and
   * tests (scripts/local/telegram.ts).
   */
  TELEGRAM_API_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' || v === undefined ? 'https://api.telegram.org' : v.replace(/\/+$/, '')))
    .pipe(z.url()),
  /**
   * The bot's token (BotFather's `123456:ABC…`). Locally its value; on AWS TELEGRAM_BOT_TOKEN_PARAMETER
   * names an SSM SecureString read at cold start (shared/secrets.ts). Empty: Telegram is not configured.
   */
  TELEGRAM_BOT_TOKEN: optionalText,
  TELEGRAM_BOT_TOKEN_PARAMETER: optionalParameter,
  /**
   * What Telegram sends in `X-Telegram-Bot-Api-Secret-Token` with every update (given to setWebhook):
   * 16–256 of A–Z, a–z, 0–9, `_`, `-`. Locally its value; on AWS the SecureString TELEGRAM_WEBHOOK_SECRET_PARAMETER.
   */
  TELEGRAM_WEBHOOK_SECRET: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{16,256}$/, 'TELEGRAM_WEBHOOK_SECRET must be 16-256 of A-Z a-z 0-9 _ -')
        .optional(),
    ),
  TELEGRAM_WEBHOOK_SECRET_PARAMETER: optionalParameter,
  /** The bot's username without `@` (deep links `https://t.me/<name>?start=<code>`); empty: not configured. */
  TELEGRAM_BOT_NAME: z
    .string()
    .default('')
    .pipe(z.union([z.literal(''), z.string().regex(/^[A-Za-z0-9_]{5,32}$/, 'TELEGRAM_BOT_NAME: a bot username')])),
  DYNAMODB_ENDPOINT: optionalUrl,
  S3_ENDPOINT: optionalUrl,
  /**
   * How long an S3 call may wait for the store's next bytes before it fails (and the SDK, then the
   * worker's attempt, retries): the socket's idle time, so a long range read is not cut while bytes flow.
   */
  S3_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Where browsers reach S3 for presigned URLs when it differs from S3_ENDPOINT (local stack). */
  S3_PUBLIC_ENDPOINT: optionalUrl,
  SES_ENDPOINT: optionalUrl,
});

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    detail: string,
  ) {
    super(`Invalid configuration: ${detail}`);
    this.name = 'ConfigError';
  }
}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const r = schema.safeParse(env);
  // One of the two names the JWT key: its value (local) or its SSM parameter (AWS).
  const noJwt = !env.JWT_SECRET && !env.JWT_SECRET_PARAMETER;
  if (!r.success || noJwt) {
    const issues = [
      ...(r.success
        ? []
        : r.error.issues.map((i) => ({ path: String(i.path[0]), missing: i.input === undefined, message: i.message }))),
      ...(noJwt ? [{ path: 'JWT_SECRET', missing: false, message: 'set JWT_SECRET or JWT_SECRET_PARAMETER' }] : []),
    ].sort((a, b) => a.path.localeCompare(b.path));
    const vars = [...new Set(issues.map((i) => i.path))];
    const detail = issues.map((i) => `${i.path}: ${i.missing ? 'missing' : i.message}`).join('; ');
    throw new ConfigError(vars, detail);
  }
  return r.data!;
}

/** The variables the configuration reads: the schema's and the JWT key's two names. */
const VARIABLES = [...Object.keys(schema.shape), 'JWT_SECRET', 'JWT_SECRET_PARAMETER'];

let cached: { env: NodeJS.ProcessEnv; values: (string | undefined)[]; config: Config } | undefined;

/**
 * The process's configuration, parsed on first use (a Lambda's cold start) and kept while the variables
 * it reads keep their values: on Lambda they never change, so it is parsed once; a test or a script
 * that changes `process.env` gets the configuration of the new values on its next call, with no reset.
 */
export function getConfig(): Config {
  const env = process.env;
  const values = VARIABLES.map((k) => env[k]);
  if (!cached || cached.env !== env || values.some((v, i) => v !== cached!.values[i]))
    cached = { env, values, config: parseConfig(env) };
  return cached.config;
}
