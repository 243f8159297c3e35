/**
 * The pure rules of the notifications (docs/NOTIFICATIONS.md): when a held message may go (quiet hours,
 * Moscow time), how long a failed delivery waits (exponential backoff), when a week's profit is a drop,
 * when limits are low, and which Monday's digest an event belongs to. Nothing here reads a clock: every
 * rule takes the moment it judges.
 */

/** Moscow keeps UTC+3 all year (no daylight saving since 2014). */
export const MSK_OFFSET_MS = 3 * 3_600_000;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

export interface QuietHours {
  /** 'HH:MM', Moscow time. */
  from: string;
  to: string;
}

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/**
 * When the quiet hours that `nowMs` falls in end (epoch ms), or null when `nowMs` is outside them (or
 * there are none). The hours may cross midnight (23:00–08:00); from = to means none.
 */
export function quietUntil(q: QuietHours | null, nowMs: number): number | null {
  if (!q) return null;
  const from = minutesOf(q.from);
  const to = minutesOf(q.to);
  if (from === to) return null;
  const local = nowMs + MSK_OFFSET_MS;
  const dayStart = Math.floor(local / DAY_MS) * DAY_MS;
  const minute = Math.floor((local - dayStart) / 60_000);
  const inside = from < to ? minute >= from && minute < to : minute >= from || minute < to;
  if (!inside) return null;
  // The end is today at `to`, or tomorrow when the hours crossed midnight and we are before it.
  const endLocal = dayStart + to * 60_000 + (from > to && minute >= from ? DAY_MS : 0);
  return endLocal - MSK_OFFSET_MS;
}

/** The first retry waits 1 min, then doubling, at most 6 h; a channel's own `retryAfterMs` wins when longer. */
export const BACKOFF_BASE_MS = 60_000;
export const BACKOFF_MAX_MS = 6 * 3_600_000;
/** After this many failed attempts a delivery is given up (about two days of tries). */
export const MAX_ATTEMPTS = 12;

export function backoffMs(attempt: number, retryAfterMs?: number): number {
  const exp = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.max(exp, retryAfterMs ?? 0);
}

/**
 * A week's profit fell by more than `thresholdPercent` against the average of the previous weeks (up
 * to four, at least two known): the drop in percent (positive), or null when it is not a drop. An average
 * of zero or less has nothing to fall from.
 */
export function profitDrop(profit: number, previous: readonly number[], thresholdPercent: number): number | null {
  const prev = previous.slice(0, 4);
  if (prev.length < 2) return null;
  const avg = prev.reduce((a, b) => a + b, 0) / prev.length;
  if (avg <= 0) return null;
  const drop = ((avg - profit) / avg) * 100;
  return drop > thresholdPercent ? Math.round(drop * 10) / 10 : null;
}

/**
 * Limits are low when what remains is less than the average rows a week charged over the last four
 * weeks (`weeklyRows`, newest first; weeks without a charge count as 0). Nothing charged: never low.
 */
export function limitsLow(remaining: number, weeklyRows: readonly number[]): { average: number } | null {
  const weeks = weeklyRows.slice(0, 4);
  if (weeks.length === 0) return null;
  const average = Math.round(weeks.reduce((a, b) => a + b, 0) / 4);
  return average > 0 && remaining < average ? { average } : null;
}

/** The digest goes on Monday at 07:00 UTC (10:00 Moscow), after WB's weekly reports. */
export const DIGEST_HOUR_UTC = 7;

/** The Monday 07:00 UTC at or before `ms` (the last digest run). */
export function lastDigestRun(ms: number): number {
  const d = new Date(ms);
  const daysSinceMonday = (d.getUTCDay() + 6) % 7;
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - daysSinceMonday, DIGEST_HOUR_UTC);
  return monday <= ms ? monday : monday - WEEK_MS;
}

/** The digest run that will tell of something happening at `ms`: the next Monday 07:00 UTC after it. */
export const nextDigestRun = (ms: number): number => lastDigestRun(ms) + WEEK_MS;

/** ISO 8601 week of a moment (UTC), `YYYY-Www`: a digest's key names the week its run falls in. */
export function isoWeek(ms: number): string {
  const d = new Date(ms);
  const day = (d.getUTCDay() + 6) % 7; // Monday 0
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day + 3);
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / WEEK_MS) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}
