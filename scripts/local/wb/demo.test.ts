/**
 * The WB side of `npm start`: which API the handlers are given and how often they may call it, the
 * emulator's port setting, the demo seller kept in the data folder, and that its demo token connects —
 * to the emulator as the stack starts it, and again after a restart.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFinanceClient } from '../../../shared/marketplaces/wb/finance/finance-client';
import { PAID_STORAGE_REPORT } from '../../../shared/marketplaces/wb/sources/analytics-reports';
import { createReportTaskClient } from '../../../shared/marketplaces/wb/sources/report-task';
import { ANALYTICS_SCOPE, decodeWbToken, FINANCE_SCOPE } from '../../../shared/marketplaces/wb/token';
import { configuredPort, PORT_SETTINGS } from '../port-settings';
import { startWbEmulator } from '../wb-emulator';
import { DEMO_WB_SELLER_ID, demoWbSeller, MAX_DEMO_WEEKS, stackStartLine, wbStackLines, wbStackSettings } from './demo';
import { makeEmulatorToken } from './tokens';

const DAY = 86_400_000;
// A Wednesday: its week's Monday is 2026-11-23.
const NOW = Date.parse('2026-11-25T10:00:00Z');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'wb-demo-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('WB settings of the local stack', () => {
  it('the emulator port is a setting like the others: WB_EMULATOR_PORT, 8787 by default', () => {
    expect(PORT_SETTINGS.wbEmulator).toMatchObject({ variable: 'WB_EMULATOR_PORT', default: 8787 });
    expect(configuredPort('wbEmulator', {})).toEqual({ port: 8787, fromEnv: false });
    expect(configuredPort('wbEmulator', { WB_EMULATOR_PORT: '9797' })).toEqual({ port: 9797, fromEnv: true });
    expect(() => configuredPort('wbEmulator', { WB_EMULATOR_PORT: 'x' })).toThrow('WB_EMULATOR_PORT=x');
  });

  it('without WB_FINANCE_API_URL: the emulator on its port, two seconds between calls', () => {
    expect(wbStackSettings({}, 8787)).toEqual({
      emulator: true,
      url: 'http://127.0.0.1:8787',
      analyticsUrl: 'http://127.0.0.1:8787',
      intervalSeconds: 2,
      advertUrl: 'http://127.0.0.1:8787',
      advertIntervalSeconds: 2,
    });
    expect(wbStackSettings({ WB_FINANCE_API_URL: ' ', WB_CALL_INTERVAL_SECONDS: '0.5' }, 9000)).toEqual({
      emulator: true,
      url: 'http://127.0.0.1:9000',
      analyticsUrl: 'http://127.0.0.1:9000',
      intervalSeconds: 0.5,
      advertUrl: 'http://127.0.0.1:9000',
      advertIntervalSeconds: 0.5,
    });
  });

  it('with WB_FINANCE_API_URL: that API, no emulator, and WB’s own minute unless told otherwise', () => {
    expect(wbStackSettings({ WB_FINANCE_API_URL: 'https://finance-api.wildberries.ru/' }, 8787)).toEqual({
      emulator: false,
      url: 'https://finance-api.wildberries.ru',
      analyticsUrl: 'https://seller-analytics-api.wildberries.ru',
      intervalSeconds: 60,
      advertUrl: 'https://advert-api.wildberries.ru',
      advertIntervalSeconds: 20,
    });
    expect(
      wbStackSettings({ WB_ADVERT_API_URL: 'http://127.0.0.1:4100/', WB_ADVERT_CALL_INTERVAL_SECONDS: '30' }, 8787),
    ).toMatchObject({ emulator: true, advertUrl: 'http://127.0.0.1:4100', advertIntervalSeconds: 30 });
    expect(
      wbStackSettings({ WB_FINANCE_API_URL: 'http://127.0.0.1:4000', WB_CALL_INTERVAL_SECONDS: '5' }, 8787),
    ).toMatchObject({ emulator: false, intervalSeconds: 5 });
  });

  it('WB_ANALYTICS_API_URL, when set, sends the paid-storage and acceptance reports there', () => {
    expect(wbStackSettings({ WB_ANALYTICS_API_URL: 'http://127.0.0.1:4100/' }, 8787)).toMatchObject({
      emulator: true,
      url: 'http://127.0.0.1:8787',
      analyticsUrl: 'http://127.0.0.1:4100',
    });
    expect(() => wbStackSettings({ WB_ANALYTICS_API_URL: 'analytics' }, 1)).toThrow('WB_ANALYTICS_API_URL=analytics');
  });

  it('refuses values that are no URL or no interval, naming the variable', () => {
    expect(() => wbStackSettings({ WB_FINANCE_API_URL: 'finance-api' }, 1)).toThrow('WB_FINANCE_API_URL=finance-api');
    expect(() => wbStackSettings({ WB_CALL_INTERVAL_SECONDS: '0' }, 1)).toThrow('WB_CALL_INTERVAL_SECONDS=0');
    expect(() => wbStackSettings({ WB_CALL_INTERVAL_SECONDS: 'soon' }, 1)).toThrow('WB_CALL_INTERVAL_SECONDS=soon');
    expect(() => wbStackSettings({ WB_ADVERT_API_URL: 'advert' }, 1)).toThrow('WB_ADVERT_API_URL=advert');
    expect(() => wbStackSettings({ WB_ADVERT_CALL_INTERVAL_SECONDS: '-1' }, 1)).toThrow(
      'WB_ADVERT_CALL_INTERVAL_SECONDS=-1',
    );
  });

  it('the console names the API, the interval and the demo token', () => {
    const lines = wbStackLines(
      {
        url: 'http://127.0.0.1:8787',
        intervalSeconds: 2,
        emulator: {
          token: 'tok.en.x',
          weeks: [{ reportId: 900000000, dateFrom: '2026-10-26', dateTo: '2026-11-01', rows: 800 }],
        },
      },
      'http://localhost:5173',
    ).join('\n');
    expect(lines).toContain('http://127.0.0.1:8787');
    expect(lines).toContain('one call per 2 s per WB account');
    expect(lines).toContain('WB allows one a minute');
    expect(lines).toContain('1 weekly reports 2026-10-26…2026-11-01, 800 rows each');
    const season = wbStackLines({
      url: 'http://127.0.0.1:8787',
      intervalSeconds: 2,
      emulator: {
        token: 'tok.en.x',
        weeks: [
          { reportId: 900000000, dateFrom: '2026-10-26', dateTo: '2026-11-01', rows: 801 },
          { reportId: 900000001, dateFrom: '2026-11-02', dateTo: '2026-11-08', rows: 1241 },
        ],
      },
    }).join('\n');
    expect(season).toContain('2 weekly reports 2026-10-26…2026-11-08, 801–1241 rows a week');
    expect(lines).toContain('http://localhost:5173/settings');
    expect(lines).toContain('tok.en.x');
    expect(wbStackLines({ url: 'https://wb.example', intervalSeconds: 60 }).join('\n')).toContain(
      'https://wb.example   (WB_FINANCE_API_URL; one call per 60 s per WB account, WB_CALL_INTERVAL_SECONDS; no emulator started)',
    );
    expect(
      wbStackLines({ url: 'https://wb.example', analyticsUrl: 'https://an.example', intervalSeconds: 60 }).join('\n'),
    ).toContain('https://an.example   (WB_ANALYTICS_API_URL: paid storage and acceptance reports)');
  });

  it('with WB_FINANCE_API_URL set: says no emulator starts and prints every WB setting in use', () => {
    const env = { WB_FINANCE_API_URL: 'https://wb.example', WB_ADVERT_API_URL: 'https://advert.example' };
    const start = stackStartLine(env);
    expect(start).not.toContain('WB API emulator');
    expect(start).toContain('WB: https://wb.example (WB_FINANCE_API_URL)');
    expect(stackStartLine({})).toContain('WB API emulator');
    const s = wbStackSettings(env, 8787);
    const lines = wbStackLines({
      url: s.url,
      intervalSeconds: s.intervalSeconds,
      analyticsUrl: s.analyticsUrl,
      advertUrl: s.advertUrl,
      advertIntervalSeconds: s.advertIntervalSeconds,
    }).join('\n');
    expect(lines).toContain('https://wb.example   (WB_FINANCE_API_URL; one call per 60 s per WB account');
    expect(lines).toContain('no emulator started');
    expect(lines).toContain('WB_ANALYTICS_API_URL');
    expect(lines).toContain('https://advert.example   (WB_ADVERT_API_URL: ad spend per card');
    expect(lines).toContain('WB_ADVERT_CALL_INTERVAL_SECONDS');
  });
});

describe('the demo seller', () => {
  it('is made once with four whole weeks and a 180-day token with «Финансы», kept readable by its owner only', () => {
    const first = demoWbSeller(dir, NOW);
    expect(first).toMatchObject({ firstMonday: '2026-10-26', weeks: 4 });
    const info = decodeWbToken(first.token);
    expect(info.sellerId).toBe(String(DEMO_WB_SELLER_ID));
    expect(info.scopes).toEqual(expect.arrayContaining([FINANCE_SCOPE, ANALYTICS_SCOPE]));
    expect(info.exp * 1000).toBe(Math.floor(NOW / 1000) * 1000 + 180 * DAY);
    const file = path.join(dir, 'wb-emulator.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ token: first.token, firstMonday: '2026-10-26' });

    // The next start, the same day and three weeks later: the same token, one more week each week.
    expect(demoWbSeller(dir, NOW + DAY)).toEqual(first);
    expect(demoWbSeller(dir, NOW + 21 * DAY)).toEqual({ ...first, weeks: 7 });
    expect(demoWbSeller(dir, NOW + 400 * DAY).weeks).toBe(MAX_DEMO_WEEKS);
  });

  it('replaces a token that expires within a day or is not the demo seller’s, keeping the weeks', () => {
    const soon = makeEmulatorToken({ oid: DEMO_WB_SELLER_ID, scopes: [FINANCE_SCOPE], exp: NOW / 1000 + 3600 });
    writeFileSync(path.join(dir, 'wb-emulator.json'), JSON.stringify({ token: soon, firstMonday: '2026-11-02' }));
    const fresh = demoWbSeller(dir, NOW);
    expect(fresh.token).not.toBe(soon);
    expect(fresh).toMatchObject({ firstMonday: '2026-11-02', weeks: 3 });
    const other = makeEmulatorToken({ oid: 1, scopes: [FINANCE_SCOPE], exp: NOW / 1000 + 90 * 86_400 });
    writeFileSync(path.join(dir, 'wb-emulator.json'), JSON.stringify({ token: other, firstMonday: 'junk' }));
    expect(demoWbSeller(dir, NOW).token).not.toBe(other);
    // A token of the demo seller from before the reports needed «Аналитика»: replaced.
    const old = makeEmulatorToken({ oid: DEMO_WB_SELLER_ID, scopes: [FINANCE_SCOPE], exp: NOW / 1000 + 90 * 86_400 });
    writeFileSync(path.join(dir, 'wb-emulator.json'), JSON.stringify({ token: old, firstMonday: '2026-11-02' }));
    expect(demoWbSeller(dir, NOW).token).not.toBe(old);
    writeFileSync(path.join(dir, 'wb-emulator.json'), '{not json');
    expect(demoWbSeller(dir, NOW)).toMatchObject({ firstMonday: '2026-10-26', weeks: 4 });
  });

  it('its token connects to the emulator as the stack starts it, and again after a restart', async () => {
    const seller = demoWbSeller(dir, NOW);
    const start = () =>
      startWbEmulator({
        port: 0,
        now: () => NOW,
        intervalMs: 2000,
        weeks: seller.weeks,
        rowsPerWeek: 40,
        demo: true,
        firstMonday: seller.firstMonday,
        sellerId: DEMO_WB_SELLER_ID,
        validToken: demoWbSeller(dir, NOW).token,
      });
    const sums: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const emu = await start();
      try {
        expect(emu.tokens.valid).toBe(seller.token);
        const client = createFinanceClient({ baseUrl: emu.url, token: seller.token });
        const listed = await client.listReports({ dateFrom: '2025-01-01', dateTo: '2026-11-25' });
        expect(listed.kind).toBe('ok');
        if (listed.kind !== 'ok') return;
        expect(listed.value.map((r) => [r.reportId, r.dateFrom])).toEqual([
          [900000000, '2026-10-26'],
          [900000001, '2026-11-02'],
          [900000002, '2026-11-09'],
          [900000003, '2026-11-16'],
        ]);
        // The weeks differ (the demo's season), and are the same at every start.
        sums.push(listed.value.map((r) => `${r.retailAmountSum}/${r.forPaySum}`));
        expect(new Set(sums[run]).size).toBe(4);
        if (run === 1) expect(sums[1]).toEqual(sums[0]);
        // The next call within the interval waits, as WB's minute does.
        expect((await client.listReports({ dateFrom: '2025-01-01', dateTo: '2026-11-25' })).kind).toBe('rate_limited');
        // The same token asks for the paid-storage report (it has «Аналитика»).
        const storage = createReportTaskClient(PAID_STORAGE_REPORT, { baseUrl: emu.url, token: seller.token });
        expect((await storage.createTask({ dateFrom: '2026-10-26', dateTo: '2026-11-01' })).kind).toBe('ok');
      } finally {
        await emu.close();
      }
    }
  });
});
