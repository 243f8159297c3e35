/**
 * The local stack always stops (attack run, issue 12): Ctrl-C after the API process died during an
 * upload left the DynamoDB JVM running (parent 1, still on its port) in 2 of 6 stops, and `npm start`
 * did not notice the API had died. Here `npm start`'s launcher runs as a real process on free ports:
 * - the API is killed mid-request → the launcher says so and ends, and no child of it remains;
 * - Ctrl-C (SIGINT) → every child ends, the JVM included;
 * - the launcher itself is SIGKILLed (no chance to clean up) → its reaper ends every child.
 * "No child remains" is read from /proc: no process whose command line names one of the stack's ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../scripts/local/ports';

const root = path.resolve(__dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rp-stack-stop-'));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const c of started) {
    if (!c.pid || c.exitCode !== null || c.signalCode !== null) continue;
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

interface Launched {
  child: ChildProcess;
  output: () => string;
  ports: Record<string, number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function launch(): Promise<Launched> {
  const [api, lambda, web, mailbox, ses, dynamodb, s3] = (await freePorts(7)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ports = {
    API_PORT: api,
    LAMBDA_PORT: lambda,
    WEB_PORT: web,
    MAILBOX_PORT: mailbox,
    SES_PORT: ses,
    DYNAMODB_PORT: dynamodb,
    S3_PORT: s3,
  };
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' };
  for (const [k, v] of Object.entries(ports)) env[k] = String(v);
  // What `npm start` runs (scripts/start.ts under tsx), as one process (tsx as a loader, not its CLI,
  // which would put a second process in between), in its own group so the test can signal it alone.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: { ...env, RP_DATA_DIR: dataDir },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 240_000;
  while (!out.includes('The local stack is up')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the stack did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, output: () => out, ports, exited };
}

/** Processes (pid, command line) whose arguments name one of `ports` right after a port flag. */
function processesOn(ports: number[]): Array<{ pid: number; cmd: string }> {
  const wanted = new Set(ports.map(String));
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    for (let i = 0; i + 1 < args.length; i++) {
      if (/^--?(httpPort|lambdaPort|port)$/.test(args[i]!) && wanted.has(args[i + 1]!)) {
        out.push({ pid: Number(entry), cmd: args.join(' ') });
        break;
      }
    }
  }
  return out;
}

async function noneRemain(ports: number[], withinMs = 15_000): Promise<Array<{ pid: number; cmd: string }>> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const left = processesOn(ports);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('local stack stops completely', () => {
  it('the API killed mid-request: the launcher names it and ends; Ctrl-C then finds nothing left', async () => {
    const s = await launch();
    const ports = Object.values(s.ports);
    const before = processesOn(ports);
    expect(before.some((p) => p.cmd.includes('DynamoDBLocal'))).toBe(true);
    const api = before.find((p) => p.cmd.includes('offline'));
    expect(api, JSON.stringify(before)).toBeDefined();
    // A request in flight (a sign-in: bcrypt), then the API's whole process group is killed.
    const inFlight = fetch(`http://127.0.0.1:${s.ports.API_PORT}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo@example.com', password: 'wrong-password-1' }),
    }).catch((e: unknown) => e);
    process.kill(-api!.pid, 'SIGKILL');
    await inFlight;
    const { code } = await s.exited;
    s.child.kill('SIGINT'); // Ctrl-C after the death: nothing to stop any more, nothing to hang on
    expect(code).toBe(1);
    expect(s.output()).toMatch(
      /the API \(serverless offline\) stopped unexpectedly \(SIGKILL\)\. Stopping the local stack/,
    );
    expect(await noneRemain(ports)).toEqual([]);
  });

  it('Ctrl-C (SIGINT) ends every child, the DynamoDB JVM included', async () => {
    const s = await launch();
    const ports = Object.values(s.ports);
    expect(processesOn(ports).length).toBeGreaterThanOrEqual(3);
    s.child.kill('SIGINT');
    const { code } = await s.exited;
    expect(code).toBe(0);
    expect(s.output()).toContain('Stopped.');
    expect(await noneRemain(ports)).toEqual([]);
  });

  it('a launcher killed outright (SIGKILL) leaves nothing either: its reaper ends every child', async () => {
    const s = await launch();
    const ports = Object.values(s.ports);
    expect(processesOn(ports).length).toBeGreaterThanOrEqual(3);
    process.kill(s.child.pid!, 'SIGKILL');
    await s.exited;
    expect(await noneRemain(ports)).toEqual([]);
  });
});
