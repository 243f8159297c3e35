import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './ports';
import { stopGroup, tail, track } from './process';
import type { StepListener } from './steps';

export const repoRoot = path.resolve(__dirname, '..', '..');

export interface OfflineOptions {
  /** API port (default: a free one). */
  httpPort?: number;
  /** serverless-offline's Lambda invoke port (default: a free one). */
  lambdaPort?: number;
  /** Where serverless.yml lives (default: this repository). */
  cwd?: string;
  /** Receives every line serverless-offline prints (default: dropped, kept for errors). */
  log?: (line: string) => void;
  /**
   * How long to wait for the first answer (bundling all functions takes a while): default
   * OFFLINE_START_TIMEOUT_S seconds from the environment, else 600 (a busy machine compiles slowly; one shared by several test runs
   * may need more).
   */
  timeoutMs?: number;
  /** Told when compiling starts and ends ("Server ready") and when the first request is answered. */
  progress?: StepListener;
}

export interface Offline {
  /** `http://127.0.0.1:<port>/api`: the base every route of docs/API.md hangs under. */
  apiUrl: string;
  /** `http://127.0.0.1:<port>`: the server root (what a proxy targets). */
  baseUrl: string;
  httpPort: number;
  /** `http://127.0.0.1:<port>`: serverless-offline's Lambda invoke endpoint (the handlers' LAMBDA_ENDPOINT). */
  lambdaUrl: string;
  /**
   * Runs one function of serverless.yml now and answers its result, as Lambda's Invoke (RequestResponse)
   * does: `POST /2015-03-31/functions/<service>-local-<name>/invocations` with `event` as the payload.
   * For the functions without an HTTP route (a schedule's), whose own timer a test cannot wait for.
   */
  invoke<T = unknown>(name: string, event?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** serverless.yml's `service`: a deployed function is named `<service>-<stage>-<function>`. */
export const SERVICE = 'report-profitability';

/**
 * `serverless offline start --stage local` (osls + serverless-esbuild + serverless-offline) as a
 * child in its own process group, serving every route of serverless.yml with `env` as the
 * handlers' environment (the `local` stage's params read it). Resolves once the API answers.
 */
export async function startOffline(env: Record<string, string>, opts: OfflineOptions = {}): Promise<Offline> {
  const httpPort = opts.httpPort ?? (await freePort());
  const lambdaPort = opts.lambdaPort ?? (await freePort());
  const cwd = opts.cwd ?? repoRoot;
  // Own build folder per server: a packaging run or a second server must not delete these bundles.
  const workFolder = path.join('.esbuild', `offline-${httpPort}`);
  const bin = require.resolve('osls/bin/serverless.js', { paths: [cwd] });
  const child = track(
    spawn(
      process.execPath,
      [
        bin,
        'offline',
        'start',
        '--stage',
        'local',
        '--host',
        '127.0.0.1',
        '--httpPort',
        String(httpPort),
        '--lambdaPort',
        String(lambdaPort),
        '--noPrependStageInUrl',
      ],
      {
        cwd,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          // The handlers invoke the report worker through serverless-offline's own Lambda endpoint.
          LAMBDA_ENDPOINT: `http://127.0.0.1:${lambdaPort}`,
          ...env,
          ESBUILD_WORK_FOLDER: workFolder,
          SLS_TELEMETRY_DISABLED: '1',
          SLS_NOTIFICATIONS_MODE: 'off',
          FORCE_COLOR: '0',
        },
      },
    ),
    'the API (serverless offline)',
  );
  const lastLines = tail(child, 80);
  // Two steps people wait for: esbuild bundling every function (ends when serverless-offline prints
  // "Server ready"), then the first request answered.
  const progress = opts.progress;
  const spawnedAt = Date.now();
  const COMPILE = 'API: compiling every function (esbuild)';
  const FIRST = 'API: first request answered';
  let compiled = false;
  const markCompiled = () => {
    if (compiled) return;
    compiled = true;
    progress?.({ step: COMPILE, state: 'done', ms: Date.now() - spawnedAt });
    progress?.({ step: FIRST, state: 'start' });
  };
  progress?.({ step: COMPILE, state: 'start' });
  if (progress) {
    const watch = (c: Buffer) => {
      if (/Server ready/.test(c.toString())) markCompiled();
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', watch);
  }
  if (opts.log) {
    const log = opts.log;
    const forward = (c: Buffer) =>
      c
        .toString()
        .split('\n')
        .filter((l) => l.trim())
        .forEach(log);
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
  }
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  const stop = async () => {
    await stopGroup(child);
    rmSync(path.join(cwd, workFolder), { recursive: true, force: true });
  };
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`serverless offline exited (${signal ?? code}) before answering:\n${lastLines()}`)),
    );
    // A build error leaves serverless-offline running without routes: say so now, not at the timeout.
    const failed = (c: Buffer) => {
      if (/Build failed with \d+ error/.test(c.toString()))
        setTimeout(() => reject(new Error(`the API did not compile:\n${lastLines()}`)), 200);
    };
    child.stdout?.on('data', failed);
    child.stderr?.on('data', failed);
  });
  exited.catch(() => undefined);
  const ready = (async () => {
    const deadline = Date.now() + (opts.timeoutMs ?? Number(process.env.OFFLINE_START_TIMEOUT_S || 600) * 1000);
    for (;;) {
      try {
        // Any HTTP answer (404 for an unknown path) means the router is up and routes are mounted.
        await fetch(`${baseUrl}/api/__ready`, { signal: AbortSignal.timeout(2_000) });
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`serverless offline did not answer on ${baseUrl}:\n${lastLines()}`);
        await new Promise((r) => setTimeout(r, 300));
      }
    }
  })();
  try {
    await Promise.race([ready, exited]);
    markCompiled();
    progress?.({ step: FIRST, state: 'done', ms: Date.now() - spawnedAt });
  } catch (e) {
    if (progress) {
      const step = compiled ? FIRST : COMPILE;
      progress({ step, state: 'failed', ms: Date.now() - spawnedAt, error: e });
    }
    await stop();
    throw e;
  }
  const lambdaUrl = `http://127.0.0.1:${lambdaPort}`;
  const invoke = async <T>(name: string, event: unknown = {}): Promise<T> => {
    const res = await fetch(`${lambdaUrl}/2015-03-31/functions/${SERVICE}-local-${name}/invocations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event),
    });
    const text = await res.text();
    if (res.status !== 200 || res.headers.get('x-amz-function-error')) {
      throw new Error(`invoking ${name}: ${res.status} ${res.headers.get('x-amz-function-error') ?? ''} ${text}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return { apiUrl: `${baseUrl}/api`, baseUrl, httpPort, lambdaUrl, invoke, stop };
}
