/**
 * What the local stack is doing, for people watching `npm start`: each step says when it begins and
 * when it is done, with its time (a first start installs and compiles for minutes; a silent screen
 * looks like a hang).
 */
export type StepEvent =
  | { step: string; state: 'start' }
  | { step: string; state: 'done'; ms: number }
  | { step: string; state: 'failed'; ms: number; error: unknown };

export type StepListener = (event: StepEvent) => void;

/** Runs `work` as the step `step`, telling `listener` (if any) when it starts and ends. */
export async function step<T>(
  listener: StepListener | undefined,
  name: string,
  work: () => Promise<T>,
  now: () => number = Date.now,
): Promise<T> {
  const t0 = now();
  listener?.({ step: name, state: 'start' });
  try {
    const value = await work();
    listener?.({ step: name, state: 'done', ms: now() - t0 });
    return value;
  } catch (error) {
    listener?.({ step: name, state: 'failed', ms: now() - t0, error });
    throw error;
  }
}

/** `1.2 s`, `45 s`, `2 min 43 s`. */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * A printer of step events for a terminal: `…` when a step starts, `✓` with its time when it ends, and
 * every `heartbeatMs` a line naming the steps still running (the API's first compile takes minutes on a
 * cold start). stop() ends the heartbeat.
 */
export function stepPrinter(
  print: (line: string) => void,
  opts: { heartbeatMs?: number; now?: () => number; startedAt?: number } = {},
): { listener: StepListener; stop(): void } {
  const now = opts.now ?? Date.now;
  const startedAt = opts.startedAt ?? now();
  const running = new Map<string, number>();
  const at = () => `[${formatDuration(now() - startedAt).padStart(8)}]`;
  const listener: StepListener = (e) => {
    if (e.state === 'start') {
      running.set(e.step, now());
      print(`${at()} … ${e.step}`);
    } else {
      running.delete(e.step);
      print(`${at()} ${e.state === 'done' ? '✓' : '✗'} ${e.step} (${formatDuration(e.ms)})`);
    }
  };
  const timer = setInterval(() => {
    if (running.size === 0) return;
    const list = [...running].map(([name, t]) => `${name} (${formatDuration(now() - t)})`).join('; ');
    print(`${at()}   still working: ${list}`);
  }, opts.heartbeatMs ?? 15_000);
  timer.unref();
  return { listener, stop: () => clearInterval(timer) };
}
