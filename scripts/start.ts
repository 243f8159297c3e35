/**
 * `npm start`: the whole application on this machine (scripts/local/stack.ts): DynamoDB Local,
 * s3rver, the SES emulator with a mailbox page, serverless-offline serving every route, and the web
 * app, and the WB API emulator with the demo seller's weeks (unless WB_FINANCE_API_URL names another
 * API; it serves the paid-storage and acceptance reports too unless WB_ANALYTICS_API_URL names another). Prints where everything is, the demo login and the demo WB token; prints every mail
 * sent; Ctrl-C stops it all.
 * Ports: API_PORT, WEB_PORT, SES_PORT, DYNAMODB_PORT, S3_PORT, MAILBOX_PORT, LAMBDA_PORT, WB_EMULATOR_PORT,
 * TELEGRAM_EMULATOR_PORT.
 * Logs of the API and the web server: .data/logs/.
 */
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { watchMail } from './local/mail';
import { repoRoot } from './local/offline';
import { PortInUseError } from './local/ports';
import { onUnexpectedExit } from './local/process';
import { startStack, type Stack } from './local/stack';
import { formatDuration, stepPrinter } from './local/steps';
import { webConfig } from './local/web';
import { stackStartLine, wbStackLines } from './local/wb/demo';

// Locally Node 20 runs what Lambda runs on 22: the AWS SDK's notice about that is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// RP_DATA_DIR: another data folder (tests of the launcher itself).
const dataDir = process.env.RP_DATA_DIR ? path.resolve(process.env.RP_DATA_DIR) : path.join(repoRoot, '.data');
const logDir = path.join(dataDir, 'logs');
mkdirSync(logDir, { recursive: true });
const logs = {
  api: createWriteStream(path.join(logDir, 'api.log'), { flags: 'a' }),
  web: createWriteStream(path.join(logDir, 'web.log'), { flags: 'a' }),
  dynamodb: createWriteStream(path.join(logDir, 'dynamodb.log'), { flags: 'a' }),
};

let stack: Stack | undefined;
let stopping = false;
let stopMailWatch: (() => void) | undefined;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    stopMailWatch?.();
    if (stack) {
      console.log('\nStopping the local stack…');
      await stack.stop();
      console.log('Stopped.');
    }
  }
  process.exit(code);
}

let firstSignalAt = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (!stopping) {
      firstSignalAt = Date.now();
      void shutdown(0);
      return;
    }
    // Ctrl-C reaches this process twice (the terminal signals the whole group, and tsx relays it):
    // only a later, deliberate second Ctrl-C means "leave now" (the exit handler still kills every
    // child group).
    if (Date.now() - firstSignalAt > 1_500) process.exit(130);
  });
}

// A child that dies (the API crashed, the JVM was killed) ends the whole stack, saying which and why:
// a half-running stack answers some requests and hangs on others.
onUnexpectedExit((name, code, signal) => {
  if (stopping || !stack) return;
  console.error(
    `\n${name} stopped unexpectedly (${signal ?? `exit code ${code}`}). Stopping the local stack; see ${path.relative(repoRoot, logDir)}/ for its last lines.`,
  );
  void shutdown(1);
});

async function main(): Promise<void> {
  const startedAt = Date.now();
  console.log(stackStartLine(process.env));
  console.log(
    '  The first start compiles every function of the API and takes a few minutes; later starts are quicker.',
  );
  if (!existsSync(webConfig(repoRoot))) console.log('web/vite.config.ts is not there yet: the web app is skipped.');
  const printer = stepPrinter((line) => console.log(line), { startedAt });
  stack = await startStack({
    dataDir,
    progress: printer.listener,
    log: (source, line) => {
      logs[source].write(`${line}\n`);
      // Handler crashes and build errors deserve a look without opening the log.
      if (source === 'api' && /^\s*×|error/i.test(line)) console.log(`[api] ${line}`);
    },
  });
  printer.stop();
  const s = stack;
  const pad = (label: string) => label.padEnd(14);
  console.log(`\nThe local stack is up (${formatDuration(Date.now() - startedAt)}).\n`);
  if (s.urls.web) console.log(`  ${pad('Web app')}${s.urls.web}`);
  console.log(`  ${pad('API')}${s.urls.api}   (OpenAPI: ${s.urls.api}/openapi.json)`);
  console.log(`  ${pad('API reference')}${s.urls.apiDocs}`);
  console.log(`  ${pad('Mailbox')}${s.urls.mailbox}   (confirmation links and passwords land here)`);
  console.log(`  ${pad('SES emulator')}${s.urls.ses}   (/store: sent mail as JSON)`);
  console.log(
    `  ${pad('DynamoDB')}${s.urls.dynamodb}   (data in ${path.relative(repoRoot, path.join(dataDir, 'dynamodb'))})`,
  );
  console.log(`  ${pad('S3')}${s.urls.s3}   (files in ${path.relative(repoRoot, path.join(dataDir, 's3'))})`);
  for (const line of wbStackLines(s.wb, s.urls.web)) console.log(line);
  if (s.urls.telegram)
    console.log(
      `  ${pad('Telegram')}${s.urls.telegram}   (the bot's messages; a user writes: POST ${s.urls.telegram}_user/<chat_id>/send {"text": "/start <code>"})`,
    );
  console.log(
    `\n  Demo login: ${s.demo.email} / ${s.demo.password}${s.demo.created ? '   (account created now)' : ''}`,
  );
  for (const note of s.notes) console.log(`  ${note}`);
  console.log(`\n  Logs: ${path.relative(repoRoot, logDir)}/   ·   Ctrl-C stops everything.\n`);

  stopMailWatch = watchMail(s.env.SES_ENDPOINT!, (mail) => {
    console.log(`✉  "${mail.subject}" to ${mail.to.join(', ')}`);
    for (const link of mail.links) console.log(`     ${link}`);
  });
}

main().catch(async (e: unknown) => {
  if (e instanceof PortInUseError) console.error(`\n${e.message}`);
  else console.error('\nThe local stack could not start:', e instanceof Error ? e.message : e);
  await shutdown(1);
});
