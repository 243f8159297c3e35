/**
 * `npm run bench:page`: the report page of a big report in Chromium (issue 8: "the report page at
 * 5,000 articles loads the summary at once and the table without freezing: smooth scrolling, frames
 * ≤ 16 ms median"), measured on the Vite dev server (development React) and on the production build
 * (`vite build` into a temporary folder, served by `vite preview` with its /api proxy), which is what a
 * seller gets. Starts its own stack on free ports with a temporary data folder, a confirmed user, and
 * one generated report (kept in .cache/bench-page/ for the next run), uploaded as the app does
 * (presigned PUT, then POST /api/reports/upload).
 *
 * Per server: time to the summary figures and to the first table rows after navigation, then the
 * items table brought on screen (bench:api's probe scrolled it below the fold, where nothing of it is
 * painted) and scrolled by 240 px per animation frame for 180 frames: frame intervals (median, p90,
 * max), long tasks, where the main thread went (Chromium's Performance.getMetrics over the scroll),
 * and the elements on the page. Median of --runs runs, alternating the servers so that a load change
 * hits both (--compare adds an earlier build to the alternation).
 *
 * `measurePage` is also used by scripts/bench-api.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { signToken } from '../shared/auth/tokens';
import { createUser } from '../shared/store/users.repo';
import { cachedReportFile } from './fixtures/generate';
import { freePort, waitForPort } from './local/ports';
import { stopGroup, tail, track } from './local/process';
import { median } from './local/bench-shell';
import { startStack, type Stack } from './local/stack';
import { webConfig } from './local/web';

export const BENCH_PAGE_USAGE = `usage: npm run bench:page -- [--articles 5000] [--rows 20000] [--runs 3] [--only dev|prod] [--compare DIR] [--screenshot DIR] [--json]

Measures the report page (summary, first rows, scroll frame times) of a generated report of
--rows rows × --articles articles on the Vite dev server and on the production build.
  --runs N      median of N runs per server (default 3), the servers alternating
  --only S      measure one server: dev or prod
  --compare DIR also measure a production build already in DIR (e.g. of an earlier commit:
                vite build --config web/vite.config.ts --outDir DIR), in the same alternation
  --screenshot DIR  a screenshot of each server's page after its first scroll, into DIR
  --json        also print the numbers as JSON`;

export interface PageNumbers {
  summaryMs: number;
  firstRowsMs: number;
  frames: number;
  medianFrameMs: number;
  p90FrameMs: number;
  maxFrameMs: number;
  longTasks: number;
  /** Main-thread time during the scroll (Chromium's Performance.getMetrics deltas), ms. */
  scriptMs?: number;
  layoutMs?: number;
  styleMs?: number;
  layouts?: number;
  /** Elements of the page, and of the items table, after the scroll. */
  elements?: number;
  tableElements?: number;
}

/** Scrolls the items table by 240 px per animation frame for 180 frames; frame intervals and long tasks. */
export const SCROLL_PROBE = `(async () => {
  const el = document.querySelector('[data-testid="items-table"]');
  let longTasks = 0;
  const obs = new PerformanceObserver((l) => (longTasks += l.getEntries().length));
  try { obs.observe({ type: 'longtask', buffered: false }); } catch {}
  const times = [];
  await new Promise((done) => {
    let last = performance.now();
    let n = 0;
    const step = () => {
      const now = performance.now();
      times.push(now - last);
      last = now;
      el.scrollTop += 240;
      if (++n < 180) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  obs.disconnect();
  return { times: times.slice(1), longTasks };
})()`;

/** The report page in Chromium: summary and first rows after navigation, then scroll frame times. */
export async function measurePage(
  webUrl: string,
  token: string,
  email: string,
  reportId: string,
  screenshot?: string,
): Promise<PageNumbers> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${webUrl}/login`);
    await page.evaluate(
      `localStorage.setItem('svc_token', ${JSON.stringify(token)}); localStorage.setItem('svc_email', ${JSON.stringify(email)})`,
    );
    // Warm the dev server's module graph so the measured load is the page's own work.
    await page.goto(`${webUrl}/reports`);
    await page.waitForLoadState('networkidle');
    const t0 = Date.now();
    await page.goto(`${webUrl}/reports/${reportId}`);
    await page.waitForSelector('[data-testid^="figure-"]', { timeout: 60_000 });
    const summaryMs = Date.now() - t0;
    await page.waitForSelector('[data-testid="items-table"] tbody tr[data-testid^="row-"]', { timeout: 120_000 });
    const firstRowsMs = Date.now() - t0;
    // The table on screen, as a seller scrolling it sees it (below the fold nothing of it is painted).
    await page.evaluate(`document.querySelector('[data-testid="items-table"]').scrollIntoView({ block: 'center' })`);
    await page.waitForTimeout(500);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () =>
      new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value] as const));
    const before = await metrics();
    // Browser code as text: this file is compiled without the DOM library.
    const frames = (await page.evaluate(SCROLL_PROBE)) as { times: number[]; longTasks: number };
    const after = await metrics();
    const counts = (await page.evaluate(
      `({ page: document.getElementsByTagName('*').length, table: document.querySelector('[data-testid="items-table"]').getElementsByTagName('*').length })`,
    )) as { page: number; table: number };
    if (screenshot) {
      // Sideways too, so that the sticky article column and the column window show.
      await page.evaluate(`document.querySelector('[data-testid="items-table"]').scrollLeft += 900`);
      await page.waitForTimeout(300);
      await page.screenshot({ path: screenshot });
    }
    const delta = (name: string, scale = 1000) => ((after.get(name) ?? 0) - (before.get(name) ?? 0)) * scale;
    const sorted = [...frames.times].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    return {
      summaryMs,
      firstRowsMs,
      frames: sorted.length,
      medianFrameMs: q(0.5)!,
      p90FrameMs: q(0.9)!,
      maxFrameMs: sorted[sorted.length - 1]!,
      longTasks: frames.longTasks,
      scriptMs: delta('ScriptDuration'),
      layoutMs: delta('LayoutDuration'),
      styleMs: delta('RecalcStyleDuration'),
      layouts: delta('LayoutCount', 1),
      elements: counts.page,
      tableElements: counts.table,
    };
  } finally {
    await browser.close();
  }
}

interface Options {
  articles: number;
  rows: number;
  runs: number;
  only: 'dev' | 'prod' | null;
  compare: string | null;
  screenshot: string | null;
  json: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    articles: 5000,
    rows: 20_000,
    runs: 3,
    only: null,
    compare: null,
    screenshot: null,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${a} needs a whole number above 0\n${BENCH_PAGE_USAGE}`);
      return v;
    };
    if (a === '--articles') o.articles = num();
    else if (a === '--rows') o.rows = num();
    else if (a === '--runs') o.runs = num();
    else if (a === '--only') {
      const v = argv[++i];
      if (v !== 'dev' && v !== 'prod') throw new Error(`--only takes dev or prod\n${BENCH_PAGE_USAGE}`);
      o.only = v;
    } else if (a === '--compare') {
      const v = argv[++i];
      if (!v || !existsSync(path.join(v, 'index.html')))
        throw new Error(`--compare needs a folder with a built index.html\n${BENCH_PAGE_USAGE}`);
      o.compare = path.resolve(v);
    } else if (a === '--screenshot') {
      const v = argv[++i];
      if (!v) throw new Error(`--screenshot needs a folder\n${BENCH_PAGE_USAGE}`);
      o.screenshot = path.resolve(v);
    } else if (a === '--json') o.json = true;
    else if (a === '--help' || a === '-h') {
      console.log(BENCH_PAGE_USAGE);
      process.exit(0);
    } else throw new Error(`Unknown option ${a}\n${BENCH_PAGE_USAGE}`);
  }
  return o;
}

const log = (line: string) => process.stderr.write(`[bench:page] ${line}\n`);

/** Presigned PUT, then POST /reports/upload {upload_id}; polls until the report is ready. */
async function uploadReport(api: string, token: string, file: string): Promise<string> {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<{ status: number; json: T }> => {
    const res = await fetch(`${api}${route}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as T };
  };
  const bytes = readFileSync(file);
  const url = await call<{ upload_id: string; url: string; headers: Record<string, string> }>(
    'POST',
    '/reports/upload-url',
    { filename: path.basename(file), size: bytes.length },
  );
  if (url.status >= 300) throw new Error(`upload-url answered ${url.status}: ${JSON.stringify(url.json)}`);
  const put = await fetch(url.json.url, { method: 'PUT', headers: url.json.headers, body: bytes });
  if (put.status >= 300) throw new Error(`PUT answered ${put.status}`);
  type Answer = { report?: { id: string; status?: string } };
  const up = await call<Answer>('POST', '/reports/upload', { upload_id: url.json.upload_id });
  const id = up.json.report?.id;
  if ((up.status !== 201 && up.status !== 202) || !id)
    throw new Error(`upload answered ${up.status}: ${JSON.stringify(up.json).slice(0, 200)}`);
  let status = up.json.report?.status ?? 'ready';
  const deadline = Date.now() + 300_000;
  while (status === 'processing') {
    if (Date.now() > deadline) throw new Error(`report ${id} still processing after 5 minutes`);
    await new Promise((r) => setTimeout(r, 250));
    const g = await call<Answer>('GET', `/reports/${id}`);
    if (g.status !== 200) throw new Error(`GET while processing answered ${g.status}`);
    status = g.json.report?.status ?? 'ready';
  }
  if (status !== 'ready') throw new Error(`report ${id} ended ${status}`);
  return id;
}

const viteBin = () => path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
const repoRoot = path.resolve(__dirname, '..');

/** `vite build` of the web app into outDir (production React, minified: what CloudFront serves). */
function buildWeb(outDir: string): void {
  const r = spawnSync(
    process.execPath,
    [viteBin(), 'build', '--config', webConfig(repoRoot), '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } },
  );
  if (r.status !== 0) throw new Error(`vite build failed (${r.status}):\n${r.stderr}${r.stdout}`);
}

/** `vite preview` of outDir on a free port, its /api proxied to the stack's API (web/vite.config.ts). */
async function startPreview(outDir: string, apiUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = track(
    spawn(
      process.execPath,
      [
        viteBin(),
        'preview',
        '--config',
        webConfig(repoRoot),
        '--outDir',
        outDir,
        '--port',
        String(port),
        '--strictPort',
        '--host',
        '127.0.0.1',
      ],
      {
        cwd: repoRoot,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, WEB_PORT: String(port), API_URL: apiUrl, FORCE_COLOR: '0' },
      },
    ),
    'the production web server (vite preview)',
  );
  const lastLines = tail(child);
  try {
    await waitForPort(port, '127.0.0.1', 60_000);
  } catch (e) {
    await stopGroup(child, 1_000);
    throw new Error(`vite preview did not start: ${String(e)}\n${lastLines()}`);
  }
  return { url: `http://localhost:${port}`, stop: () => stopGroup(child) };
}

/** Per field, the median over runs. */
function medianOf(runs: PageNumbers[]): PageNumbers {
  const out = {} as Record<string, number>;
  for (const key of Object.keys(runs[0]!) as Array<keyof PageNumbers>) out[key] = median(runs.map((r) => r[key] ?? 0));
  return out as unknown as PageNumbers;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-page-'));
  const load0 = loadavg()[0]!;
  let stack: Stack | null = null;
  const previews: Array<{ url: string; stop(): Promise<void> }> = [];
  try {
    log(`report of ${o.rows} rows × ${o.articles} articles (zip, 2026, WB style)`);
    const { path: file } = cachedReportFile(
      {
        rows: o.rows,
        articles: o.articles,
        layout: '2026',
        format: 'zip',
        wbStyle: true,
        seed: 8,
      },
      path.join('.cache', 'bench-page'),
    );
    const servers: Array<{ name: string; label: string; url: string }> = [];
    const wantDev = o.only !== 'prod';
    const wantProd = o.only !== 'dev';
    const outDir = path.join(dir, 'dist');
    if (wantProd) {
      log('vite build (production)');
      buildWeb(outDir);
    }
    log('starting the stack on free ports');
    stack = await startStack({ dataDir: path.join(dir, 'data'), freePorts: true, web: wantDev });
    const api = `http://localhost:${stack.ports.api}`;
    if (wantDev && stack.urls.web) servers.push({ name: 'dev', label: 'dev (Vite dev server)', url: stack.urls.web });
    if (wantProd) {
      previews.push(await startPreview(outDir, api));
      servers.push({ name: 'prod', label: 'production (vite build + preview)', url: previews.at(-1)!.url });
    }
    if (o.compare) {
      previews.push(await startPreview(o.compare, api));
      servers.push({ name: 'compare', label: `production, ${o.compare}`, url: previews.at(-1)!.url });
    }
    const email = `bench-page-${Date.now()}@example.com`;
    const user = await createUser({ email, confirmed: true, limits: 100_000_000 });
    const token = signToken({ user_id: user.id }, 'access');
    log('uploading the report');
    const reportId = await uploadReport(stack.urls.api, token, file);

    const results = new Map<string, PageNumbers[]>(servers.map((s) => [s.name, []]));
    for (let run = 0; run < o.runs; run++) {
      // Alternate which server goes first, so that neither always meets a warmer or a busier machine.
      const order = run % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const shot = o.screenshot && run === 0 ? path.join(o.screenshot, `${s.name}.png`) : undefined;
        if (shot) mkdirSync(o.screenshot!, { recursive: true });
        const n = await measurePage(s.url, token, email, reportId, shot);
        results.get(s.name)!.push(n);
        log(
          `run ${run + 1} ${s.name}: frames median ${n.medianFrameMs.toFixed(1)} ms, p90 ${n.p90FrameMs.toFixed(1)} ms, ` +
            `long tasks ${n.longTasks}; script ${n.scriptMs?.toFixed(0)} ms, layout ${n.layoutMs?.toFixed(0)} ms, ` +
            `style ${n.styleMs?.toFixed(0)} ms over the scroll; load ${loadavg()[0]!.toFixed(1)}`,
        );
      }
    }
    const f = (x: number | undefined, d = 0) => (x === undefined ? '—' : x.toFixed(d));
    const lines = [
      `${o.rows} rows × ${o.articles} articles; Chromium headless 1440×900; median of ${o.runs} run(s); ` +
        `load average (1 min) at start ${load0.toFixed(1)}, at end ${loadavg()[0]!.toFixed(1)}`,
      '',
      '| server | summary ms | first rows ms | frame median ms | p90 ms | max ms | long tasks | script / layout / style ms during scroll | elements: page / table |',
      '|---|---|---|---|---|---|---|---|---|',
    ];
    const medians: Record<string, PageNumbers> = {};
    for (const s of servers) {
      const m = medianOf(results.get(s.name)!);
      medians[s.name] = m;
      lines.push(
        `| ${s.label} | ${f(m.summaryMs)} | ${f(m.firstRowsMs)} | ${f(m.medianFrameMs, 1)} | ${f(m.p90FrameMs, 1)} | ` +
          `${f(m.maxFrameMs)} | ${f(m.longTasks)} | ${f(m.scriptMs)} / ${f(m.layoutMs)} / ${f(m.styleMs)} | ${f(m.elements)} / ${f(m.tableElements)} |`,
      );
    }
    console.log(lines.join('\n'));
    if (o.json) console.log(JSON.stringify({ medians, runs: Object.fromEntries(results) }));
  } finally {
    for (const p of previews) await p.stop();
    if (stack) await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
}
