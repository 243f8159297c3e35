/**
 * Reading a WB API token (a JWT the seller issues in the portal, «Доступ к API»; docs/WB-API.md, Tokens).
 *
 * Only WB can verify the signature (ES256 with WB's key, not published), so nothing here is proof of
 * anything: the decoded claims serve to show the seller what they pasted (categories, expiry) and to
 * refuse an obviously unusable token early. Access is decided by WB's answer (401/403) alone.
 *
 * Claims seen in WB's tokens and read by public clients (Dakword/WBSeller src/APIToken.php):
 * exp (seconds), s (category bitmask, tested as s & (1 << position)), oid (seller's numeric id),
 * sid (seller's UUID), acc (token type), t (test token).
 */

/** Category of each bit position of the `s` claim. 13 «Финансы» follows WB's list order (docs/WB-API.md). */
export const SCOPE_BITS: Readonly<Record<number, string>> = {
  1: 'Контент',
  2: 'Аналитика',
  3: 'Цены и скидки',
  4: 'Маркетплейс',
  5: 'Статистика',
  6: 'Продвижение',
  7: 'Вопросы и отзывы',
  8: 'Рекомендации',
  9: 'Чат с покупателями',
  10: 'Поставки',
  11: 'Возвраты покупателями',
  12: 'Документы',
  13: 'Финансы',
};
export const FINANCE_SCOPE = 'Финансы';
/** seller-analytics-api (the paid-storage and acceptance reports) answers tokens with this category (bit 2). */
export const ANALYTICS_SCOPE = 'Аналитика';
export const READ_ONLY_BIT = 30;

/** acc: 1 Базовый, 2 Тестовый, 3 Персональный, 4 Сервисный. */
export const TOKEN_TYPES: Readonly<Record<number, string>> = {
  1: 'Базовый',
  2: 'Тестовый',
  3: 'Персональный',
  4: 'Сервисный',
};

export interface WbTokenInfo {
  /** Expiry, seconds since the epoch (the `exp` claim). */
  exp: number;
  /** Category names, in bit order; an unknown set bit shows as «бит N». */
  scopes: string[];
  readOnly: boolean;
  /** The `oid` claim as text, when present. */
  sellerId: string | null;
  /** The `sid` claim (the seller's UUID), when present. */
  sellerUuid: string | null;
  /** Token type by `acc`, when present. */
  tokenType: string | null;
  test: boolean;
}

export type TokenProblem = 'malformed' | 'no_expiry';

export class WbTokenError extends Error {
  constructor(
    readonly problem: TokenProblem,
    message: string,
  ) {
    super(message);
    this.name = 'WbTokenError';
  }
}

function base64UrlJson(part: string): unknown {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(part)) throw new WbTokenError('malformed', 'Токен не похож на токен WB API');
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new WbTokenError('malformed', 'Токен не похож на токен WB API');
  }
}

/** Decodes the claims (no signature check: see above). Throws WbTokenError on a token that is not a JWT. */
export function decodeWbToken(token: string): WbTokenInfo {
  const parts = token.trim().split('.');
  if (parts.length !== 3 || parts.some((p) => p === '')) {
    throw new WbTokenError('malformed', 'Токен не похож на токен WB API');
  }
  const claims = base64UrlJson(parts[1]!);
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new WbTokenError('malformed', 'Токен не похож на токен WB API');
  }
  const c = claims as Record<string, unknown>;
  if (typeof c.exp !== 'number' || !Number.isFinite(c.exp)) {
    throw new WbTokenError('no_expiry', 'В токене нет срока действия');
  }
  const mask = typeof c.s === 'number' && Number.isInteger(c.s) && c.s >= 0 ? c.s : 0;
  const scopes: string[] = [];
  for (let bit = 1; bit < 31; bit++) {
    if (bit === READ_ONLY_BIT) continue;
    if (Math.floor(mask / 2 ** bit) % 2 === 1) scopes.push(SCOPE_BITS[bit] ?? `бит ${bit}`);
  }
  const oid = c.oid;
  return {
    exp: c.exp,
    scopes,
    readOnly: Math.floor(mask / 2 ** READ_ONLY_BIT) % 2 === 1,
    sellerId: typeof oid === 'number' || (typeof oid === 'string' && oid !== '') ? String(oid) : null,
    sellerUuid: typeof c.sid === 'string' && c.sid !== '' ? c.sid : null,
    tokenType: typeof c.acc === 'number' ? (TOKEN_TYPES[c.acc] ?? null) : null,
    test: c.t === true,
  };
}

/** Bitmask of the given categories (the `s` claim), e.g. for the emulator's tokens. */
export function scopeMask(scopes: readonly string[], readOnly = false): number {
  let mask = readOnly ? 2 ** READ_ONLY_BIT : 0;
  for (const name of scopes) {
    const bit = Object.entries(SCOPE_BITS).find(([, n]) => n === name)?.[0];
    if (bit === undefined) throw new Error(`unknown WB token category: ${name}`);
    mask += 2 ** Number(bit);
  }
  return mask;
}

/** Seconds left before expiry at `nowMs` (negative when expired). */
export function secondsLeft(info: Pick<WbTokenInfo, 'exp'>, nowMs: number): number {
  return Math.floor(info.exp - nowMs / 1000);
}

export function hasFinanceScope(info: Pick<WbTokenInfo, 'scopes'>): boolean {
  return info.scopes.includes(FINANCE_SCOPE);
}

/** Whether the paid-storage and acceptance reports (report-task.ts) may be asked for with this token. */
export function hasAnalyticsScope(info: Pick<WbTokenInfo, 'scopes'>): boolean {
  return info.scopes.includes(ANALYTICS_SCOPE);
}

/** What may be shown of a stored token: its last 4 characters («…AbC1»). */
export function tokenHint(token: string): string {
  const t = token.trim();
  return t.length <= 4 ? '…' : `…${t.slice(-4)}`;
}

/** WB tokens live 180 days; the seller is mailed this many days before the expiry. */
export const EXPIRY_NOTICE_DAYS = 7;

/** When the expiry notice of a token expiring at `expiresAt` (ISO) is due, epoch ms; null once it is sent. */
export function expiryNoticeAt(c: { expires_at: string; expiry_mail_sent_at?: string | null }): number | null {
  if (c.expiry_mail_sent_at) return null;
  return Date.parse(c.expires_at) - EXPIRY_NOTICE_DAYS * 86_400_000;
}
