/**
 * WB's account balance (docs/WB-API.md «Balance»): `GET /api/v1/account/balance` on the finance host →
 * `{currency, current, for_withdraw}` in roubles, category «Финансы», one request a minute per seller
 * account (the same budget as the report calls: the sync plans it with them, balance-plan.ts).
 *
 * One request, one typed outcome, over http.ts `wbExchange` (timeouts, redirects not followed, 401/403/429/
 * 5xx mapped). The answer is treated as hostile: the body is read to at most `MAX_BALANCE_BODY_BYTES`
 * (a balance is a few dozen bytes), must be JSON of WB's shape (an object, or a list of one per currency as
 * some public clients see it), and its numbers finite, in range and in roubles.
 */
import { z } from 'zod';
import { readJson, wbExchange } from '../http';
import { moneyToKopecks } from '../money';
import type { FetchLike, WbOutcome } from '../wb-types';

export const BALANCE_PATH = '/api/v1/account/balance';
/** A balance answer is tiny; anything longer is not WB's balance. */
export const MAX_BALANCE_BODY_BYTES = 16 * 1024;
/** The largest amount believed, roubles (100 bn): beyond it the answer is refused as absurd. */
export const MAX_BALANCE_ROUBLES = 100_000_000_000;

export interface BalanceReading {
  currency: string;
  /** Kopecks: «На балансе». May be negative (a debt to WB). */
  current: number;
  /** Kopecks: «Можно вывести», never negative. */
  for_withdraw: number;
}

export interface BalanceClient {
  getBalance(): Promise<WbOutcome<BalanceReading>>;
}

export interface BalanceClientOptions {
  baseUrl: string;
  token: string;
  fetch?: FetchLike;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

const amount = z.union([z.number(), z.string().max(32)]).transform((v, ctx) => {
  try {
    const kopecks = moneyToKopecks(v);
    if (Math.abs(kopecks) > MAX_BALANCE_ROUBLES * 100) throw new Error('out of range');
    return kopecks;
  } catch {
    ctx.addIssue({ code: 'custom', message: `not an amount of roubles: ${JSON.stringify(v).slice(0, 40)}` });
    return z.NEVER;
  }
});

const entry = z.object({
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'a currency code of three letters')
    .transform((c) => c.toUpperCase()),
  current: amount,
  for_withdraw: amount.refine((k) => k >= 0, 'for_withdraw is negative'),
});

/** WB's body → the rouble reading, or why not. */
export function parseBalance(json: unknown): { ok: true; value: BalanceReading } | { ok: false; message: string } {
  const list = Array.isArray(json) ? json : [json];
  if (list.length === 0 || list.length > 10) return { ok: false, message: 'not one balance' };
  const parsed = z.array(entry).safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).filter((p) => typeof p !== 'number').join('.');
    return { ok: false, message: `${path || 'body'}: ${issue?.message ?? 'unexpected shape'}` };
  }
  const rub = parsed.data.find((e) => e.currency === 'RUB');
  if (!rub) return { ok: false, message: `currency ${parsed.data[0]!.currency} is not roubles` };
  return { ok: true, value: rub };
}

export function createBalanceClient(opts: BalanceClientOptions): BalanceClient {
  return {
    getBalance: () =>
      wbExchange<BalanceReading>(
        opts,
        'GET',
        BALANCE_PATH,
        undefined,
        readJson((json) => {
          const parsed = parseBalance(json);
          return parsed.ok
            ? { kind: 'ok', value: parsed.value }
            : { kind: 'invalid_response', message: parsed.message };
        }, MAX_BALANCE_BODY_BYTES),
      ),
  };
}
