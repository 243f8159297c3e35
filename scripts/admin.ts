/**
 * Operator tool (docs/API.md: no route grants admin).
 *
 *   npm run admin -- grant <email>          make the account an administrator
 *   npm run admin -- top-up <email> <rows>  add row limits (same transaction as the top-up route)
 *
 * It talks to DynamoDB only. By default it targets the local stack of `npm start` by the stack's own
 * port settings (adminTarget: DYNAMODB_ENDPOINT, DYNAMODB_PORT, the running stack's .data/stack.json,
 * the default port), says which, and refuses when nothing answers there; TABLE_NAME and AWS_REGION
 * override the table, and an empty DYNAMODB_ENDPOINT means real AWS with the usual credential chain.
 */
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { configuredPort, PORT_SETTINGS, readStackFile } from './local/port-settings';
import { notFound } from '../shared/errors';
import { topUp, type TopUpResult } from '../shared/store/limits.repo';
import { ensureSeed } from '../shared/store/seed';
import { getUserByEmail, setRole } from '../shared/store/users.repo';

// Locally Node 20 runs what Lambda runs on 22: the AWS SDK's notice about that is noise for an operator.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export async function grantAdmin(email: string): Promise<{ user_id: string; email: string; role: 'admin' }> {
  await ensureSeed();
  const user = await getUserByEmail(email);
  if (!user) throw notFound(`No account with email ${email}`);
  await setRole(user.id, 'admin');
  return { user_id: user.id, email: user.email, role: 'admin' };
}

export async function adminTopUp(email: string, rows: number, idempotencyKey?: string): Promise<TopUpResult> {
  const user = await getUserByEmail(email);
  if (!user) throw notFound(`No account with email ${email}`);
  return topUp({ userId: user.id, rows, idempotencyKey });
}

/** The stack's data folder: RP_DATA_DIR as `npm start` reads it, else <root>/.data. */
function dataDirOf(env: NodeJS.ProcessEnv, root: string): string {
  return env.RP_DATA_DIR ? path.resolve(env.RP_DATA_DIR) : path.join(root, '.data');
}

/** Where the tool's DynamoDB is, and why (printed before anything is done). */
export interface AdminTarget {
  /** The endpoint, or null for real AWS (DYNAMODB_ENDPOINT set empty). */
  endpoint: string | null;
  /** Whether a local endpoint must answer before anything is done. */
  local: boolean;
  reason: string;
}

/**
 * The DynamoDB the tool talks to, by the same settings as `npm start` (scripts/local/port-settings.ts):
 * DYNAMODB_ENDPOINT when set (empty: real AWS); else DYNAMODB_PORT; else the port the stack running
 * on the same data folder (RP_DATA_DIR or <root>/.data) wrote into its stack.json; else DYNAMODB_PORT's default — said so, and checked
 * to answer before use (runAdmin), never assumed silently.
 */
export function adminTarget(env: NodeJS.ProcessEnv, root = path.resolve(__dirname, '..')): AdminTarget {
  const endpoint = env.DYNAMODB_ENDPOINT;
  if (endpoint === '') return { endpoint: null, local: false, reason: 'DYNAMODB_ENDPOINT is empty: AWS' };
  if (endpoint !== undefined) return { endpoint, local: true, reason: 'DYNAMODB_ENDPOINT' };
  const setting = PORT_SETTINGS.dynamodb;
  const configured = configuredPort('dynamodb', env);
  const at = (port: number) => `http://localhost:${port}`;
  if (configured.fromEnv)
    return { endpoint: at(configured.port), local: true, reason: `${setting.variable}=${configured.port}` };
  const running = readStackFile(dataDirOf(env, root));
  if (running)
    return {
      endpoint: at(running.ports.dynamodb),
      local: true,
      reason: `the local stack running now (pid ${running.pid}, .data/stack.json)`,
    };
  return {
    endpoint: at(configured.port),
    local: true,
    reason: `${setting.variable} unset and no local stack recorded in .data/stack.json: the default of npm start`,
  };
}

/**
 * The environment for the local stack. shared/config.ts validates the whole configuration, including
 * settings this tool never uses (mail, bucket, JWT secret); those get the local stack's values so the
 * parse passes — none of them is used to sign, send or store anything here.
 */
export function applyLocalDefaults(env: NodeJS.ProcessEnv, root = path.resolve(__dirname, '..')): AdminTarget {
  const setDefault = (k: string, v: string) => {
    if (env[k] === undefined) env[k] = v;
  };
  const target = adminTarget(env, root);
  if (target.endpoint !== null) setDefault('DYNAMODB_ENDPOINT', target.endpoint);
  setDefault('TABLE_NAME', 'report-profitability-local');
  setDefault('AWS_REGION', 'eu-central-1');
  if (env.DYNAMODB_ENDPOINT) {
    // DynamoDB Local accepts any credentials; these are the ones the local stack itself uses.
    setDefault('AWS_ACCESS_KEY_ID', 'S3RVER');
    setDefault('AWS_SECRET_ACCESS_KEY', 'S3RVER');
  }
  const secretFile = path.join(dataDirOf(env, root), 'jwt-secret');
  setDefault(
    'JWT_SECRET',
    existsSync(secretFile) ? readFileSync(secretFile, 'utf8').trim() : 'admin-tool-signs-no-tokens',
  );
  setDefault('BUCKET_NAME', 'report-profitability-local');
  setDefault('MAIL_FROM', 'no-reply@report-profitability.local');
  setDefault('APP_URL', 'http://localhost:5173');
  return target;
}

/** Refuses (throws) when nothing accepts connections at a local endpoint: no guessing at an empty port. */
export async function assertTargetAnswers(target: AdminTarget, timeoutMs = 2_000): Promise<void> {
  if (!target.local || target.endpoint === null) return;
  const url = new URL(target.endpoint);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const ok = await new Promise<boolean>((resolve) => {
    const s = net.connect({ port, host: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname });
    const done = (v: boolean) => {
      s.destroy();
      resolve(v);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
  if (!ok)
    throw new Error(
      `Nothing answers at ${target.endpoint} (${target.reason}). Start the local stack (npm start), or say where ` +
        `DynamoDB is: DYNAMODB_PORT=<port of npm start> or DYNAMODB_ENDPOINT=<url> (empty for AWS).`,
    );
}

const USAGE = [
  'usage:',
  '  npm run admin -- grant <email>          give the account the admin role (may call POST /api/auth/top-up)',
  "  npm run admin -- top-up <email> <rows>  add rows to the account's limits, with a limit_history record",
  '  npm run admin -- --help                 this text',
  '',
  'Locally it talks to the DynamoDB Local of `npm start`: DYNAMODB_ENDPOINT, else DYNAMODB_PORT, else the port',
  'the running stack recorded in .data/stack.json, else 8000 (the default of npm start) — it says which, and',
  'refuses when nothing answers there. On AWS set DYNAMODB_ENDPOINT= (empty), AWS_REGION and TABLE_NAME.',
].join('\n');

export async function runAdmin(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const [command, email, rowsText] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return 0;
  }
  if (command === 'grant' && email) {
    const r = await grantAdmin(email);
    out(`${r.email} (${r.user_id}) is now an administrator`);
    return 0;
  }
  if (command === 'top-up' && email && rowsText) {
    const rows = Number(rowsText);
    if (!Number.isSafeInteger(rows) || rows <= 0) {
      out(`rows must be a positive integer, got "${rowsText}"`);
      return 2;
    }
    const r = await adminTopUp(email, rows);
    out(`${email}: limits ${r.limits} (initial_limits ${r.initial_limits})`);
    return 0;
  }
  out(USAGE);
  return 2;
}

if (require.main === module) {
  const main = async (): Promise<number> => {
    const argv = process.argv.slice(2);
    if (argv.length === 0 || ['--help', '-h', 'help'].includes(argv[0]!)) return runAdmin(argv);
    const target = applyLocalDefaults(process.env);
    console.error(`DynamoDB: ${target.endpoint ?? 'AWS'} (${target.reason}), table ${process.env.TABLE_NAME}`);
    await assertTargetAnswers(target);
    return runAdmin(argv);
  };
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
