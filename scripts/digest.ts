/**
 * Operator command: the weekly digest now (docs/NOTIFICATIONS.md «Digest»).
 *
 *   npm run digest -- --now                   record the due digests (the last Monday's run) and mail them
 *   npm run digest -- --now --email <E>       only this account (whether or not it is on the run's roster)
 *   npm run digest -- --now --force [...]     once more, after an outage: a new key, so a digest already sent goes again
 *
 * It records the digest events as the Monday schedule does (shared/notifications/digest.ts) and then runs
 * the delivery tick once, so the mail goes at once. Locally it targets the stack of `npm start` (the same
 * settings as `npm run admin`: DYNAMODB_ENDPOINT / DYNAMODB_PORT / .data/stack.json, and SES_ENDPOINT /
 * SES_PORT for the mail); on AWS set DYNAMODB_ENDPOINT= and SES_ENDPOINT= (empty), AWS_REGION, TABLE_NAME,
 * MAIL_FROM, APP_URL and JWT_SECRET_PARAMETER.
 */
import path from 'node:path';
import { applyLocalDefaults, assertTargetAnswers } from './admin';
import { configuredPort, readStackFile } from './local/port-settings';

const USAGE = [
  'usage:',
  '  npm run digest -- --now                 record the due digests and mail them at once',
  '  npm run digest -- --now --email <E>     only this account',
  '  npm run digest -- --now --force         again, after an outage (a new key: sent even if sent before)',
  '  npm run digest -- --help                this text',
].join('\n');

export interface DigestArgs {
  email?: string;
  force: boolean;
}

export function parseDigestArgs(argv: readonly string[]): DigestArgs | 'help' {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  if (!argv.includes('--now')) throw new Error(`--now is required\n${USAGE}`);
  const i = argv.indexOf('--email');
  const email = i >= 0 ? argv[i + 1] : undefined;
  if (i >= 0 && (!email || email.startsWith('--'))) throw new Error(`--email needs an address\n${USAGE}`);
  for (const a of argv)
    if (a.startsWith('--') && !['--now', '--email', '--force'].includes(a))
      throw new Error(`unknown option ${a}\n${USAGE}`);
  return { ...(email ? { email } : {}), force: argv.includes('--force') };
}

async function main(): Promise<void> {
  const args = parseDigestArgs(process.argv.slice(2));
  if (args === 'help') {
    console.log(USAGE);
    return;
  }
  const root = path.resolve(__dirname, '..');
  const target = applyLocalDefaults(process.env, root);
  if (process.env.SES_ENDPOINT === undefined && target.endpoint !== null) {
    const running = readStackFile(
      process.env.RP_DATA_DIR ? path.resolve(process.env.RP_DATA_DIR) : path.join(root, '.data'),
    );
    process.env.SES_ENDPOINT = `http://localhost:${running?.ports.ses ?? configuredPort('ses', process.env).port}`;
  }
  if (process.env.SES_ENDPOINT === '') delete process.env.SES_ENDPOINT;
  console.log(`DynamoDB: ${target.endpoint ?? 'AWS'} (${target.reason}); mail: ${process.env.SES_ENDPOINT ?? 'SES'}`);
  await assertTargetAnswers(target);
  const { loadSecrets } = await import('../shared/secrets');
  const { getUserByEmail } = await import('../shared/store/users.repo');
  const { runDigest } = await import('../shared/notifications/digest');
  const { digestDeps } = await import('../shared/notifications/digest-deps');
  const { notificationsTick } = await import('../shared/notifications/deliver');
  const { deliverDeps } = await import('../shared/notifications/deliver-deps');
  await loadSecrets(['jwt']);
  let userIds: string[] | undefined;
  if (args.email) {
    const user = await getUserByEmail(args.email);
    if (!user) throw new Error(`No account with email ${args.email}`);
    userIds = [user.id];
  }
  const r = await runDigest(digestDeps, { ...(userIds ? { userIds } : {}), force: args.force });
  console.log(`digest ${r.week}: ${r.recorded} recorded, ${r.nothingNew} with nothing new, ${r.off} unsubscribed`);
  const t = await notificationsTick(deliverDeps());
  console.log(`delivered: ${t.sent} sent, ${t.retried} to retry, ${t.failed} failed, ${t.held} held`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
}
