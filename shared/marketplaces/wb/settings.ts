/**
 * Settings of the WB connection, read from the environment (the lead folds them into shared/config.ts).
 * - WB_FINANCE_API_URL: the Finance API's base URL (default WB's host; the local emulator's URL in dev/tests).
 * - WB_CALL_INTERVAL_SECONDS: the least time between two calls for one seller account (WB: 1 a minute).
 * - WB_ANALYTICS_API_URL: seller-analytics-api's base URL, the paid-storage and acceptance reports
 *   (default WB's host; the local emulator's URL in dev/tests).
 * - WB_ADVERT_API_URL: the promotion API's base URL (default WB's advert-api host).
 */
export const WB_FINANCE_API_URL_DEFAULT = 'https://finance-api.wildberries.ru';
export const WB_ANALYTICS_API_URL_DEFAULT = 'https://seller-analytics-api.wildberries.ru';
export const WB_CALL_INTERVAL_SECONDS_DEFAULT = 60;
export const WB_ADVERT_API_URL_DEFAULT = 'https://advert-api.wildberries.ru';

export interface WbSettings {
  financeApiUrl: string;
  analyticsApiUrl: string;
  callIntervalMs: number;
}

function baseUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const url = env[name]?.trim() || fallback;
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new Error(`${name} is not an http(s) URL: ${url}`);
  return url.replace(/\/+$/, '');
}

export function wbSettingsFrom(env: NodeJS.ProcessEnv): WbSettings {
  const financeApiUrl = baseUrl(env, 'WB_FINANCE_API_URL', WB_FINANCE_API_URL_DEFAULT);
  const analyticsApiUrl = baseUrl(env, 'WB_ANALYTICS_API_URL', WB_ANALYTICS_API_URL_DEFAULT);
  const raw = env.WB_CALL_INTERVAL_SECONDS?.trim();
  const seconds = raw ? Number(raw) : WB_CALL_INTERVAL_SECONDS_DEFAULT;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`WB_CALL_INTERVAL_SECONDS must be > 0: ${raw}`);
  return { financeApiUrl, analyticsApiUrl, callIntervalMs: Math.round(seconds * 1000) };
}
