/**
 * Many sellers at once against a running API (the local stack): each uploads its weeks as the web app
 * does — upload-url, the presigned PUT to S3, count-rows by upload_id (the preview), upload by
 * upload_id, following a 202 until the report is ready — and reads them back (GET report, the list).
 * Bounded in count (sellers × weeks) and in time (`deadlineMs`: past it, every request still in flight
 * is aborted and the run ends with what it has). Used by `npm run bench:load` (scripts/bench-load.ts,
 * 50 sellers, timings printed) and by test/e2e/load.e2e.test.ts (10 sellers, no 5xx, every report ready).
 */
import { performance } from 'node:perf_hooks';
import { generateReport } from '../fixtures/generate';

export interface LoadOptions {
  /** The API base (`http://localhost:<port>/api`). */
  apiUrl: string;
  /** One access token per seller. */
  tokens: string[];
  /** Weekly reports each seller uploads, one after the other. */
  weeks: number;
  /** Rows of each generated week. */
  rows: number;
  /** GET report and GET list requests each seller makes after each upload. */
  reads: number;
  /** The whole run ends by then (ms from its start). */
  deadlineMs: number;
  /** Sellers start spread over this many ms (seller i at i × rampMs / sellers); 0: all at once. */
  rampMs?: number;
  log?: (line: string) => void;
}

export interface Call {
  route: string;
  status: number;
  ms: number;
  /** The answer's error code (`try_again` is repeated, as the web app does). */
  code?: string;
}

export interface LoadResult {
  calls: Call[];
  /** Reports that reached `ready` (by seller, in upload order). */
  ready: string[][];
  /** Uploads that did not end ready, with why. */
  failures: string[];
  /** Requests sent again because their kept-alive connection was closed before any answer. */
  resets: number;
  wallMs: number;
  timedOut: boolean;
}

/** Repeats of a request answered 503 `try_again` (web/src/api/client.ts TRY_AGAIN_RETRIES). */
const TRY_AGAIN_RETRIES = 2;

/** The routes reported, in the order of a seller's flow. */
export const ROUTES = ['upload-url', 'PUT (S3)', 'count-rows', 'upload', 'poll', 'GET report', 'GET list'] as const;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** p50/p95/max and the count per route, 5xx counted apart. */
export function summarize(
  calls: Call[],
): Array<{ route: string; n: number; p50: number; p95: number; max: number; errors5xx: number; tryAgain: number }> {
  return ROUTES.map((route) => {
    const of = calls.filter((c) => c.route === route);
    const ms = of.map((c) => c.ms).sort((a, b) => a - b);
    return {
      route,
      n: of.length,
      p50: percentile(ms, 50),
      p95: percentile(ms, 95),
      max: ms.at(-1) ?? NaN,
      errors5xx: of.filter((c) => c.status >= 500 && c.code !== 'try_again').length,
      tryAgain: of.filter((c) => c.code === 'try_again').length,
    };
  }).filter((r) => r.n > 0);
}

/** An error with its cause (fetch's "fetch failed" says why only there). */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause as { code?: string; message?: string } | undefined;
  return cause ? `${e.message} (${cause.code ?? cause.message ?? 'no cause'})` : e.message;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const calls: Call[] = [];
  const failures: string[] = [];
  let resets = 0;
  const abort = new AbortController();
  const start = performance.now();
  const timer = setTimeout(() => abort.abort(), o.deadlineMs);
  const log = o.log ?? (() => undefined);

  /**
   * fetch, sent once more when the connection it reused was closed before any answer (what a browser
   * does too: a kept-alive socket the server has just dropped); counted in `resets`.
   */
  async function send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: abort.signal });
    } catch (e) {
      const code = ((e as Error).cause as { code?: string } | undefined)?.code ?? '';
      if (abort.signal.aborted || !['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(code)) throw e;
      resets++;
      return fetch(url, { ...init, signal: abort.signal });
    }
  }

  async function callOnce(
    route: string,
    url: string,
    init: RequestInit,
  ): Promise<{ status: number; json: unknown; retryAfter: number | null; code?: string }> {
    const t = performance.now();
    let status = 0;
    let code: string | undefined;
    try {
      const res = await send(url, init).catch((e: unknown) => {
        // Name the route in the flow's failure (fetch's own error does not say which request it was).
        throw new Error(`${route}: ${describe(e)}`);
      });
      status = res.status;
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      // serverless-offline answers a Lambda that failed or timed out as 200 {errorMessage}: a 5xx.
      const json: unknown = type.includes('json') && text ? JSON.parse(text) : null;
      if (status === 200 && json && typeof json === 'object' && 'errorMessage' in json) status = 502;
      if (status >= 400) code = (json as { error?: { code?: string } } | null)?.error?.code;
      const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
      return { status, json, code, retryAfter: Number.isFinite(retryAfter) ? retryAfter : null };
    } finally {
      calls.push({ route, status, ms: performance.now() - t, ...(code ? { code } : {}) });
    }
  }

  /** One request as the web app sends it: a 503 `try_again` is sent again after its Retry-After, twice at most. */
  async function call(route: string, url: string, init: RequestInit = {}): Promise<{ status: number; json: unknown }> {
    for (let attempt = 1; ; attempt++) {
      const r = await callOnce(route, url, init);
      if (r.status !== 503 || r.code !== 'try_again' || attempt > TRY_AGAIN_RETRIES || abort.signal.aborted) return r;
      await new Promise((done) => setTimeout(done, Math.min(r.retryAfter ?? 2 ** (attempt - 1), 10) * 1000));
    }
  }

  const api = (token: string, route: string, method: string, path: string, body?: unknown) =>
    call(route, `${o.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'accept-encoding': 'gzip',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function seller(index: number, token: string): Promise<string[]> {
    const ready: string[] = [];
    const delay = ((o.rampMs ?? 0) * index) / Math.max(1, o.tokens.length);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    for (let week = 0; week < o.weeks; week++) {
      if (abort.signal.aborted) break;
      const what = `seller ${index} week ${week}`;
      try {
        // Each seller its own articles (seed), each week its own report (week).
        const g = generateReport({ rows: o.rows, layout: '2026', format: 'xlsx', seed: 1000 + index, week });
        const url = await api(token, 'upload-url', 'POST', '/reports/upload-url', {
          filename: g.filename,
          size: g.file.length,
        });
        if (url.status !== 200) throw new Error(`upload-url answered ${url.status}`);
        const target = url.json as { upload_id: string; url: string; method: string; headers: Record<string, string> };
        const put = await call('PUT (S3)', target.url, {
          method: target.method,
          headers: target.headers,
          body: g.file,
        });
        if (put.status >= 300) throw new Error(`PUT answered ${put.status}`);
        const count = await api(token, 'count-rows', 'POST', '/reports/count-rows', { upload_id: target.upload_id });
        if (count.status !== 200) throw new Error(`count-rows answered ${count.status}`);
        const up = await api(token, 'upload', 'POST', '/reports/upload', { upload_id: target.upload_id });
        if (up.status !== 201 && up.status !== 202) throw new Error(`upload answered ${up.status}`);
        const id = (up.json as { report: { id: string; status: string } }).report.id;
        let status = (up.json as { report: { status: string } }).report.status;
        while (status === 'processing' && !abort.signal.aborted) {
          await new Promise((r) => setTimeout(r, 300));
          const p = await api(token, 'poll', 'GET', `/reports/${id}`);
          if (p.status !== 200) throw new Error(`poll answered ${p.status}`);
          status = (p.json as { report: { status: string } }).report.status;
        }
        if (status !== 'ready') throw new Error(`report ${id} ended ${status}`);
        ready.push(id);
        for (let r = 0; r < o.reads; r++) {
          const got = await api(token, 'GET report', 'GET', `/reports/${id}`);
          if (got.status !== 200) throw new Error(`GET report answered ${got.status}`);
          const list = await api(token, 'GET list', 'GET', '/reports');
          if (list.status !== 200) throw new Error(`GET list answered ${list.status}`);
        }
      } catch (e) {
        failures.push(`${what}: ${abort.signal.aborted ? 'deadline passed' : describe(e)}`);
      }
    }
    log(`seller ${index}: ${ready.length}/${o.weeks} ready`);
    return ready;
  }

  try {
    const ready = await Promise.all(o.tokens.map((t, i) => seller(i, t)));
    return { calls, ready, failures, resets, wallMs: performance.now() - start, timedOut: abort.signal.aborted };
  } finally {
    clearTimeout(timer);
  }
}
