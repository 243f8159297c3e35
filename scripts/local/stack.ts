import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { signInDeps } from '../../shared/auth/deps';
import { ensureDemoUser } from '../../shared/store/seed';
import { seedDemoReport } from './demo-report';
import { emulatorEnv, startEmulators } from './emulators';
import { startMailbox } from './mailbox';
import { startOffline, repoRoot } from './offline';
import { configuredPort, PORT_SETTINGS, writeStackFile, type StackPorts } from './port-settings';
import { startInProcessWorker } from './in-process-worker';
import { LOCAL_SWEEP_EVERY_MS, startSweep } from './sweep';
import { startWbSyncTick } from './wb-sync';
import { LOCAL_NOTIFICATIONS_EVERY_MS, startNotificationsTick } from './notifications';
import { assertPortFree, freePorts } from './ports';
import { step, type StepListener } from './steps';
import { startWeb, webConfig } from './web';
import { startWbEmulator } from './wb-emulator';
import { startTelegramEmulator, type TelegramEmulator } from './telegram';
import { telegramBot } from '../../shared/notifications/telegram/deps';
import { DEMO_ROWS_PER_WEEK, DEMO_WB_SELLER_ID, demoWbSeller, wbStackSettings, type StackWb } from './wb/demo';

export { PORT_SETTINGS, type StackPorts } from './port-settings';

export interface StackOptions {
  /** Persistent data: dynamodb/, s3/, jwt-secret, demo-password (default: <repo>/.data). */
  dataDir?: string;
  /** Fixed ports; the rest come from the environment variables of PORT_SETTINGS or their defaults. */
  ports?: Partial<StackPorts>;
  /** Tests: any port not given in `ports` is a free one instead of the configured default. */
  freePorts?: boolean;
  /** Start the web app (default: when web/vite.config.ts exists). */
  web?: boolean;
  /** Every line the API server and the web server print, tagged with its source. */
  log?: (source: 'api' | 'web' | 'dynamodb', line: string) => void;
  /** Environment of the process (default process.env): ports are read from it. */
  env?: NodeJS.ProcessEnv;
  /** Told when each step starts and ends, with its time (`npm start` prints them). */
  progress?: StepListener;
}

export interface Stack {
  urls: {
    /** `http://localhost:<API_PORT>/api`: the base of every route. */
    api: string;
    /** The web app, when it runs. */
    web?: string;
    /** The page that lists sent mail. */
    mailbox: string;
    /** The API reference (Swagger UI over the contract's OpenAPI document). */
    apiDocs: string;
    /** The SES emulator itself (`/store` is its JSON of sent mail). */
    ses: string;
    dynamodb: string;
    s3: string;
    /** The Telegram emulator's page of the bot's messages (absent when TELEGRAM_API_URL points elsewhere). */
    telegram?: string;
  };
  ports: StackPorts;
  demo: { email: string; password: string; created: boolean; passwordKnown: boolean };
  /** WB's Finance API as the handlers reach it: the emulator with its demo token, or the URL given. */
  wb: StackWb;
  /** Messages for people (sample report, warnings), printed by the launcher. */
  notes: string[];
  /** The environment the handlers run with. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export const DEMO_EMAIL = 'demo@example.com';

/** The local bot's username (deep links `https://t.me/LocalReportsBot?start=…`; the emulator answers for it). */
export const LOCAL_BOT_NAME = 'LocalReportsBot';

/** No look-alike characters (0/O, 1/l/I), as for generated passwords. */
const PASSWORD_ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A value kept in a file under dataDir, created on first use (mode 0600: it is a secret). */
function keptSecret(file: string, make: () => string): string {
  if (existsSync(file)) {
    const v = readFileSync(file, 'utf8').trim();
    if (v) return v;
  }
  const v = make();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${v}\n`, { mode: 0o600 });
  return v;
}

async function resolvePorts(opts: StackOptions): Promise<StackPorts> {
  const env = opts.env ?? process.env;
  const ports = {} as StackPorts;
  // Distinct by construction (freePort() in a loop may hand the same port out twice).
  const spare = opts.freePorts ? await freePorts(Object.keys(PORT_SETTINGS).length) : [];
  for (const key of Object.keys(PORT_SETTINGS) as Array<keyof StackPorts>) {
    const given = opts.ports?.[key];
    if (given !== undefined) ports[key] = given;
    else if (opts.freePorts) ports[key] = spare.pop() as number;
    else ports[key] = configuredPort(key, env).port;
  }
  const seen = new Map<number, string>();
  for (const [key, port] of Object.entries(ports) as Array<[keyof StackPorts, number]>) {
    const other = seen.get(port);
    if (other)
      throw new Error(`${PORT_SETTINGS[key].variable} and ${other} are both ${port}: give each service its own port`);
    seen.set(port, PORT_SETTINGS[key].variable);
  }
  return ports;
}

/**
 * One process runs one stack address at a time: the shared AWS clients (shared/store/client.ts and
 * friends) are made once per process, so a later stack in the same process must reuse the ports.
 *
 * The whole local stack: DynamoDB Local (data kept in dataDir), s3rver, the SES emulator, the
 * mailbox page, serverless-offline with every route, and the web app. Creates the table and bucket
 * when missing and the demo account on first start. A busy port fails with PortInUseError (names
 * the variable to change) before anything starts. stop() ends every child, the JVM included.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dataDir = path.resolve(opts.dataDir ?? path.join(repoRoot, '.data'));
  const ports = await resolvePorts(opts);
  const withWeb = opts.web ?? existsSync(webConfig(repoRoot));
  const processEnv = opts.env ?? process.env;
  const wb = wbStackSettings(processEnv, ports.wbEmulator);
  for (const key of Object.keys(ports) as Array<keyof StackPorts>) {
    if (key === 'web' && !withWeb) continue;
    if (key === 'wbEmulator' && !wb.emulator) continue;
    if (key === 'telegramEmulator' && processEnv.TELEGRAM_API_URL) continue;
    await assertPortFree(ports[key], PORT_SETTINGS[key].variable, PORT_SETTINGS[key].service);
  }

  const jwtSecret = keptSecret(path.join(dataDir, 'jwt-secret'), () => randomBytes(48).toString('base64url'));
  // Kept with the data: tokens sealed under it stay readable across restarts.
  const wbTokenKey = keptSecret(path.join(dataDir, 'wb-token-key'), () => randomBytes(32).toString('base64'));
  const passwordFile = path.join(dataDir, 'demo-password');
  const passwordKnownBefore = existsSync(passwordFile);
  const demoPassword = keptSecret(passwordFile, () =>
    Array.from({ length: 14 }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join(''),
  );
  const webOrigin = `http://localhost:${ports.web}`;
  // Telegram: the emulator, its bot's token and the webhook's secret (kept, so a restart keeps links
  // working); TELEGRAM_API_URL given (a real bot): its settings are passed on as they are.
  const telegramEmulated = !processEnv.TELEGRAM_API_URL;
  const telegramSettings: Record<string, string> = telegramEmulated
    ? {
        TELEGRAM_API_URL: `http://127.0.0.1:${ports.telegramEmulator}`,
        TELEGRAM_BOT_TOKEN: keptSecret(
          path.join(dataDir, 'telegram-bot-token'),
          () => `${randomInt(100_000_000, 999_999_999)}:${randomBytes(24).toString('base64url')}`,
        ),
        TELEGRAM_WEBHOOK_SECRET: keptSecret(path.join(dataDir, 'telegram-webhook-secret'), () =>
          randomBytes(32).toString('base64url'),
        ),
        TELEGRAM_BOT_NAME: processEnv.TELEGRAM_BOT_NAME || LOCAL_BOT_NAME,
      }
    : Object.fromEntries(
        (['TELEGRAM_API_URL', 'TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET', 'TELEGRAM_BOT_NAME'] as const)
          .filter((k) => processEnv[k])
          .map((k) => [k, processEnv[k]!]),
      );

  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    // The sign-in page names the demo account (GET /api/config); SUPPORT_CONTACT is passed on when set.
    const overrides = {
      JWT_SECRET: jwtSecret,
      APP_URL: webOrigin,
      DEMO_EMAIL,
      SUPPORT_CONTACT: processEnv.SUPPORT_CONTACT ?? 'support@report-profitability.local',
      WB_FINANCE_API_URL: wb.url,
      WB_ANALYTICS_API_URL: wb.analyticsUrl,
      WB_CALL_INTERVAL_SECONDS: String(wb.intervalSeconds),
      WB_ADVERT_API_URL: wb.advertUrl,
      WB_ADVERT_CALL_INTERVAL_SECONDS: String(wb.advertIntervalSeconds),
      WB_TOKEN_KEY: wbTokenKey,
      ...telegramSettings,
    };
    const env: Record<string, string> = { ...emulatorEnv(ports, overrides), WEB_ORIGIN: webOrigin };
    // The API server needs only the emulators' addresses, so both start at once (bundling every
    // function is the slow part).
    const emulatorsP = startEmulators({
      dataDir,
      ports: { dynamodb: ports.dynamodb, s3: ports.s3, ses: ports.ses },
      env: overrides,
      // People open localhost; the Vite server itself listens on 127.0.0.1.
      corsOrigins: [webOrigin, `http://127.0.0.1:${ports.web}`],
      log: opts.log ? (l) => opts.log?.('dynamodb', l) : undefined,
      progress: opts.progress,
    }).then((e) => {
      stops.push(e.stop);
      return e;
    });
    const offlineP = startOffline(env, {
      httpPort: ports.api,
      lambdaPort: ports.lambda,
      log: opts.log ? (l) => opts.log?.('api', l) : undefined,
      progress: opts.progress,
    }).then((o) => {
      stops.push(o.stop);
      return o;
    });
    // The WB emulator (its weeks are generated from the fixture generator: a few seconds) meanwhile.
    const demoSeller = wb.emulator ? demoWbSeller(dataDir) : null;
    const wbEmulatorP = demoSeller
      ? step(opts.progress, `WB Finance API emulator on :${ports.wbEmulator}`, () =>
          startWbEmulator({
            port: ports.wbEmulator,
            intervalMs: wb.intervalSeconds * 1000,
            advertIntervalMs: wb.advertIntervalSeconds * 1000,
            weeks: demoSeller.weeks,
            rowsPerWeek: DEMO_ROWS_PER_WEEK,
            demo: true,
            firstMonday: demoSeller.firstMonday,
            sellerId: DEMO_WB_SELLER_ID,
            validToken: demoSeller.token,
          }),
        ).then((e) => {
          stops.push(e.close);
          return e;
        })
      : Promise.resolve(null);
    const telegramP: Promise<TelegramEmulator | null> = telegramEmulated
      ? step(opts.progress, `Telegram Bot API emulator on :${ports.telegramEmulator}`, () =>
          startTelegramEmulator({
            port: ports.telegramEmulator,
            token: telegramSettings.TELEGRAM_BOT_TOKEN!,
            botName: telegramSettings.TELEGRAM_BOT_NAME,
          }),
        ).then((t) => {
          stops.push(t.close);
          return t;
        })
      : Promise.resolve(null);
    // Keep whichever finished so that stop() ends it even when another failed.
    const [emulatorsR, offlineR, wbEmulatorR, telegramR] = await Promise.allSettled([
      emulatorsP,
      offlineP,
      wbEmulatorP,
      telegramP,
    ]);
    if (emulatorsR.status === 'rejected') throw emulatorsR.reason;
    if (offlineR.status === 'rejected') throw offlineR.reason;
    if (wbEmulatorR.status === 'rejected') throw wbEmulatorR.reason;
    if (telegramR.status === 'rejected') throw telegramR.reason;
    const offline = offlineR.value;
    const wbEmulator = wbEmulatorR.value;
    const telegramEmulator = telegramR.value;

    // The seed runs in this process with the stack's settings (shared/config.ts reads process.env); its
    // report's worker runs here too, invoked at this process's own Lambda endpoint.
    Object.assign(process.env, env);
    await startInProcessWorker();
    const seeding = step(opts.progress, 'demo account and sample report', async () => {
      const demo = await ensureDemoUser({
        email: DEMO_EMAIL,
        passwordHash: await signInDeps.passwords.hash(demoPassword),
      });
      const report = await seedDemoReport({ userId: demo.userId, userCreated: demo.created });
      return { demo, report };
    });
    const mailboxP = step(opts.progress, `mailbox page on :${ports.mailbox}`, () =>
      startMailbox({
        port: ports.mailbox,
        sesEndpoint: env.SES_ENDPOINT!,
        apiUrl: `http://localhost:${ports.api}`,
      }),
    ).then((m) => {
      stops.push(m.stop);
      return m;
    });
    const [{ demo, report }, mailbox] = await Promise.all([seeding, mailboxP]);
    // Updates to the bot reach the local API, as the deploy's setWebhook makes Telegram do (docs/OPERATIONS.md).
    if (telegramEmulator) {
      const set = await telegramBot()!.setWebhook({
        url: `${offline.baseUrl}/api/telegram/webhook`,
        secret_token: telegramSettings.TELEGRAM_WEBHOOK_SECRET!,
      });
      if (!set.ok) throw new Error(`the Telegram emulator refused setWebhook: ${set.reason}`);
    }

    // The scheduled recovery sweep (serverless.yml reportsSweep) runs here; the workers it re-invokes
    // run in serverless-offline, like those the API invokes.
    Object.assign(process.env, {
      WORKER_FUNCTION_NAME: `report-profitability-${process.env.STAGE ?? 'local'}-reportsWorker`,
      LAMBDA_ENDPOINT: `http://127.0.0.1:${ports.lambda}`,
    });
    const sweep = startSweep(LOCAL_SWEEP_EVERY_MS, (line) => opts.log?.('api', line));
    stops.push(sweep.stop);
    // The WB sync tick (serverless.yml wbSyncTick, every minute on AWS) runs here as often as WB may be
    // called (2 s by default locally), so a demo sync takes seconds.
    const wbTick = startWbSyncTick(Math.max(1000, wb.intervalSeconds * 1000), (line) => opts.log?.('api', line));
    stops.push(wbTick.stop);
    // The notifications' delivery tick (serverless.yml notificationsTick, every minute on AWS): every 2 s
    // here, so a report's mail and Telegram message follow it within seconds.
    const notifyTick = startNotificationsTick(LOCAL_NOTIFICATIONS_EVERY_MS, (line) => opts.log?.('api', line));
    stops.push(notifyTick.stop);

    let webUrl: string | undefined;
    if (withWeb) {
      const web = await step(opts.progress, `web app (Vite) on :${ports.web}`, () =>
        startWeb({
          root: repoRoot,
          port: ports.web,
          apiBaseUrl: offline.baseUrl,
          log: opts.log ? (l) => opts.log?.('web', l) : undefined,
        }),
      );
      stops.push(web.stop);
      webUrl = web.url;
    }

    // `npm run admin` finds this stack's DynamoDB port here (removed again by stop()).
    const forget = writeStackFile(dataDir, ports);
    stops.push(async () => forget());

    const notes: string[] = [`Sample report: ${report.message}`];
    // The account outlived the file that knew its password (e.g. .data/demo-password deleted).
    const passwordKnown = demo.created || passwordKnownBefore;
    if (!passwordKnown)
      notes.push(
        `The demo account existed before ${passwordFile} was written: its password is not the one shown. Delete ${dataDir} to start afresh.`,
      );
    return {
      urls: {
        api: `http://localhost:${ports.api}/api`,
        web: webUrl,
        mailbox: mailbox.url,
        apiDocs: `${webUrl ?? mailbox.url.replace(/\/$/, '')}/api-docs/`,
        ses: `http://localhost:${ports.ses}`,
        dynamodb: env.DYNAMODB_ENDPOINT!,
        s3: env.S3_ENDPOINT!,
        telegram: telegramEmulator ? `${telegramEmulator.url.replace('127.0.0.1', 'localhost')}/` : undefined,
      },
      ports,
      demo: { email: DEMO_EMAIL, password: demoPassword, created: demo.created, passwordKnown },
      wb: {
        url: wb.url,
        intervalSeconds: wb.intervalSeconds,
        analyticsUrl: wb.analyticsUrl,
        advertUrl: wb.advertUrl,
        advertIntervalSeconds: wb.advertIntervalSeconds,
        emulator: wbEmulator
          ? {
              token: wbEmulator.tokens.valid,
              weeks: wbEmulator.weeks.map((w) => ({
                reportId: w.item.reportId,
                dateFrom: w.item.dateFrom,
                dateTo: w.item.dateTo,
                rows: w.rows.length,
              })),
            }
          : undefined,
      },
      notes,
      env,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
