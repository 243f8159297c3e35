/**
 * `npm run bench:load`: many sellers at once on the local stack — each uploads small generated weeks
 * (presigned PUT, count-rows, upload by upload_id) and reads them back (GET report, the list) — and
 * prints p50/p95 per route and every 5xx. Starts its own stack on free ports (DynamoDB Local, s3rver,
 * the SES emulator, serverless-offline; no web app) with a temporary data folder, loopback only, and
 * stops by itself: bounded in count (sellers × weeks) and in time (--deadline). docs/PERFORMANCE.md,
 * "Load". test/e2e/load.e2e.test.ts runs the same driver with 10 sellers and asserts no 5xx.
 *
 * Options: --sellers N (50) --weeks N (2) --rows N (2000) --reads N (2) --deadline SECONDS (600)
 * --ramp SECONDS (0: every seller starts at once; else spread over that time) --keep (leave the temp
 * folder) --json. The API's error lines (a 5xx's cause) are counted and the first few printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { signToken } from '../shared/auth/tokens';
import { createUser } from '../shared/store/users.repo';
import { startStack, type Stack } from './local/stack';
import { runLoad, summarize } from './load/sellers';

const USAGE = `usage: npm run bench:load -- [--sellers 50] [--weeks 2] [--rows 2000] [--reads 2] [--deadline 600] [--ramp 0] [--keep] [--json]`;

interface Options {
  sellers: number;
  weeks: number;
  rows: number;
  reads: number;
  deadline: number;
  ramp: number;
  keep: boolean;
  json: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { sellers: 50, weeks: 2, rows: 2000, reads: 2, deadline: 600, ramp: 0, keep: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = (min: number, max: number) => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < min || v > max)
        throw new Error(`${a} needs a whole number ${min}..${max}\n${USAGE}`);
      return v;
    };
    if (a === '--sellers') o.sellers = num(1, 500);
    else if (a === '--weeks') o.weeks = num(1, 20);
    else if (a === '--rows') o.rows = num(10, 300_000);
    else if (a === '--reads') o.reads = num(0, 50);
    else if (a === '--deadline') o.deadline = num(10, 3600);
    else if (a === '--ramp') o.ramp = num(0, 600);
    else if (a === '--keep') o.keep = true;
    else if (a === '--json') o.json = true;
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`Unknown option ${a}\n${USAGE}`);
  }
  return o;
}

const log = (line: string) => process.stderr.write(`[bench:load] ${line}\n`);

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-load-'));
  let stack: Stack | undefined;
  try {
    log(`starting the stack on free ports (${dir})`);
    const apiErrors = new Map<string, number>();
    stack = await startStack({
      dataDir: path.join(dir, 'data'),
      freePorts: true,
      web: false,
      log: (source, line) => {
        if (source !== 'api' || !/"level":"ERROR"|Timeout|timed out|socket usage at capacity/i.test(line)) return;
        if (/socket usage at capacity/.test(line)) {
          // The SDK's warning that its connection pool is full (requests queued for a socket).
          const k = 'SDK warning: socket usage at capacity, requests enqueued';
          apiErrors.set(k, (apiErrors.get(k) ?? 0) + 1);
          return;
        }
        const key = (/"message":"([^"]*)"/.exec(line)?.[1] ?? line).slice(0, 160);
        const error = /"error(?:_message|Message)?":"([^"]{0,120})/.exec(line)?.[1];
        const k = error ? `${key}: ${error}` : key;
        apiErrors.set(k, (apiErrors.get(k) ?? 0) + 1);
      },
    });
    const tokens: string[] = [];
    for (let i = 0; i < o.sellers; i++) {
      const u = await createUser({ email: `load-${i}-${Date.now()}@example.com`, confirmed: true, limits: 10_000_000 });
      tokens.push(signToken({ user_id: u.id }, 'access'));
    }
    log(`${o.sellers} sellers × ${o.weeks} weeks of ${o.rows} rows, ${o.reads} reads each; deadline ${o.deadline} s`);
    const r = await runLoad({
      apiUrl: stack.urls.api,
      tokens,
      weeks: o.weeks,
      rows: o.rows,
      reads: o.reads,
      deadlineMs: o.deadline * 1000,
      rampMs: o.ramp * 1000,
      log,
    });
    const rows = summarize(r.calls);
    const ready = r.ready.reduce((n, x) => n + x.length, 0);
    if (o.json) {
      console.log(
        JSON.stringify(
          { options: o, wall_ms: Math.round(r.wallMs), ready, failures: r.failures, routes: rows },
          null,
          2,
        ),
      );
    } else {
      console.log(
        `\n${o.sellers} sellers × ${o.weeks} weeks of ${o.rows} rows at once; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}; ` +
          `${o.ramp ? `starts spread over ${o.ramp} s; ` : ''}${(r.wallMs / 1000).toFixed(1)} s; ${ready}/${o.sellers * o.weeks} reports ready${r.timedOut ? ' (deadline passed)' : ''}; ${r.resets} requests resent on a closed connection\n`,
      );
      console.log('| route | requests | p50, ms | p95, ms | max, ms | 503 try_again (repeated) | other 5xx |');
      console.log('|---|---:|---:|---:|---:|---:|---:|');
      for (const x of rows)
        console.log(
          `| ${x.route} | ${x.n} | ${Math.round(x.p50)} | ${Math.round(x.p95)} | ${Math.round(x.max)} | ${x.tryAgain} | ${x.errors5xx} |`,
        );
      for (const f of r.failures.slice(0, 20)) console.log(`failed: ${f}`);
      for (const [k, n] of [...apiErrors].slice(0, 10)) console.log(`API error line ×${n}: ${k}`);
    }
    const fivexx = r.calls.filter((c) => c.status >= 500 && c.code !== 'try_again').length;
    if (fivexx > 0 || r.failures.length > 0) process.exitCode = 1;
  } finally {
    await stack?.stop();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
