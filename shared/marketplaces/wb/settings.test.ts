import { describe, expect, it } from 'vitest';
import { wbSettingsFrom, WB_ANALYTICS_API_URL_DEFAULT, WB_FINANCE_API_URL_DEFAULT } from './settings';

describe('WB settings', () => {
  it('defaults to WB and one call a minute', () => {
    expect(wbSettingsFrom({})).toEqual({
      financeApiUrl: WB_FINANCE_API_URL_DEFAULT,
      analyticsApiUrl: 'https://seller-analytics-api.wildberries.ru',
      callIntervalMs: 60_000,
    });
    expect(WB_ANALYTICS_API_URL_DEFAULT).toBe('https://seller-analytics-api.wildberries.ru');
  });
  it('takes the emulator URL and a short interval', () => {
    expect(
      wbSettingsFrom({
        WB_FINANCE_API_URL: 'http://127.0.0.1:8787/',
        WB_ANALYTICS_API_URL: ' http://127.0.0.1:8787/ ',
        WB_CALL_INTERVAL_SECONDS: '0.2',
      }),
    ).toEqual({
      financeApiUrl: 'http://127.0.0.1:8787',
      analyticsApiUrl: 'http://127.0.0.1:8787',
      callIntervalMs: 200,
    });
  });
  it('refuses nonsense', () => {
    expect(() => wbSettingsFrom({ WB_FINANCE_API_URL: 'finance-api' })).toThrow(/not an http/);
    expect(() => wbSettingsFrom({ WB_ANALYTICS_API_URL: 'seller-analytics-api' })).toThrow(/WB_ANALYTICS_API_URL/);
    expect(() => wbSettingsFrom({ WB_CALL_INTERVAL_SECONDS: '0' })).toThrow(/must be > 0/);
    expect(() => wbSettingsFrom({ WB_CALL_INTERVAL_SECONDS: 'x' })).toThrow(/must be > 0/);
  });
});
