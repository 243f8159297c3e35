/**
 * The ports of the local stack and where a running stack says which it uses: `npm start` and
 * `npm run admin` read the same settings (a light module: the admin tool loads no emulator).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface StackPorts {
  api: number;
  lambda: number;
  web: number;
  dynamodb: number;
  s3: number;
  ses: number;
  mailbox: number;
  /**
   * The WB API emulator: Finance API and seller-analytics-api reports (not started when WB_FINANCE_API_URL
   * is given; WB_ANALYTICS_API_URL, when given, sends the reports elsewhere).
   */
  wbEmulator: number;
  /** The Telegram Bot API emulator (scripts/local/telegram.ts; not started when TELEGRAM_API_URL is given). */
  telegramEmulator: number;
}

/** Default ports and the environment variable that moves each (README lists them). */
export const PORT_SETTINGS: Record<keyof StackPorts, { variable: string; default: number; service: string }> = {
  api: { variable: 'API_PORT', default: 3000, service: 'API (serverless-offline)' },
  lambda: { variable: 'LAMBDA_PORT', default: 3002, service: 'serverless-offline Lambda invoke endpoint' },
  web: { variable: 'WEB_PORT', default: 5173, service: 'web app (Vite)' },
  dynamodb: { variable: 'DYNAMODB_PORT', default: 8000, service: 'DynamoDB Local' },
  s3: { variable: 'S3_PORT', default: 4569, service: 's3rver' },
  ses: { variable: 'SES_PORT', default: 8005, service: 'SES emulator' },
  mailbox: { variable: 'MAILBOX_PORT', default: 8025, service: 'mailbox page' },
  wbEmulator: { variable: 'WB_EMULATOR_PORT', default: 8787, service: 'WB Finance API emulator' },
  telegramEmulator: { variable: 'TELEGRAM_EMULATOR_PORT', default: 8081, service: 'Telegram Bot API emulator' },
};

/** The port of `key` as the environment sets it, else its default; throws for text that is no port. */
export function configuredPort(key: keyof StackPorts, env: NodeJS.ProcessEnv): { port: number; fromEnv: boolean } {
  const setting = PORT_SETTINGS[key];
  const raw = env[setting.variable];
  if (raw === undefined || raw === '') return { port: setting.default, fromEnv: false };
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${setting.variable}=${raw} is not a port number`);
  return { port: n, fromEnv: true };
}

/** What a running stack writes into its data folder: its ports and the launcher's pid. */
export interface StackFile {
  pid: number;
  ports: StackPorts;
}

export const stackFile = (dataDir: string) => path.join(dataDir, 'stack.json');

export function writeStackFile(dataDir: string, ports: StackPorts, pid = process.pid): () => void {
  const file = stackFile(dataDir);
  writeFileSync(file, `${JSON.stringify({ pid, ports } satisfies StackFile)}\n`);
  return () => rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The ports of the stack running on `dataDir`, or null when none runs (no file, or its launcher is gone). */
export function readStackFile(dataDir: string): StackFile | null {
  const file = stackFile(dataDir);
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as StackFile;
    if (!Number.isInteger(parsed.pid) || !Number.isInteger(parsed.ports?.dynamodb)) return null;
    return alive(parsed.pid) ? parsed : null;
  } catch {
    return null;
  }
}
