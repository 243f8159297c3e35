import type { ChildProcess } from 'node:child_process';

/**
 * Children of the local stack run in their own process groups (spawned `detached`), so stopping one
 * ends everything it started too: `npx` → node → serverless, or the JVM of DynamoDB Local.
 */
const live = new Set<ChildProcess>();

// A launcher that dies without calling stop() must not leave a JVM or an API server behind.
process.once('exit', () => {
  for (const child of live) signalGroup(child, 'SIGKILL');
});

export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
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
