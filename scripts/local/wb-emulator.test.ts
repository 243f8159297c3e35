/**
 * The WB emulator on a free port, driven by the real Finance API client: tokens, WB's rate limit, paging
 * by rrdId, and a whole sync by shared/marketplaces/wb/finance/sync-plan.ts on an injected clock (no real minutes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildItems } from '../../shared/engine/build';
import { computeTotals } from '../../shared/engine/totals';
import { DEFAULT_TAX_PROFILE } from '../../shared/engine/types';
import { createFinanceClient, type WbOutcome } from '../../shared/marketplaces/wb/finance/finance-client';
import { kopecksToMoney, moneyToKopecks } from '../../shared/marketplaces/wb/money';
import { aggregateApiRows } from '../../shared/marketplaces/wb/finance/row-map';
import { storedRows } from '../../shared/marketplaces/wb/finance/page-body';
import type { ReportSummary, WbDetailedRow } from '../../shared/marketplaces/wb/finance/schemas';
import {
  advance,
  claim,
  DEFAULT_SYNC_SETTINGS,
  initialCursor,
  planCall,
  type SyncSettings,
} from '../../shared/marketplaces/wb/finance/sync-plan';
import { startWbEmulator, type WbEmulator, type WbFault } from './wb-emulator';
import { createBalanceClient, type BalanceReading } from '../../shared/marketplaces/wb/balance/client';
import {
  createAdvertClient,
  fullstatsToCosts,
  type Fullstats,
  type PromotionCount,
} from '../../shared/marketplaces/wb/sources/advert-client';
import { campaignsFor } from '../../shared/marketplaces/wb/sources/advert-source';
import { sumByNm } from '../../shared/marketplaces/wb/sources/costs';
import { CAMPAIGN_A, CAMPAIGN_B, EXTRA_NM } from './wb/promotion';

const MINUTE = 60_000;
let clock = Date.parse('2026-02-02T09:00:00Z');
let emu: WbEmulator;

beforeAll(async () => {
  emu = await startWbEmulator({
    port: 0,
    now: () => clock,
    weeks: 3,
    rowsPerWeek: 600,
    seed: 5,
    firstMonday: '2026-01-05',
  });
});
afterAll(() => emu.close());

const client = (token = emu.tokens.valid) => createFinanceClient({ baseUrl: emu.url, token });
const list = (token?: string) => client(token).listReports({ dateFrom: '2026-01-01', dateTo: '2026-02-01' });

describe('WB emulator', () => {
  it('issues WB-shaped tokens: unknown → 401, expired → 401, without «Финансы» → 403', async () => {
    expect(await list(emu.tokens.invalid)).toMatchObject({
      kind: 'unauthorized',
      message: 'token is malformed or invalid',
    });
    expect(await list(emu.tokens.expired)).toMatchObject({ kind: 'unauthorized', message: 'token expired' });
    expect(await list(emu.tokens.noFinance)).toMatchObject({ kind: 'forbidden', message: 'scope is not allowed' });
  });

  it('lists the weeks with their sums, answers 429 to an early call, and pages a week by rrdId', async () => {
    clock += MINUTE;
    const r = await list();
    expect(r.kind).toBe('ok');
    const items = (r as Extract<WbOutcome<ReportSummary[]>, { kind: 'ok' }>).value;
    expect(items.map((i) => [i.reportId, i.dateFrom, i.dateTo])).toEqual(
      emu.weeks.map((w) => [w.item.reportId, w.item.dateFrom, w.item.dateTo]),
    );
    expect(items[0]!.bankPaymentSum).toBe(moneyToKopecks(emu.weeks[0]!.item.bankPaymentSum));

    clock += MINUTE - 1;
    const early = await client().detailedPage(items[1]!.reportId, { rrdId: 0 });
    expect(early).toEqual({ kind: 'rate_limited', retryAfterSeconds: 1, limit: 1, remaining: 0, resetSeconds: 1 });

    const week = emu.weeks[1]!;
    const got: WbDetailedRow[] = [];
    let rrdId = 0;
    let pages = 0;
    for (;;) {
      clock += MINUTE;
      const page = await client().detailedPage(week.item.reportId, { rrdId, limit: 250 });
      if (page.kind === 'empty') break;
      if (page.kind !== 'ok') throw new Error(page.kind);
      pages++;
      expect(page.value.rows).toBeLessThanOrEqual(250);
      const rows = await storedRows(page.value.body);
      expect(rows).toHaveLength(page.value.rows);
      expect(page.value.lastRrdId).toBe(rows.at(-1)!.rrdId);
      got.push(...rows);
      rrdId = page.value.lastRrdId!;
    }
    expect(pages).toBe(Math.ceil(week.rows.length / 250));
    expect(got).toEqual(week.rows);
    // The week's rows through the engine give WB's «Итого к оплате» of the list.
    const totals = computeTotals(
      buildItems(aggregateApiRows([got]), { tax: DEFAULT_TAX_PROFILE, costPrices: {} }).items.map((i) => i.effective),
    );
    expect(totals.payout).toBe(items[1]!.bankPaymentSum);
  });

  it('answers 204 past the last row and for a period without reports; 404 for an unknown report; 400 for a bad limit', async () => {
    clock += MINUTE;
    const last = emu.weeks[0]!.rows.at(-1)!.rrdId!;
    expect(await client().detailedPage(emu.weeks[0]!.item.reportId, { rrdId: last })).toEqual({ kind: 'empty' });
    clock += MINUTE;
    expect(await client().listReports({ dateFrom: '2025-03-01', dateTo: '2025-03-31' })).toEqual({ kind: 'empty' });
    clock += MINUTE;
    expect((await client().detailedPage(123, { rrdId: 0 })).kind).toBe('not_found');
    clock += MINUTE;
    const res = await fetch(`${emu.url}/api/finance/v1/sales-reports/list`, {
      method: 'POST',
      headers: { Authorization: emu.tokens.valid },
      body: JSON.stringify({ dateFrom: '2026-01-01', dateTo: '2026-02-01', limit: 5000 }),
    });
    expect(res.status).toBe(400);
  });

  it('a whole sync by the plan: every call on time (no 429), every week read, a changed list total is told apart', async () => {
    const settings: SyncSettings = { ...DEFAULT_SYNC_SETTINGS, pageLimit: 200 };
    clock += MINUTE;
    const calledBefore = emu.calls.length;
    const changed = emu.weeks[2]!.item.reportId;
    const original = moneyToKopecks(emu.weeks[2]!.item.bankPaymentSum);
    emu.setListSum(changed, 'bankPaymentSum', original + 1234);
    expect(emu.weeks[2]!.item.bankPaymentSum).toBe(kopecksToMoney(original + 1234));

    let cursor = initialCursor(clock, '2026-01-01');
    const summaries = new Map<number, ReportSummary>();
    const rows = new Map<number, WbDetailedRow[]>();
    const complete: number[] = [];
    const c = client();
    for (let steps = 0; steps < 100 && cursor.phase !== 'idle'; steps++) {
      const plan = planCall(cursor, clock, settings);
      if (plan.kind === 'wait') {
        clock = plan.until;
        continue;
      }
      if (plan.kind !== 'call') throw new Error(plan.kind);
      const claimed = claim(cursor, clock, settings);
      const call = plan.call;
      const outcome =
        call.kind === 'list' ? await c.listReports(call.query) : await c.detailedPage(call.reportId, call.query);
      const next = advance(claimed, call, outcome, clock, settings);
      for (const e of next.effects) {
        if (e.kind === 'reports-found') for (const r of e.reports) summaries.set(r.reportId, r);
        if (e.kind === 'rows')
          rows.set(e.reportId, [...(rows.get(e.reportId) ?? []), ...(await storedRows(e.page.body))]);
        if (e.kind === 'report-complete') complete.push(e.reportId);
      }
      cursor = next.cursor;
    }
    expect(cursor.phase).toBe('idle');
    expect(emu.calls.slice(calledBefore).filter((x) => x.status === 429)).toEqual([]);
    expect(complete).toEqual(emu.weeks.map((w) => w.item.reportId));
    const differences = emu.weeks.map((w) => {
      const got = rows.get(w.item.reportId)!;
      expect(got).toEqual(w.rows);
      const items = buildItems(aggregateApiRows([got]), { tax: DEFAULT_TAX_PROFILE, costPrices: {} }).items;
      return summaries.get(w.item.reportId)!.bankPaymentSum - computeTotals(items.map((i) => i.effective)).payout!;
    });
    expect(differences).toEqual([0, 0, 1234]);
  });
});

describe('WB emulator: the promotion API', () => {
  const advert = (token = emu.tokens.promotion) => createAdvertClient({ baseUrl: emu.url, token });

  it('needs «Продвижение»: a Finance-only token → 403; an unknown one → 401', async () => {
    expect((await advert(emu.tokens.valid).promotionCount()).kind).toBe('forbidden');
    expect((await advert(emu.tokens.invalid).promotionCount()).kind).toBe('unauthorized');
  });

  it('the campaigns’ spend explains 90 % of each week’s «Продвижение» deductions, 5 % of it on a card without rows', async () => {
    clock += 10 * MINUTE;
    const count = await advert().promotionCount();
    expect(count.kind).toBe('ok');
    const ids = campaignsFor((count as { value: PromotionCount }).value, '2026-01-05');
    expect(ids).toEqual([CAMPAIGN_A, CAMPAIGN_B]);
    for (const w of emu.promotion.weeks) {
      clock += MINUTE;
      const r = await advert().fullstats(ids, w.dateFrom, w.dateTo);
      expect(r.kind).toBe('ok');
      const { costs, revenue } = fullstatsToCosts((r as { value: Fullstats }).value, w.dateFrom, w.dateTo);
      const byNm = sumByNm(costs);
      const total = [...byNm.values()].reduce((s, k) => s + k, 0);
      expect(w.deductions).toBeGreaterThan(0);
      expect(Math.abs(total - Math.floor(w.deductions * 0.9))).toBeLessThanOrEqual(4);
      expect(byNm.get(EXTRA_NM)).toBe(Math.floor(w.deductions * 0.05));
      // The extra card has no row in the week; the three others sold.
      const nms = new Set(emu.weeks.find((x) => x.item.reportId === w.reportId)!.rows.map((row) => Number(row.nmId)));
      expect(nms.has(EXTRA_NM)).toBe(false);
      expect(w.spend.slice(0, 3).every((s) => nms.has(s.nmId))).toBe(true);
      expect(sumByNm(revenue).get(w.spend[0]!.nmId)).toBe(w.spend[0]!.kopecks * 4);
    }
  });

  it('fullstats: one call per interval (429 with X-Ratelimit-Retry), ≤ 50 ids and ≤ 31 days; upd lists the charges', async () => {
    clock += MINUTE;
    expect((await advert().fullstats([CAMPAIGN_A], '2026-01-05', '2026-01-11')).kind).toBe('ok');
    const early = await advert().fullstats([CAMPAIGN_A], '2026-01-05', '2026-01-11');
    expect(early).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 20 });
    clock += MINUTE;
    const res = await fetch(`${emu.url}/adv/v3/fullstats?ids=1&beginDate=2026-01-01&endDate=2026-03-01`, {
      headers: { Authorization: emu.tokens.promotion },
    });
    expect(res.status).toBe(400);
    const upd = await advert().upd('2026-01-05', '2026-01-11');
    expect(upd.kind).toBe('ok');
    const charged = (upd as { value: Array<{ updSum: number }> }).value.reduce((s, c) => s + c.updSum, 0);
    const week = emu.promotion.weeks[0]!;
    expect(charged).toBe(week.spend.reduce((s, c) => s + c.kopecks, 0));
    clock += MINUTE;
    const adverts = await advert().adverts([CAMPAIGN_B]);
    expect(adverts).toMatchObject({ kind: 'ok', value: { adverts: [{ id: CAMPAIGN_B, status: 11 }] } });
  });
});

describe('WB emulator with a real short interval', () => {
  let fast: WbEmulator;
  beforeAll(async () => {
    fast = await startWbEmulator({
      port: 0,
      intervalMs: 200,
      weeks: 1,
      rowsPerWeek: 50,
      seed: 2,
      firstMonday: '2026-01-05',
    });
  });
  afterAll(() => fast.close());

  it('429 carries X-Ratelimit-* headers; waiting X-Ratelimit-Retry is enough', async () => {
    const post = () =>
      fetch(`${fast.url}/api/finance/v1/sales-reports/list`, {
        method: 'POST',
        headers: { Authorization: fast.tokens.valid, 'Content-Type': 'application/json' },
        body: JSON.stringify({ dateFrom: '2026-01-01', dateTo: '2026-01-31' }),
      });
    expect((await post()).status).toBe(200);
    const limited = await post();
    expect(limited.status).toBe(429);
    const retry = Number(limited.headers.get('X-Ratelimit-Retry'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(0.2);
    expect(limited.headers.get('X-Ratelimit-Limit')).toBe('1');
    expect(limited.headers.get('X-Ratelimit-Remaining')).toBe('0');
    expect(Number(limited.headers.get('X-Ratelimit-Reset'))).toBe(retry);
    await new Promise((r) => setTimeout(r, retry * 1000 + 5));
    expect((await post()).status).toBe(200);
  });
});

describe('WB emulator: the balance (GET /api/v1/account/balance)', () => {
  let b: WbEmulator;
  let at = Date.parse('2026-01-18T09:00:00Z');
  beforeAll(async () => {
    b = await startWbEmulator({
      port: 0,
      now: () => at,
      weeks: 2,
      rowsPerWeek: 400,
      seed: 9,
      firstMonday: '2026-01-05',
    });
  });
  afterAll(() => b.close());
  const balance = (token = b.tokens.valid) => createBalanceClient({ baseUrl: b.url, token }).getBalance();
  const next = () => {
    at += MINUTE;
  };

  it('moves as the weeks are paid: on «current» once formed, on «for_withdraw» from its payout day', async () => {
    const [w1, w2] = b.weeks.map((w) => moneyToKopecks(w.item.bankPaymentSum)) as [number, number];
    // 18 January: week 1 (5–11 Jan) formed on the 12th, approved and paid on the 19th (7 days before 2026-03-20).
    const r0 = await balance();
    expect(r0.kind).toBe('ok');
    const v0 = (r0 as Extract<WbOutcome<BalanceReading>, { kind: 'ok' }>).value;
    expect(v0.current - v0.for_withdraw).toBe(w1);
    at = Date.parse('2026-01-19T09:00:00Z');
    const v1 = (await balance()) as Extract<WbOutcome<BalanceReading>, { kind: 'ok' }>;
    expect(v1.value.for_withdraw - v0.for_withdraw).toBe(w1);
    // Week 2 formed on the 19th: on the balance, not withdrawable yet.
    expect(v1.value.current - v1.value.for_withdraw).toBe(w2);
    expect(b.balanceOf()).toEqual({ current: v1.value.current, for_withdraw: v1.value.for_withdraw });
    // The seller withdraws: «Можно вывести» goes down by it.
    next();
    b.withdraw(1000_00);
    expect(await balance()).toMatchObject({ kind: 'ok', value: { for_withdraw: v1.value.for_withdraw - 1000_00 } });
  });

  it('per token: another WB account’s token answers its own balance; a token without «Финансы» → 403', async () => {
    next();
    const other = b.issue({ oid: 777 });
    const mine = b.balanceOf();
    const theirs = await balance(other);
    expect(theirs.kind).toBe('ok');
    expect((theirs as Extract<WbOutcome<BalanceReading>, { kind: 'ok' }>).value.for_withdraw).not.toBe(
      mine.for_withdraw,
    );
    expect(await balance(b.tokens.noFinance)).toMatchObject({ kind: 'forbidden' });
    b.setBalance({ current: 5_00, for_withdraw: 3_00 }, 777);
    next();
    expect(await balance(other)).toEqual({ kind: 'ok', value: { currency: 'RUB', current: 5_00, for_withdraw: 3_00 } });
  });

  it('one budget with the report calls: a balance within WB’s minute of a list → 429 with X-Ratelimit-Retry', async () => {
    next();
    const list = await createFinanceClient({ baseUrl: b.url, token: b.tokens.valid }).listReports({
      dateFrom: '2026-01-01',
      dateTo: '2026-01-31',
    });
    expect(list.kind).toBe('ok');
    at += 20_000;
    expect(await balance()).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 40 });
  });

  it('faults on demand: scope 401, 429, 5xx, a garbage body, a redirect; the reports untouched by `only: balance`', async () => {
    const faults: Array<[WbFault, unknown]> = [
      [
        { kind: 'scope', status: 401, only: 'balance' },
        { kind: 'unauthorized', message: 'token scope not allowed for this method' },
      ],
      [
        { kind: 'rate', retry: '120', only: 'balance' },
        { kind: 'rate_limited', retryAfterSeconds: 120 },
      ],
      [
        { kind: 'status', status: 503, only: 'balance' },
        { kind: 'server_error', status: 503 },
      ],
      [
        { kind: 'body', body: '<html>502</html>', contentType: 'text/html', only: 'balance' },
        { kind: 'invalid_response', message: 'the answer is not JSON' },
      ],
      [
        { kind: 'body', body: '{"currency":"RUB","current":1,"for_withdraw":-5}', only: 'balance' },
        { kind: 'invalid_response' },
      ],
      [
        { kind: 'redirect', to: 'http://elsewhere.example', only: 'balance' },
        { kind: 'server_error', status: 307 },
      ],
    ];
    for (const [fault, outcome] of faults) {
      next();
      b.setFault(fault);
      expect(await balance()).toMatchObject(outcome as object);
    }
    // The report calls are not faulted by a balance fault.
    next();
    expect(
      (
        await createFinanceClient({ baseUrl: b.url, token: b.tokens.valid }).listReports({
          dateFrom: '2026-01-01',
          dateTo: '2026-01-31',
        })
      ).kind,
    ).toBe('ok');
    b.setFault(null);
  });
});
