/**
 * npm run bench [-- --runs N --sizes 10000,100000,300000 --generate-only]
 *
 * Generates 2026-layout WB-style .xlsx reports once into .cache/bench/ (reused when present), then measures
 * for each size, every measurement in a fresh child process so its peak RSS is its own:
 * - countRows (ours): the row count the upload check uses;
 * - readReport + buildItems (ours): the whole engine;
 * - SheetJS (@e965/xlsx, {dense:true}) read + the same aggregation (its rows fed to createAggregator);
 * - floor (docs/ARCHITECTURE.md): inflating the sheet XML with the same zip reading the engine uses (1 MB reads,
 *   1 MB inflate pieces), decoding it as UTF-8 and counting `<row` — what any parser of the text must pay.
 * Wall time is the work inside the child (module loading excluded); peak RSS is the child's
 * process.resourceUsage().maxRSS, so it includes Node itself. Median of N runs (default 3).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

type Method = 'count' | 'ours' | 'sheetjs' | 'floor' | 'inflate';
const METHODS: Method[] = ['count', 'ours', 'sheetjs', 'floor', 'inflate'];
const LABEL: Record<Method, string> = {
  count: 'countRows (ours)',
  ours: 'readReport + buildItems (ours)',
  sheetjs: 'SheetJS dense + aggregation',
  floor: 'floor: inflate + UTF-8 decode + count <row',
  inflate: 'inflate only + count <row bytes',
};

interface Measurement {
  seconds: number;
  /** User + system CPU of the work: less disturbed than wall time when the machine is shared. */
  cpuSeconds: number;
  rssMb: number;
  rows: number;
  /** Σ for_pay and Σ realization in kopecks, to see both engines agree. */
  check?: string;
}

const ROOT = path.resolve(__dirname, '..');
const CACHE = path.join(ROOT, '.cache', 'bench');

// ---------------------------------------------------------------------------------------------
// Child side: one measurement, printed as the last stdout line.

async function measure(method: Method, file: string): Promise<Measurement> {
  // Modules are loaded before the clock starts: a Lambda pays that once per cold start, not per report.
  const floorLike = method === 'floor' || method === 'inflate';
  const engine = floorLike ? null : await import('../shared/engine');
  const headersModule = method === 'sheetjs' ? await import('../shared/engine/read/headers') : null;
  const XLSX = method === 'sheetjs' ? await import('@e965/xlsx') : null;
  const zipModule = floorLike ? await import('../shared/engine/read/zip') : null;
  const limitsModule = floorLike ? await import('../shared/engine/read/limits') : null;
  const settings = engine ? { tax: engine.DEFAULT_TAX_PROFILE, costPrices: {} } : null;

  const cpu0 = process.cpuUsage();
  const started = performance.now();
  let rows = 0;
  let check: string | undefined;
  if (method === 'count' && engine) {
    rows = (await engine.countRows({ path: file })).rows;
  } else if (method === 'ours' && engine && settings) {
    const parsed = await engine.readReport({ path: file });
    const { items } = engine.buildItems(parsed, settings);
    rows = parsed.rows;
    check = checksum(items.map((i) => i.computed));
  } else if (method === 'sheetjs' && engine && settings && XLSX && headersModule) {
    const { mapHeaderRow } = headersModule;
    const wb = XLSX.read(fs.readFileSync(file), { dense: true });
    const ws = wb.Sheets[wb.SheetNames[0]!];
    if (!ws) throw new Error(`SheetJS read no worksheet from the file (${wb.SheetNames.length} sheet names)`);
    const data = (ws['!data'] ?? []) as Array<Array<{ v?: unknown } | undefined> | undefined>;
    const headers = new Map<number, string>();
    (data[0] ?? []).forEach((c, i) => {
      if (c && c.v !== undefined) headers.set(i, String(c.v));
    });
    const map = mapHeaderRow(headers);
    const agg = engine.createAggregator();
    agg.begin(map.present);
    const cells: Array<string | undefined> = new Array(engine.METRIC_KEYS.length);
    for (let r = 1; r < data.length; r++) {
      const row = data[r];
      if (!row) continue;
      cells.fill(undefined);
      let any = false;
      for (let c = 0; c < row.length && c < map.toMetric.length; c++) {
        const k = map.toMetric[c]!;
        if (k < 0) continue;
        const v = row[c]?.v;
        if (v === undefined || v === null || v === '') continue;
        cells[k] = String(v);
        any = true;
      }
      // Rows with no cell at all are not data rows (the readers skip them too).
      if (any || row.some((x) => x !== undefined && x.v !== undefined && x.v !== '')) agg.row(cells);
    }
    const res = agg.finish();
    const { items } = engine.buildItems({ articles: res.articles }, settings);
    rows = res.rows;
    check = checksum(items.map((i) => i.computed));
  } else if (zipModule && limitsModule) {
    rows = (await countRowTags(zipModule, limitsModule.DEFAULT_READ_LIMITS, file, method === 'floor')) - 1;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMb, rows, check };
}

function checksum(values: Array<Record<string, number | null>>): string {
  let forPay = 0;
  let realization = 0;
  for (const v of values) {
    forPay += v.for_pay ?? 0;
    realization += v.realization ?? 0;
  }
  return `for_pay=${forPay} realization=${realization}`;
}

/**
 * The floor: the sheet's XML inflated exactly as the engine's reader gets it (shared/engine/read/zip.ts),
 * decoded as UTF-8 text and scanned for `<row`, nothing else. A parser of the text cannot do less;
 * ours decodes only the cells it needs, which is how it can come close to this.
 */
async function countRowTags(
  zipModule: typeof import('../shared/engine/read/zip'),
  limits: import('../shared/engine/read/limits').ReadLimits,
  file: string,
  decode: boolean,
): Promise<number> {
  const archive = await zipModule.ZipArchive.open({ path: file }, limits, { used: 0, max: limits.maxInflatedBytes });
  try {
    const entry = archive.find('xl/worksheets/sheet1.xml');
    if (!entry) throw new Error('no xl/worksheets/sheet1.xml');
    const decoder = new TextDecoder('utf-8');
    const needle = Buffer.from('<row');
    let count = 0;
    let tail = '';
    let tailBytes = Buffer.alloc(0);
    for await (const chunk of archive.stream(entry)) {
      if (!decode) {
        // Bytes only (memchr-speed indexOf): the cost of inflating, with no text at all.
        const seam = Buffer.concat([tailBytes, chunk.subarray(0, 3)]);
        if (tailBytes.length && seam.indexOf(needle) >= 0) count++;
        for (let at = chunk.indexOf(needle); at >= 0; at = chunk.indexOf(needle, at + 4)) count++;
        tailBytes = Buffer.from(chunk.subarray(Math.max(0, chunk.length - 3)));
        continue;
      }
      const text = tail + decoder.decode(chunk, { stream: true });
      for (let at = text.indexOf('<row'); at >= 0; at = text.indexOf('<row', at + 4)) count++;
      // Keep the last 3 characters (never a whole `<row`): one split across pieces is counted with the next.
      tail = text.slice(Math.max(0, text.length - 3));
    }
    return count;
  } finally {
    archive.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Parent side.

function sizeLabel(n: number): string {
  return n >= 1000 ? `${n / 1000}k` : String(n);
}

async function ensureFile(rows: number): Promise<string> {
  const file = path.join(CACHE, `wb-2026-${rows}.xlsx`);
  if (fs.existsSync(file) && fs.existsSync(`${file}.expected.json`)) return file;
  const { writeReportFile } = await import('./fixtures/generate');
  const tmp = fs.mkdtempSync(path.join(CACHE, 'gen-'));
  process.stderr.write(`generating ${rows} rows… `);
  const t = performance.now();
  const r = writeReportFile({ rows, layout: '2026', format: 'xlsx', wbStyle: true, seed: 1 }, tmp);
  fs.renameSync(r.path, file);
  fs.renameSync(r.expectedPath, `${file}.expected.json`);
  fs.rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(
    `${((performance.now() - t) / 1000).toFixed(1)} s, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB\n`,
  );
  return file;
}

/** Bundles this script so a child is plain Node: no TypeScript loader in its time or memory. */
async function bundle(): Promise<string> {
  const out = path.join(CACHE, 'bench-child.js');
  const { buildSync } = await import('esbuild');
  buildSync({
    entryPoints: [__filename],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    packages: 'external',
    logLevel: 'error',
  });
  return out;
}

type RunResult = { ok: true; m: Measurement } | { ok: false; reason: string };

function runChild(script: string, method: Method, file: string): RunResult {
  const r = spawnSync(process.execPath, ['--max-old-space-size=6144', script, '--child', method, file], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 15 * 60 * 1000,
    maxBuffer: 16 << 20,
  });
  if (r.status === 0) {
    const last = r.stdout.trim().split('\n').pop() ?? '';
    try {
      return { ok: true, m: JSON.parse(last) as Measurement };
    } catch {
      return { ok: false, reason: `unreadable output: ${last.slice(0, 200)}` };
    }
  }
  const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
  const err = (r.stderr ?? '').trim().split('\n').filter(Boolean);
  const line = err.find((l) => /Error|heap|memory|string longer/i.test(l)) ?? err.pop() ?? '';
  return { ok: false, reason: `${why}${line ? `: ${line.slice(0, 160)}` : ''}` };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Row {
  size: number;
  method: Method;
  seconds?: number;
  cpuSeconds?: number;
  rssMb?: number;
  runs: number;
  failed?: string;
  rows?: number;
  check?: string;
}

const BENCH_USAGE = `usage: npm run bench [-- --runs N --sizes 10000,100000,300000 --generate-only]

Measures the report engine against SheetJS and the floor (inflate + decode + scan) on generated
2026-layout WB-style reports; prints wall, CPU and peak RSS tables and the ratios.

  --runs N          runs per measurement, the median is printed (default 3)
  --sizes LIST      row counts, comma-separated (default 10000,100000,300000)
  --generate-only   only write the files into .cache/bench/
  -h, --help        this text
`;

async function parent(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '3' },
      sizes: { type: 'string', default: '10000,100000,300000' },
      'generate-only': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(BENCH_USAGE);
    return;
  }
  const runs = Number(values.runs);
  const sizes = values.sizes.split(',').map(Number);
  fs.mkdirSync(CACHE, { recursive: true });
  const load0 = os.loadavg()[0]!;
  const files = new Map<number, string>();
  for (const n of sizes) files.set(n, await ensureFile(n));
  if (values['generate-only']) return;
  const script = await bundle();

  const results: Row[] = [];
  for (const size of sizes) {
    const file = files.get(size)!;
    const expected = JSON.parse(fs.readFileSync(`${file}.expected.json`, 'utf8')) as {
      rows: number;
      articles: Array<{ aggregates: { for_pay: number; realization: number } }>;
    };
    const expectedCheck = checksum(expected.articles.map((a) => a.aggregates));
    for (const method of METHODS) {
      const ms: Measurement[] = [];
      let failed: string | undefined;
      for (let i = 0; i < runs; i++) {
        process.stderr.write(`${sizeLabel(size)} ${LABEL[method]} run ${i + 1}/${runs}… `);
        const r = runChild(script, method, file);
        if (!r.ok) {
          process.stderr.write(`FAILED (${r.reason})\n`);
          failed = r.reason;
          break; // A run that fails (out of memory, string too long) fails the same way again.
        }
        process.stderr.write(
          `${r.m.seconds.toFixed(2)} s (CPU ${r.m.cpuSeconds.toFixed(2)} s), ${r.m.rssMb.toFixed(0)} MB\n`,
        );
        if (r.m.rows !== expected.rows)
          process.stderr.write(`  ! counted ${r.m.rows} rows, the file has ${expected.rows}\n`);
        if (r.m.check !== undefined && r.m.check !== expectedCheck)
          process.stderr.write(`  ! totals ${r.m.check}, the generator booked ${expectedCheck}\n`);
        ms.push(r.m);
      }
      results.push(
        failed && ms.length === 0
          ? { size, method, runs: 0, failed }
          : {
              size,
              method,
              runs: ms.length,
              seconds: median(ms.map((m) => m.seconds)),
              cpuSeconds: median(ms.map((m) => m.cpuSeconds)),
              rssMb: median(ms.map((m) => m.rssMb)),
              rows: ms[0]!.rows,
              check: ms[0]!.check,
              failed,
            },
      );
    }
  }

  const fileMb = (n: number): string => (fs.statSync(files.get(n)!).size / 1e6).toFixed(1);
  const lines: string[] = [];
  lines.push(
    `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM; median of ${runs} runs`,
  );
  lines.push('');
  lines.push('| size | file MB | method | median wall s | median CPU s | peak RSS MB |');
  lines.push('|---|---|---|---|---|---|');
  for (const r of results) {
    const wall = r.seconds === undefined ? `failed: ${r.failed}` : r.seconds.toFixed(2);
    const cpu = r.cpuSeconds === undefined ? '—' : r.cpuSeconds.toFixed(2);
    const rss = r.rssMb === undefined ? '—' : r.rssMb.toFixed(0);
    lines.push(`| ${sizeLabel(r.size)} | ${fileMb(r.size)} | ${LABEL[r.method]} | ${wall} | ${cpu} | ${rss} |`);
  }
  const get = (size: number, method: Method): Row | undefined =>
    results.find((r) => r.size === size && r.method === method);
  for (const size of sizes) {
    const a = get(size, 'ours')?.check;
    const b = get(size, 'sheetjs')?.check;
    if (a && b && a !== b) lines.push(`! ${sizeLabel(size)}: our totals (${a}) differ from SheetJS-fed totals (${b})`);
  }

  lines.push('');
  const ours300 = get(300_000, 'ours');
  const ours100 = get(100_000, 'ours');
  const sheet100 = get(100_000, 'sheetjs');
  const floor300 = get(300_000, 'floor');
  const ratio = (x?: number, y?: number): number | undefined =>
    x !== undefined && y !== undefined && y > 0 ? x / y : undefined;
  const speedup = ratio(sheet100?.seconds, ours100?.seconds);
  const overFloor = ratio(ours300?.seconds, floor300?.seconds);
  if (speedup !== undefined)
    lines.push(
      `SheetJS / ours at 100k: ${speedup.toFixed(1)}× wall, ${ratio(sheet100?.cpuSeconds, ours100?.cpuSeconds)?.toFixed(1)}× CPU, ${ratio(sheet100?.rssMb, ours100?.rssMb)?.toFixed(1)}× peak RSS`,
    );
  if (overFloor !== undefined)
    lines.push(
      `ours / floor at 300k: ${overFloor.toFixed(2)}× wall, ${ratio(ours300?.cpuSeconds, floor300?.cpuSeconds)?.toFixed(2)}× CPU`,
    );
  const inflate300 = get(300_000, 'inflate');
  const overInflate = ratio(ours300?.seconds, inflate300?.seconds);
  // Not a target: a stricter yardstick than the floor (docs/PERFORMANCE.md), shown so nobody mistakes one for the other.
  if (overInflate !== undefined)
    lines.push(
      `ours / inflate-only at 300k: ${overInflate.toFixed(2)}× wall, ${ratio(ours300?.cpuSeconds, inflate300?.cpuSeconds)?.toFixed(2)}× CPU`,
    );
  lines.push(
    `load average (1 min) at start ${load0.toFixed(1)}, at end ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`,
  );
  const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'not measured' : ok ? 'met' : 'NOT met');
  lines.push('');
  lines.push('| target | measured | |');
  lines.push('|---|---|---|');
  lines.push(
    `| 300k rows ≤ 5 s | ${ours300?.seconds?.toFixed(2) ?? '—'} s | ${verdict(ours300?.seconds === undefined ? undefined : ours300.seconds <= 5)} |`,
  );
  lines.push(
    `| 300k rows ≤ 300 MB peak RSS | ${ours300?.rssMb?.toFixed(0) ?? '—'} MB | ${verdict(ours300?.rssMb === undefined ? undefined : ours300.rssMb <= 300)} |`,
  );
  lines.push(
    `| ≥ 6× faster than SheetJS at 100k | ${speedup?.toFixed(1) ?? '—'}× | ${verdict(speedup === undefined ? undefined : speedup >= 6)} |`,
  );
  lines.push(
    `| within 2× of the floor at 300k | ${overFloor?.toFixed(2) ?? '—'}× | ${verdict(overFloor === undefined ? undefined : overFloor <= 2)} |`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function child(method: Method, file: string): Promise<void> {
  if (!METHODS.includes(method)) throw new Error(`unknown method ${method}`);
  const m = await measure(method, file);
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

if (require.main === module) {
  const i = process.argv.indexOf('--child');
  const run = i >= 0 ? child(process.argv[i + 1] as Method, process.argv[i + 2]!) : parent();
  run.catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
}
