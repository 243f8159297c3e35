/**
 * The shell of the in-process benchmarks (bench:pnl, bench:cashflow, bench:analytics, bench:digest): their
 * numeric options with defaults and `--help`, the emulators around the run (withEmulators), the printed
 * answer and the exit code; and the timing of one request over runs (a warm-up first, as a warm Lambda).
 * Its `median` is the one the other benches (bench:api, bench:page, bench:notify) use too.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { withEmulators } from './emulators';

/** The middle of the sorted values (the upper one of an even count): every bench's «median». */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface Timed<T> {
  median_s: number;
  max_s: number;
  /** CPU of this process (the handler's own work; DynamoDB Local's JVM is apart), median. */
  cpu_s: number;
  /** What the last run answered. */
  last: T;
}

/** Runs `run` once to warm it (module caches, the JIT), then `runs` times, timing each. */
export async function timeRuns<T>(run: () => Promise<T>, runs: number): Promise<Timed<T>> {
  const times: number[] = [];
  const cpus: number[] = [];
  let last = await run();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    last = await run();
    const cpu = process.cpuUsage(c0);
    times.push((performance.now() - t0) / 1000);
    cpus.push((cpu.user + cpu.system) / 1e6);
  }
  return { median_s: median(times), max_s: Math.max(...times), cpu_s: median(cpus), last };
}

/** The machine's load at the end of a run, for the table's footnote. */
export const loadLine = (): string =>
  `load average (1 min) at the end: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;

/**
 * Runs a benchmark from the command line: `--<name> <number>` for each option (its default given as a
 * string), `--help` prints `usage:` and the command; the run happens on fresh emulators and prints what
 * `bench` answers. Exit code 1 when it throws.
 */
export function benchCli<K extends string>(
  command: string,
  defaults: Record<K, string>,
  bench: (opts: Record<K, number>) => Promise<string>,
): void {
  const names = Object.keys(defaults) as K[];
  const { values } = parseArgs({
    options: {
      ...Object.fromEntries(names.map((k) => [k, { type: 'string' as const, default: defaults[k] }])),
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(`usage:\n  ${command} [-- ${names.map((k) => `--${k} ${defaults[k]}`).join(' ')}]`);
    return;
  }
  const given = values as Record<string, string | boolean | undefined>;
  const opts = Object.fromEntries(names.map((k) => [k, Number(given[k])])) as Record<K, number>;
  withEmulators(async () => console.log(await bench(opts))).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
