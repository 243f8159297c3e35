/**
 * `npm run bench:sync`: the WB sync's own cost (issue 20's targets), measured, not asserted.
 *
 * 1. A full detailed page of 100 000 rows (WB's largest, ~210 MB of JSON), served over HTTP by a child
 *    process (so its bytes do not count in our memory). The page step: read by the Finance API client as
 *    a stream, each row checked, its text gzip'd as sent (`detailedPage`, shared/marketplaces/wb/finance/page-body.ts); stored
 *    to a temporary file standing in for S3. The build: that stored page read back and mapped through
 *    shared/marketplaces/wb/finance/row-map.ts into the engine's aggregator and content fingerprint (read-source.ts, what the
 *    worker does with an imported report). Time, CPU and peak RSS of each against the targets (≤ 5 s,
 *    ≤ 512 MB). Then the same page read and checked, nothing stored, by our reader, by stream-json (the
 *    field's streaming JSON parser) and by one JSON.parse of the whole body, with the ratios.
 * 2. A 52-week backfill against the WB emulator in this process with WB's real interval (60 s) on a
 *    manual clock shared by the emulator and the steps, so WB's minutes cost nothing: the real step and
 *    tick (shared/marketplaces/wb/sync/step.ts), the real client and sync plan; the connection store and the bucket in
 *    memory (DynamoDB and S3 latencies are not in these numbers). Prints the WB calls, the 429s, WB's
 *    time (the clock), our seconds per step and in total, and ours against WB's.
 *
 * 3. A forged-token flood: connects with tokens WB never issued carrying a victim's WB seller id, then the
 *    victim's next call: the time the flood adds to it (target 0).
 *
 * Options: --rows N (100000) --weeks N (52) --week-rows N (600) --page N (250) --flood N (23) --json.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { manualClock } from '../shared/deps';
import { readReportSource, wbSourceName } from '../shared/reports/worker/read-source';
import { dueAt, type WbConnectionRecord } from '../shared/store/wb-connections.repo';
import { createFinanceClient } from '../shared/marketplaces/wb/finance/finance-client';
import { DEFAULT_RATE_POLICY } from '../shared/marketplaces/wb/rate';
import { readJsonArray } from '../shared/marketplaces/wb/finance/json-rows';
import { checkDetailedRow, type WbDetailedRow } from '../shared/marketplaces/wb/finance/schemas';
import { DEFAULT_SYNC_SETTINGS, initialCursor } from '../shared/marketplaces/wb/finance/sync-plan';
import { localKeyWrapper, sealToken } from '../shared/marketplaces/wb/token-crypto';
import { tick, type StepDeps } from '../shared/marketplaces/wb/sync/step';
import { memoryConnections } from '../test/support/wb-connections-memory';
import { connect, newConnectionRecord, type ConnectionDeps } from '../shared/marketplaces/wb/sync/connections';
import { FINANCE_SCOPE } from '../shared/marketplaces/wb/token';
import type { KeyWrapper } from '../shared/marketplaces/wb/token-crypto';
import { makeEmulatorToken } from './local/wb/tokens';
import type { WbEmulator } from './local/wb-emulator';
import { startWbEmulator } from './local/wb-emulator';
import { emulatedWeek } from './local/wb/weeks';

const TARGET_PAGE_S = 5;
const TARGET_PAGE_MB = 512;
const INTERVAL_MS = 60_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The page server (child process): `rows` WB rows made from a generated week, one JSON array. */
async function servePage(rows: number): Promise<void> {
  const base = emulatedWeek({ index: 0, rows: Math.min(rows, 2000), seed: 1 }).rows;
  const page: WbDetailedRow[] = [];
  for (let i = 0; i < rows; i++) {
    const r = base[i % base.length]!;
    page.push({ ...r, rrdId: i + 1, srid: `${String(r.srid ?? 'x')}-${Math.floor(i / base.length)}` });
  }
  const body = Buffer.from(JSON.stringify(page), 'utf8');
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, bytes: body.length })}\n`);
  });
}

/** Peak RSS while `work` runs (sampled every 10 ms, and the process's own maximum). */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, peakMb: peak / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

interface PageNumbers {
  rows: number;
  json_mb: number;
  /** The sync step's work on one page: read as a stream, each row checked, the text gzip'd as sent. */
  step_s: number;
  step_cpu_s: number;
  step_peak_rss_mb: number;
  /** Writing the stored page (a file standing in for S3). */
  store_s: number;
  /** The report's build from the stored page: read back, mapped into the engine's aggregates and fingerprint. */
  build_s: number;
  build_cpu_s: number;
  build_peak_rss_mb: number;
  baseline_rss_mb: number;
  stored_mb: number;
  readers: ReaderNumbers;
}

async function benchPage(rows: number): Promise<PageNumbers> {
  const child = spawn(process.execPath, [...process.execArgv, __filename, '--serve-page', String(rows)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const info = await new Promise<{ port: number; bytes: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) resolve(JSON.parse(line) as { port: number; bytes: number });
      });
      child.once('exit', (code) => reject(new Error(`page server exited ${code}`)));
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-sync-'));
    try {
      const client = createFinanceClient({
        baseUrl: `http://127.0.0.1:${info.port}`,
        token: 'bench',
        requestTimeoutMs: 600_000,
      });
      global.gc?.();
      const baseline = process.memoryUsage().rss / 1024 / 1024;
      const sec = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
      // CPU seconds are this process's (user + system, zlib's threads included): what the load does not inflate.
      const step = await withPeakRss(async () => {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const outcome = await client.detailedPage(900_000_000, { rrdId: 0, limit: 100_000 });
        if (outcome.kind !== 'ok') throw new Error(`page: ${outcome.kind}`);
        if (outcome.value.rows !== rows) throw new Error(`read ${outcome.value.rows} rows of ${rows}`);
        return { page: outcome.value, s: (performance.now() - t0) / 1000, cpu: sec(process.cpuUsage(cpu0)) };
      });
      const file = path.join(dir, 'page.json.gz');
      const t1 = performance.now();
      writeFileSync(file, step.value.page.body);
      const storeS = (performance.now() - t1) / 1000;
      const stored = step.value.page.body.length;
      step.value.page.body = Buffer.alloc(0);
      global.gc?.();
      const build = await withPeakRss(async () => {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const parsed = await readReportSource({ path: file, filename: wbSourceName(900_000_000, '4242001') });
        if (parsed.rows !== rows) throw new Error(`mapped ${parsed.rows} rows of ${rows}`);
        return { s: (performance.now() - t0) / 1000, cpu: sec(process.cpuUsage(cpu0)) };
      });
      return {
        rows,
        json_mb: info.bytes / 1024 / 1024,
        step_s: step.value.s,
        step_cpu_s: step.value.cpu,
        step_peak_rss_mb: step.peakMb,
        store_s: storeS,
        build_s: build.value.s,
        build_cpu_s: build.value.cpu,
        build_peak_rss_mb: build.peakMb,
        baseline_rss_mb: baseline,
        stored_mb: stored / 1024 / 1024,
        readers: await benchReaders(info.port, rows),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    child.kill();
  }
}

interface ReaderNumbers {
  /** name → CPU seconds and peak RSS of reading the page and checking every row, nothing stored. */
  [reader: string]: { cpu_s: number; wall_s: number; peak_rss_mb: number; rows: number };
}

/**
 * The page read and every row checked (nothing stored) three ways, on the same served page: ours
 * (json-rows.ts, as the client runs it), stream-json (the field's streaming JSON parser: parser +
 * streamArray), and the whole body parsed at once (`res.text()` + `JSON.parse`).
 */
async function benchReaders(port: number, rows: number): Promise<ReaderNumbers> {
  const url = `http://127.0.0.1:${port}/`;
  const post = () => fetch(url, { method: 'POST', body: '{}' });
  const check = (v: unknown, i: number) => {
    const r = checkDetailedRow(v, i, false);
    if ('success' in r) throw new Error(`row ${i}: ${r.message}`);
  };
  const readers: Record<string, () => Promise<number>> = {
    ours: async () => {
      const res = await post();
      const read = await readJsonArray(
        res.body as unknown as AsyncIterable<Uint8Array>,
        (values, _raw, first) => {
          for (let k = 0; k < values.length; k++) check(values[k], first + k);
        },
        { text: 'latin1' },
      );
      return read.kind === 'ok' ? read.count : 0;
    },
    'stream-json': async () => {
      // stream-json 3 is ESM with `exports`, which this CommonJS script's type resolution does not read.
      const { streamArray } = (await import('stream-json/streamers/stream-array.js' as string)) as {
        streamArray: { withParserAsStream(): NodeJS.ReadWriteStream };
      };
      const res = await post();
      let n = 0;
      const items = Readable.fromWeb(res.body as never).pipe(streamArray.withParserAsStream());
      for await (const item of items as AsyncIterable<{ key: number; value: unknown }>) {
        check(item.value, item.key);
        n++;
      }
      return n;
    },
    'whole body, JSON.parse': async () => {
      const res = await post();
      const all = JSON.parse(await res.text()) as unknown[];
      all.forEach(check);
      return all.length;
    },
  };
  const out: ReaderNumbers = {};
  for (const [name, read] of Object.entries(readers)) {
    global.gc?.();
    const { value, peakMb } = await withPeakRss(async () => {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const n = await read();
      const cpu = process.cpuUsage(cpu0);
      return { n, wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
    });
    if (value.n !== rows) throw new Error(`${name}: ${value.n} rows of ${rows}`);
    out[name] = { cpu_s: value.cpu, wall_s: value.wall, peak_rss_mb: peakMb, rows: value.n };
  }
  return out;
}

interface BackfillNumbers {
  weeks: number;
  rows_per_week: number;
  page_limit: number;
  wb_calls: number;
  wb_429: number;
  calls_above_rate: number;
  wb_time_h: number;
  our_total_s: number;
  our_step_avg_s: number;
  our_step_max_s: number;
  reports_imported: number;
}

/** A WB connection record of the emulator's seller, syncing from its first week. */
async function backfillConnection(
  emu: WbEmulator,
  wrapper: KeyWrapper,
  sellerId: number,
  T0: number,
): Promise<WbConnectionRecord> {
  return newConnectionRecord({
    id: 'C1',
    userId: 'U1',
    sellerId: 'S1',
    wbSellerId: String(sellerId),
    sellerName: null,
    tokenHint: '…',
    scopes: ['Финансы'],
    expiresAt: new Date(T0 + 180 * 86_400_000).toISOString(),
    from: emu.weeks[0]!.item.dateFrom,
    now: T0,
    sealed: await sealToken(emu.tokens.valid, wrapper, { sellerId: 'S1' }),
  });
}

async function benchBackfill(weeks: number, weekRows: number, pageLimit: number): Promise<BackfillNumbers> {
  const T0 = Date.parse('2026-11-23T06:00:00Z');
  const clock = manualClock(T0);
  const sellerId = 4_242_001;
  const emu = await startWbEmulator({
    port: 0,
    intervalMs: INTERVAL_MS,
    weeks,
    rowsPerWeek: weekRows,
    seed: 5,
    sellerId,
    now: () => clock.now().getTime(),
  });
  const wrapper = localKeyWrapper(Buffer.alloc(32, 9).toString('base64'));
  const pages = new Map<string, Buffer>();
  let imported = 0;
  const first = await backfillConnection(emu, wrapper, sellerId, T0);
  const { store, rows } = memoryConnections([first]);
  const deps: StepDeps = {
    connections: store,
    keyWrapper: () => wrapper,
    finance: (token) => createFinanceClient({ baseUrl: emu.url, token }),
    putPage: async (key, body) => {
      pages.set(key, body);
    },
    deletePages: async (keys) => {
      for (const key of keys) pages.delete(key);
    },
    hasIdentity: async () => false,
    // The import's own work: the pages joined and read through the engine (what the worker does).
    importReport: async (c, p) => {
      const source = Buffer.concat(p.pages.map((page) => pages.get(page.key)!));
      const parsed = await readReportSource({ buffer: source, filename: wbSourceName(p.ref.reportId, c.wb_seller_id) });
      if (parsed.rows !== p.rows) throw new Error(`report ${p.ref.reportId}: ${parsed.rows} rows of ${p.rows}`);
      for (const page of p.pages) pages.delete(page.key);
      imported++;
      return { kind: 'imported', reportId: p.report_id };
    },
    expiryMail: async () => undefined,
    clock,
    ids: { newId: () => `R${imported}` },
    settings: () => ({
      ...DEFAULT_SYNC_SETTINGS,
      policy: { ...DEFAULT_RATE_POLICY, intervalMs: INTERVAL_MS },
      pageLimit,
      leaseMs: 5 * 60_000,
    }),
  };
  const stepTimes: number[] = [];
  const accepted: number[] = [];
  try {
    for (let i = 0; i < 20_000; i++) {
      const c = rows.get('C1')!;
      if (c.reports_imported >= weeks && c.cursor.phase === 'idle' && c.pending.length === 0) break;
      // The next tick that finds the connection due: WB's minutes pass on the clock, not in real time.
      const due = dueAt(c);
      if (due === null) throw new Error(`the connection stopped: ${JSON.stringify(c.error)}`);
      clock.set(Math.max(clock.now().getTime(), due));
      const calls = emu.calls.length;
      const t = performance.now();
      await tick(deps);
      stepTimes.push((performance.now() - t) / 1000);
      if (emu.calls.length > calls && emu.calls.at(-1)!.status !== 429) accepted.push(clock.now().getTime());
    }
    const done = rows.get('C1')!;
    const aboveRate = accepted.filter((at, i) => i > 0 && at - accepted[i - 1]! < INTERVAL_MS).length;
    return {
      weeks,
      rows_per_week: weekRows,
      page_limit: pageLimit,
      wb_calls: emu.calls.length,
      wb_429: emu.calls.filter((x) => x.status === 429).length,
      calls_above_rate: aboveRate,
      wb_time_h: (clock.now().getTime() - T0) / 3_600_000,
      our_total_s: stepTimes.reduce((a, b) => a + b, 0),
      our_step_avg_s: stepTimes.reduce((a, b) => a + b, 0) / Math.max(1, stepTimes.length),
      our_step_max_s: Math.max(...stepTimes),
      reports_imported: done.reports_imported,
    };
  } finally {
    await emu.close();
  }
}

interface FloodNumbers {
  attempts: number;
  refused: number;
  victim_due_ms: number;
  victim_called_ms: number | null;
  added_ms: number | null;
}

/**
 * A forged-token flood: `attempts` connects (the real use case, connections.ts) with JWT-shaped tokens WB
 * never issued carrying the victim's WB seller id, one a second on the clock, while the victim's
 * connection waits for its next call; then the tick at the victim's due time. The time the flood adds to
 * the victim's next call: when WB accepted it, less when it was due (target 0). The per-user throttle is
 * off here (every attempt reaches WB), so what is measured is the call budget alone.
 */
async function benchFlood(attempts: number): Promise<FloodNumbers> {
  const T0 = Date.parse('2026-11-23T06:00:00Z');
  const clock = manualClock(T0);
  const sellerId = 4_242_002;
  const emu = await startWbEmulator({
    port: 0,
    intervalMs: INTERVAL_MS,
    weeks: 1,
    rowsPerWeek: 50,
    seed: 5,
    sellerId,
    now: () => clock.now().getTime(),
  });
  const wrapper = localKeyWrapper(Buffer.alloc(32, 9).toString('base64'));
  try {
    const due = T0 + INTERVAL_MS;
    const victim: WbConnectionRecord = {
      ...(await backfillConnection(emu, wrapper, sellerId, T0)),
      cursor: { ...initialCursor(T0, emu.weeks[0]!.item.dateFrom), nextCallAt: due },
    };
    const { store, budget } = memoryConnections([victim]);
    const connectDeps: ConnectionDeps = {
      connections: {
        createConnection: async () => undefined,
        getConnection: async () => null,
        listConnections: async () => [],
        saveConnection: async () => null,
        deleteConnection: async () => undefined,
        noteAcceptedCall: async (id, until) => {
          budget.set(id, Math.max(budget.get(id) ?? 0, until));
        },
      },
      sellers: { ensureSellerByNumber: async () => ({ id: 'S9' }) },
      keyWrapper: () => wrapper,
      finance: (token) => createFinanceClient({ baseUrl: emu.url, token }),
      clock,
      ids: { newId: () => 'C9' },
      callIntervalMs: () => INTERVAL_MS,
      pages: { deletePages: async () => undefined },
      throttle: { consumeSlot: async () => ({ ok: true }) },
      connectAttemptsPerHour: () => Number.MAX_SAFE_INTEGER,
      retryAfterMaxMs: () => DEFAULT_RATE_POLICY.retryAfterMaxMs,
    };
    let refused = 0;
    const exp = Math.floor(T0 / 1000) + 86_400;
    for (let i = 0; i < attempts; i++) {
      clock.set(T0 + Math.floor((i * INTERVAL_MS) / attempts));
      const forged = makeEmulatorToken({ oid: sellerId, scopes: [FINANCE_SCOPE], exp: exp + i });
      await connect(connectDeps, `attacker${i % 5}`, { token: forged }).catch(() => refused++);
    }
    const deps: StepDeps = {
      connections: store,
      keyWrapper: () => wrapper,
      finance: (token) => createFinanceClient({ baseUrl: emu.url, token }),
      putPage: async () => undefined,
      deletePages: async () => undefined,
      hasIdentity: async () => false,
      importReport: async (_c, p) => ({ kind: 'imported', reportId: p.report_id }),
      expiryMail: async () => undefined,
      clock,
      ids: { newId: () => 'R1' },
      settings: () => ({
        ...DEFAULT_SYNC_SETTINGS,
        policy: { ...DEFAULT_RATE_POLICY, intervalMs: INTERVAL_MS },
        leaseMs: 5 * 60_000,
      }),
    };
    // Ticks from the victim's due time on, a second apart, until WB accepts one of its calls (10 minutes at most).
    let called: number | null = null;
    for (let t = due; t <= due + 10 * INTERVAL_MS && called === null; t += 1000) {
      clock.set(Math.max(t, clock.now().getTime()));
      const before = emu.calls.length;
      await tick(deps);
      const last = emu.calls.at(-1);
      if (emu.calls.length > before && last && last.status !== 401 && last.status !== 429) called = t;
    }
    return {
      attempts,
      refused,
      victim_due_ms: due,
      victim_called_ms: called,
      added_ms: called === null ? null : called - due,
    };
  } finally {
    await emu.close();
  }
}

const f = (n: number, d = 2) => n.toFixed(d);

const USAGE = `usage: npm run bench:sync -- [--rows N] [--weeks N] [--week-rows N] [--page N] [--json]

  --rows N       rows of the one full page read, stored and mapped (100000: WB's largest page)
  --weeks N      weeks of the backfill against the WB emulator (52)
  --week-rows N  rows of each backfilled week (600)
  --page N       the backfill's page limit (250), so a week takes several calls
  --flood N      forged-token connects in the flood (23)
  --json         print the numbers as JSON instead of a Markdown table
`;

async function main() {
  if (process.argv.includes('--help')) {
    process.stdout.write(USAGE);
    return;
  }
  if (process.argv.includes('--serve-page')) {
    await servePage(Number(process.argv[process.argv.indexOf('--serve-page') + 1]));
    return;
  }
  const rows = arg('rows', 100_000);
  const weeks = arg('weeks', 52);
  const weekRows = arg('week-rows', 600);
  const page = arg('page', 250);
  const load = loadavg()[0]!;
  const p = await benchPage(rows);
  const b = weeks > 0 ? await benchBackfill(weeks, weekRows, page) : null;
  const flood = await benchFlood(arg('flood', 23));
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ page: p, backfill: b, flood, load }, null, 2));
    return;
  }
  console.log(`\nbench:sync — load average ${f(load)} at the start\n`);
  console.log('| measure | ours | target | ours / target |');
  console.log('|---|---|---|---|');
  const ratio = (n: number, t: number) => f(n / t);
  console.log(
    `| the page step: ${p.rows} rows (${f(p.json_mb, 0)} MB of JSON) read as a stream, checked, gzip'd as sent (${f(p.stored_mb, 1)} MB) | ${f(p.step_s)} s, CPU ${f(p.step_cpu_s)} s | ≤ ${TARGET_PAGE_S} s | ${ratio(p.step_cpu_s, TARGET_PAGE_S)} (CPU) |`,
  );
  console.log(
    `| … its peak RSS (before it: ${f(p.baseline_rss_mb, 0)} MB) | ${f(p.step_peak_rss_mb, 0)} MB | ≤ ${TARGET_PAGE_MB} MB | ${ratio(p.step_peak_rss_mb, TARGET_PAGE_MB)} |`,
  );
  console.log(`| … stored (a file standing in for S3) | ${f(p.store_s)} s | | |`);
  console.log(
    `| the report's build from that page: read back, mapped through the engine (aggregate + fingerprint) | ${f(p.build_s)} s, CPU ${f(p.build_cpu_s)} s | ≤ ${TARGET_PAGE_S} s | ${ratio(p.build_cpu_s, TARGET_PAGE_S)} (CPU) |`,
  );
  console.log(
    `| … its peak RSS | ${f(p.build_peak_rss_mb, 0)} MB | ≤ ${TARGET_PAGE_MB} MB | ${ratio(p.build_peak_rss_mb, TARGET_PAGE_MB)} |`,
  );
  console.log("\nReading the same page and checking every row, nothing stored (ours against the field's parser):\n");
  console.log('| reader | CPU | wall | peak RSS | CPU / ours |');
  console.log('|---|---|---|---|---|');
  const ours = p.readers.ours!;
  for (const [name, r] of Object.entries(p.readers)) {
    console.log(
      `| ${name} | ${f(r.cpu_s)} s | ${f(r.wall_s)} s | ${f(r.peak_rss_mb, 0)} MB | ${f(r.cpu_s / ours.cpu_s)} |`,
    );
  }
  console.log('\n| measure | ours | target |');
  console.log('|---|---|---|');
  console.log(
    `| forged-token flood: ${flood.attempts} connects with the victim's seller id within one interval, refused | ${flood.refused} | ${flood.attempts} |`,
  );
  console.log(
    `| … time it adds to the victim's next call | ${flood.added_ms === null ? 'no call in 10 min' : `${f(flood.added_ms / 1000, 1)} s`} | 0 s |`,
  );
  if (!b) return;
  console.log('\n| measure | ours | target | ours / target |');
  console.log('|---|---|---|---|');
  console.log(
    `| backfill ${b.weeks} weeks × ${b.rows_per_week} rows (page ${b.page_limit}): WB calls, of them 429 | ${b.wb_calls}, ${b.wb_429} | | |`,
  );
  console.log(`| calls above the rate (1 per ${INTERVAL_MS / 1000} s) | ${b.calls_above_rate} | 0 | |`);
  console.log(`| reports imported | ${b.reports_imported} | ${b.weeks} | |`);
  console.log(`| WB's time (the clock: its rate) | ${f(b.wb_time_h)} h | | |`);
  console.log(
    `| our time: total, per step (avg / max) | ${f(b.our_total_s)} s; ${f(b.our_step_avg_s, 3)} / ${f(b.our_step_max_s, 3)} s | | ${f(b.our_total_s / (b.wb_time_h * 3600), 4)} of WB's time |`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
