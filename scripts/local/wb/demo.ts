/**
 * The WB side of the local stack (`npm start`): where the WB Finance API is, how often it may be called,
 * and the emulator's demo seller, kept in the data folder so that a connection made at one start still
 * works at the next.
 *
 * - WB_FINANCE_API_URL set when `npm start` runs: that API is used and no emulator starts; the call
 *   interval is then WB's (60 s) unless WB_CALL_INTERVAL_SECONDS says otherwise.
 * - Otherwise the emulator runs on WB_EMULATOR_PORT with a short interval (2 s; WB_CALL_INTERVAL_SECONDS
 *   moves it), so a demo sync of a few weeks finishes in seconds instead of minutes.
 * - WB_ANALYTICS_API_URL (the paid-storage and acceptance reports) set: that API; otherwise the emulator,
 *   which serves them too, or WB's own host when the Finance API is WB's.
 * - The demo seller (wb-emulator.json in the data folder): its token (180 days) and the Monday of its first
 *   week. Its weeks are the whole weeks from that Monday to the current one: four at the first start, one
 *   more each week after (at most MAX_DEMO_WEEKS), as WB publishes a report after each week.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ANALYTICS_SCOPE, decodeWbToken, FINANCE_SCOPE } from '../../../shared/marketplaces/wb/token';
import { makeEmulatorToken } from './tokens';
import { ADVERT_SCOPE } from '../../../shared/marketplaces/wb/sources/advert-source';
import { WB_ADVERT_API_URL_DEFAULT, WB_ANALYTICS_API_URL_DEFAULT } from '../../../shared/marketplaces/wb/settings';

/** Seconds between two calls to the emulator per WB account on the local stack. */
export const LOCAL_WB_CALL_INTERVAL_SECONDS = 2;
/** WB's own rule: one call a minute per WB account. */
export const WB_CALL_INTERVAL_SECONDS = 60;
/** WB's pace of fullstats (3 a minute) when the promotion API is WB's own. */
export const WB_ADVERT_CALL_INTERVAL_SECONDS = 20;
/** The demo seller's WB id (the token's `oid`). */
export const DEMO_WB_SELLER_ID = 4242001;
export const DEMO_WEEKS_AT_FIRST_START = 4;
export const MAX_DEMO_WEEKS = 12;
/** Rows of each demo week: a few dozen articles, four weeks well inside the demo's initial limits. */
export const DEMO_ROWS_PER_WEEK = 800;
/** The demo token's categories: the realization reports, the promotion API, the paid-storage and acceptance reports. */
export const DEMO_TOKEN_SCOPES = [ANALYTICS_SCOPE, 'Статистика', ADVERT_SCOPE, FINANCE_SCOPE] as const;

export interface WbStackSettings {
  /** Whether the stack starts the emulator (no WB_FINANCE_API_URL given). */
  emulator: boolean;
  /** WB_FINANCE_API_URL for the handlers. */
  url: string;
  /** WB_ANALYTICS_API_URL for the handlers. */
  analyticsUrl: string;
  /** WB_CALL_INTERVAL_SECONDS for the handlers (and the emulator's rate limit). */
  intervalSeconds: number;
  /**
   * WB_ADVERT_API_URL for the handlers: as given; else the emulator (which serves the promotion API too)
   * when it runs; else WB's advert-api host.
   */
  advertUrl: string;
  /** WB_ADVERT_CALL_INTERVAL_SECONDS: as given; else the emulator's interval; else WB's 20 s. */
  advertIntervalSeconds: number;
}

/** The WB settings of a local stack whose emulator would listen on `port`; throws for a bad value. */
export function wbStackSettings(env: NodeJS.ProcessEnv, port: number): WbStackSettings {
  const given = env.WB_FINANCE_API_URL?.trim() ?? '';
  if (given !== '' && !/^https?:\/\/[^\s/]+/.test(given))
    throw new Error(`WB_FINANCE_API_URL=${given} is not an http(s) URL`);
  const emulator = given === '';
  const analytics = env.WB_ANALYTICS_API_URL?.trim() ?? '';
  if (analytics !== '' && !/^https?:\/\/[^\s/]+/.test(analytics))
    throw new Error(`WB_ANALYTICS_API_URL=${analytics} is not an http(s) URL`);
  const raw = env.WB_CALL_INTERVAL_SECONDS?.trim() ?? '';
  const seconds = raw === '' ? (emulator ? LOCAL_WB_CALL_INTERVAL_SECONDS : WB_CALL_INTERVAL_SECONDS) : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(`WB_CALL_INTERVAL_SECONDS=${raw} is not a positive number of seconds`);
  const url = emulator ? `http://127.0.0.1:${port}` : given.replace(/\/+$/, '');
  const advertGiven = env.WB_ADVERT_API_URL?.trim() ?? '';
  if (advertGiven !== '' && !/^https?:\/\/[^\s/]+/.test(advertGiven))
    throw new Error(`WB_ADVERT_API_URL=${advertGiven} is not an http(s) URL`);
  const advertRaw = env.WB_ADVERT_CALL_INTERVAL_SECONDS?.trim() ?? '';
  const advertSeconds = advertRaw === '' ? (emulator ? seconds : WB_ADVERT_CALL_INTERVAL_SECONDS) : Number(advertRaw);
  if (!Number.isFinite(advertSeconds) || advertSeconds <= 0)
    throw new Error(`WB_ADVERT_CALL_INTERVAL_SECONDS=${advertRaw} is not a positive number of seconds`);
  return {
    emulator,
    url,
    analyticsUrl: analytics !== '' ? analytics.replace(/\/+$/, '') : emulator ? url : WB_ANALYTICS_API_URL_DEFAULT,
    intervalSeconds: seconds,
    advertUrl: advertGiven !== '' ? advertGiven.replace(/\/+$/, '') : emulator ? url : WB_ADVERT_API_URL_DEFAULT,
    advertIntervalSeconds: advertSeconds,
  };
}

export interface DemoWbSeller {
  token: string;
  /** Monday of week 0 (YYYY-MM-DD). */
  firstMonday: string;
  /** How many whole weeks the emulator serves now. */
  weeks: number;
}

const DAY_MS = 86_400_000;

/** The Monday (UTC) of the week `nowMs` falls in, as epoch ms. */
function mondayOf(nowMs: number): number {
  const d = new Date(nowMs);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function tokenUsable(token: unknown, nowMs: number): token is string {
  if (typeof token !== 'string') return false;
  try {
    const info = decodeWbToken(token);
    // A demo token from before the promotion and analytics APIs lacks their categories: replaced, so the demo shows
    // ads, storage and acceptance per article.
    return (
      info.sellerId === String(DEMO_WB_SELLER_ID) &&
      info.exp * 1000 > nowMs + DAY_MS &&
      DEMO_TOKEN_SCOPES.every((s) => info.scopes.includes(s))
    );
  } catch {
    return false;
  }
}

/**
 * The demo seller of `dataDir` (wb-emulator.json), created on first use; a token that expires within a
 * day is replaced (a connection holding the old one then asks for the new one, as WB would).
 */
export function demoWbSeller(dataDir: string, nowMs: number = Date.now()): DemoWbSeller {
  const file = path.join(dataDir, 'wb-emulator.json');
  let kept: { token?: unknown; firstMonday?: unknown } = {};
  if (existsSync(file)) {
    try {
      kept = JSON.parse(readFileSync(file, 'utf8')) as typeof kept;
    } catch {
      kept = {};
    }
  }
  const thisMonday = mondayOf(nowMs);
  const firstMonday =
    typeof kept.firstMonday === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(kept.firstMonday)
      ? kept.firstMonday
      : isoDay(thisMonday - DEMO_WEEKS_AT_FIRST_START * 7 * DAY_MS);
  const token = tokenUsable(kept.token, nowMs)
    ? kept.token
    : makeEmulatorToken({
        oid: DEMO_WB_SELLER_ID,
        scopes: [...DEMO_TOKEN_SCOPES],
        exp: Math.floor(nowMs / 1000) + 180 * 86_400,
      });
  if (token !== kept.token || firstMonday !== kept.firstMonday) {
    mkdirSync(dataDir, { recursive: true });
    // The token is a secret of the demo seller: readable by its owner only.
    writeFileSync(file, `${JSON.stringify({ token, firstMonday }, null, 2)}\n`, { mode: 0o600 });
  }
  const whole = Math.floor((thisMonday - Date.parse(`${firstMonday}T00:00:00Z`)) / (7 * DAY_MS));
  return { token, firstMonday, weeks: Math.min(MAX_DEMO_WEEKS, Math.max(1, whole)) };
}

/** `npm start`'s first line: the services it starts — the WB emulator only when WB_FINANCE_API_URL is unset. */
export function stackStartLine(env: NodeJS.ProcessEnv): string {
  const emulator = (env.WB_FINANCE_API_URL?.trim() ?? '') === '';
  const parts = [
    'DynamoDB Local',
    's3rver',
    'SES emulator',
    ...(emulator ? ['WB API emulator'] : []),
    'API',
    'web app',
  ];
  return `Starting the local stack (${parts.join(', ')})…${emulator ? '' : ` WB: ${env.WB_FINANCE_API_URL!.trim()} (WB_FINANCE_API_URL).`}`;
}

/** What the local stack gives the handlers and the person at the console about WB. */
export interface StackWb {
  url: string;
  intervalSeconds: number;
  /** WB_ANALYTICS_API_URL (paid storage, acceptance), when the stack says it. */
  analyticsUrl?: string;
  /** WB_ADVERT_API_URL (the promotion API: ad spend per card) and its WB_ADVERT_CALL_INTERVAL_SECONDS. */
  advertUrl?: string;
  advertIntervalSeconds?: number;
  /** The emulator's demo seller; absent when WB_FINANCE_API_URL pointed elsewhere. */
  emulator?: { token: string; weeks: Array<{ reportId: number; dateFrom: string; dateTo: string; rows: number }> };
}

/** «800 rows each», or «600–1240 rows a week» when the weeks differ (the demo seller's season). */
function rowsText(rows: readonly number[]): string {
  const lo = Math.min(...rows);
  const hi = Math.max(...rows);
  if (rows.length === 0) return '0 rows each';
  return lo === hi ? `${lo} rows each` : `${lo}–${hi} rows a week`;
}

/** `npm start`'s lines about WB: where its API is, how often it may be called, and the demo token to paste. */
export function wbStackLines(wb: StackWb, webUrl?: string): string[] {
  const pad = (label: string) => label.padEnd(14);
  const every = `one call per ${wb.intervalSeconds} s per WB account`;
  const analytics = wb.analyticsUrl
    ? [`  ${pad('WB analytics')}${wb.analyticsUrl}   (WB_ANALYTICS_API_URL: paid storage and acceptance reports)`]
    : [];
  const advert = wb.advertUrl
    ? [
        `  ${pad('WB promotion')}${wb.advertUrl}   (WB_ADVERT_API_URL: ad spend per card; one call per ${wb.advertIntervalSeconds ?? wb.intervalSeconds} s, WB_ADVERT_CALL_INTERVAL_SECONDS)`,
      ]
    : [];
  if (!wb.emulator)
    return [
      `  ${pad('WB API')}${wb.url}   (WB_FINANCE_API_URL; ${every}, WB_CALL_INTERVAL_SECONDS; no emulator started)`,
      ...analytics,
      ...advert,
    ];
  const { weeks } = wb.emulator;
  const first = weeks[0];
  const last = weeks[weeks.length - 1];
  return [
    `  ${pad('WB emulator')}${wb.url}   (WB_FINANCE_API_URL; ${every}: WB allows one a minute,`,
    `  ${pad('')}so a demo sync takes seconds here; WB_CALL_INTERVAL_SECONDS changes it)`,
    `  ${pad('')}${weeks.length} weekly reports${first && last ? ` ${first.dateFrom}…${last.dateTo}` : ''}, ${rowsText(weeks.map((w) => w.rows))}`,
    ...analytics,
    ...advert,
    `\n  Demo WB token (Настройки → «Подключение WB»${webUrl ? `: ${webUrl}/settings` : ''}):`,
    `  ${wb.emulator.token}`,
  ];
}
