/**
 * Operator tool (docs/API.md: no route grants admin).
 *
 *   npm run admin -- grant <email>          make the account an administrator
 *   npm run admin -- top-up <email> <rows>  add row limits (same transaction as the top-up route)
 *
 * It talks to DynamoDB only. By default it targets the local stack of `npm start` (DynamoDB Local on
 * http://localhost:8000, table report-profitability-local); DYNAMODB_ENDPOINT, DYNAMODB_PORT,
 * TABLE_NAME and AWS_REGION override that, and an empty DYNAMODB_ENDPOINT means real AWS with the
 * usual credential chain.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
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

/**
 * The environment for the local stack. shared/config.ts validates the whole configuration, including
 * settings this tool never uses (mail, bucket, JWT secret); those get the local stack's values so the
 * parse passes — none of them is used to sign, send or store anything here.
 */
export function applyLocalDefaults(env: NodeJS.ProcessEnv, root = path.resolve(__dirname, '..')): void {
  const setDefault = (k: string, v: string) => {
    if (env[k] === undefined) env[k] = v;
  };
  setDefault('DYNAMODB_ENDPOINT', `http://localhost:${env.DYNAMODB_PORT ?? '8000'}`);
  setDefault('TABLE_NAME', 'report-profitability-local');
  setDefault('AWS_REGION', 'eu-central-1');
  if (env.DYNAMODB_ENDPOINT) {
    // DynamoDB Local accepts any credentials; these are the ones the local stack itself uses.
    setDefault('AWS_ACCESS_KEY_ID', 'S3RVER');
    setDefault('AWS_SECRET_ACCESS_KEY', 'S3RVER');
  }
  const secretFile = path.join(root, '.data', 'jwt-secret');
  setDefault(
    'JWT_SECRET',
    existsSync(secretFile) ? readFileSync(secretFile, 'utf8').trim() : 'admin-tool-signs-no-tokens',
  );
  setDefault('BUCKET_NAME', 'report-profitability-local');
  setDefault('MAIL_FROM', 'no-reply@report-profitability.local');
  setDefault('APP_URL', 'http://localhost:5173');
}

const USAGE = [
  'usage:',
  '  npm run admin -- grant <email>          give the account the admin role (may call POST /api/auth/top-up)',
  "  npm run admin -- top-up <email> <rows>  add rows to the account's limits, with a limit_history record",
  '  npm run admin -- --help                 this text',
  '',
  'Locally it talks to DynamoDB Local (DYNAMODB_ENDPOINT, default http://localhost:8000); on AWS unset',
  'DYNAMODB_ENDPOINT and set AWS_REGION and TABLE_NAME.',
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
  applyLocalDefaults(process.env);
  runAdmin(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
