import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Children of the local stack run in their own process groups (spawned `detached`), so stopping one
 * ends everything it started too: `npx` → node → serverless, or the JVM of DynamoDB Local.
 *
 * Three ways a stack ends, none of which may leave a process behind (issue 12: the DynamoDB JVM stayed
 * on its port, parent 1, after 2 of 6 Ctrl-C stops once the API had died):
 * - stop(): stopGroup per child — SIGTERM to the group, wait, SIGKILL to the group;
 * - the launcher exits (process.exit): the `exit` hook SIGKILLs every group still known;
 * - the launcher is killed outright (SIGKILL, a parent that gives up): a reaper process, started with
 *   the first child, holds a pipe from the launcher; when the pipe closes it SIGKILLs every group it
 *   was told about.
 * A child that dies while nobody is stopping it is reported to `onUnexpectedExit` listeners (the
 * launcher then ends the whole stack with a message naming it).
 */
const live = new Map<ChildProcess, string>();
const stopping = new WeakSet<ChildProcess>();
const listeners = new Set<(name: string, code: number | null, signal: NodeJS.Signals | null) => void>();

// A launcher that dies without calling stop() must not leave a JVM or an API server behind.
process.once('exit', () => {
  for (const child of live.keys()) signalGroup(child, 'SIGKILL');
});

/** Runs in the reaper: `+pgid` / `-pgid` lines; at end of input every group still listed is killed. */
const REAPER = `
const groups = new Set();
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    const pid = Number(line.slice(1));
    if (!Number.isInteger(pid) || pid <= 1) continue;
    if (line[0] === '+') groups.add(pid); else groups.delete(pid);
  }
});
const end = () => {
  for (const pid of groups) { try { process.kill(-pid, 'SIGKILL'); } catch {} }
  process.exit(0);
};
process.stdin.on('end', end);
process.stdin.on('error', end);
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
`;

let reaper: ChildProcess | null = null;

function tellReaper(line: string): void {
  if (!reaper) {
    reaper = spawn(process.execPath, ['-e', REAPER], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    reaper.unref();
    reaper.stdin?.on('error', () => undefined);
    // Neither the reaper nor its pipe may keep the launcher alive.
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }
  reaper.stdin?.write(`${line}\n`);
}

/** The pid of the live reaper (tests). */
export function reaperPid(): number | undefined {
  return reaper?.pid;
}

/** Registers a detached child: its group is ended with the stack; `name` says what it is in messages. */
export function track(child: ChildProcess, name = 'a child process'): ChildProcess {
  live.set(child, name);
  if (child.pid !== undefined) tellReaper(`+${child.pid}`);
  child.once('exit', (code, signal) => {
    live.delete(child);
    if (!stopping.has(child)) {
      // What it started may outlive it (the JVM under a wrapper): end its group now.
      signalGroup(child, 'SIGKILL');
      for (const l of listeners) l(name, code, signal);
    }
  });
  return child;
}

/** Called when a tracked child exits while nobody is stopping it. Returns the unsubscribe function. */
export function onUnexpectedExit(
  listener: (name: string, code: number | null, signal: NodeJS.Signals | null) => void,
): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM to the child's whole group, SIGKILL after graceMs; resolves when the child is gone. */
export async function stopGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.pid === undefined) return;
  stopping.add(child);
  const gone = new Promise<void>((resolve) => {
    if (exited(child)) resolve();
    else child.once('exit', () => resolve());
  });
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
  // Grandchildren that ignored SIGTERM (the group outlives its leader) get no second chance.
  signalGroup(child, 'SIGKILL');
  live.delete(child);
  if (reaper) tellReaper(`-${child.pid}`);
}

/** Keeps the last lines a child printed, for the error message when it fails to start. */
export function tail(child: ChildProcess, max = 40): () => string {
  const lines: string[] = [];
  const take = (chunk: Buffer) => {
    for (const l of chunk.toString('utf8').split('\n')) {
      if (l.trim()) lines.push(l);
    }
    while (lines.length > max) lines.shift();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return () => lines.join('\n');
}
