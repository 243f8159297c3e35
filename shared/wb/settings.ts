/**
 * Settings of the WB connection, read from the environment (the lead folds them into shared/config.ts).
 * - WB_FINANCE_API_URL: the Finance API's base URL (default WB's host; the local emulator's URL in dev/tests).
 * - WB_CALL_INTERVAL_SECONDS: the least time between two calls for one seller account (WB: 1 a minute).
 * - WB_ADVERT_API_URL: the promotion API's base URL (default WB's advert-api host).
 */
export const WB_FINANCE_API_URL_DEFAULT = 'https://finance-api.wildberries.ru';
export const WB_CALL_INTERVAL_SECONDS_DEFAULT = 60;
export const WB_ADVERT_API_URL_DEFAULT = 'https://advert-api.wildberries.ru';

export interface WbSettings {
  financeApiUrl: string;
  callIntervalMs: number;
}

export function wbSettingsFrom(env: NodeJS.ProcessEnv): WbSettings {
  const url = env.WB_FINANCE_API_URL?.trim() || WB_FINANCE_API_URL_DEFAULT;
  if (!/^https?:\/\/[^\s/]+/.test(url)) throw new Error(`WB_FINANCE_API_URL is not an http(s) URL: ${url}`);
  const raw = env.WB_CALL_INTERVAL_SECONDS?.trim();
  const seconds = raw ? Number(raw) : WB_CALL_INTERVAL_SECONDS_DEFAULT;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`WB_CALL_INTERVAL_SECONDS must be > 0: ${raw}`);
  return { financeApiUrl: url.replace(/\/+$/, ''), callIntervalMs: Math.round(seconds * 1000) };
}
