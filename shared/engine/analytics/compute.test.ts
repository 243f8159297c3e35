import { describe, expect, it } from 'vitest';
import {
  abcLetters,
  missingWeeksWarning,
  addDays,
  changes,
  computeAnalytics,
  defaultRange,
  marginGroupOf,
  previousRange,
  selectReports,
  weekStart,
  weeksOf,
  withMargin,
  type ReportFigures,
  type ReportInfo,
} from './compute';
import { reportIdentity } from './report-identity';
import { decodeArticles, emptyWeekFigures, encodeChunks, summarizeItems, type ArticleFigures } from './summary';

const info = (id: string, from: string, extra: Partial<ReportInfo> = {}): ReportInfo => ({
  id,
  title: `r-${id}`,
  status: 'ready',
  is_combined: false,
  seller_id: null,
  period_from: from,
  period_to: addDays(from, 6),
  created_at: `2026-01-01T00:00:${id.padStart(2, '0')}Z`,
  identity: `i-${id}`,
  stale: false,
  ...extra,
});

const art = (article: string, realization: number, profit: number, sales = 1, returns = 0): ArticleFigures => ({
  article,
  realization,
  profit,
  sales_qty: sales,
  returns_qty: returns,
  cost_price: 0,
});

function figures(articles: ArticleFigures[]): ReportFigures {
  const totals = emptyWeekFigures();
  for (const a of articles) {
    totals.realization += a.realization;
    totals.profit += a.profit;
    totals.sales_qty += a.sales_qty;
    totals.returns_qty += a.returns_qty;
    totals.for_pay += a.realization - 100;
    totals.payout += a.realization - 200;
    totals.expenses += a.realization - a.profit;
  }
  return { totals, articles };
}

describe('dates', () => {
  it('weeks start on Monday and ranges enumerate every week they touch', () => {
    expect(weekStart('2026-05-18')).toBe('2026-05-18'); // a Monday
    expect(weekStart('2026-05-24')).toBe('2026-05-18'); // Sunday
    expect(weekStart('2026-05-25')).toBe('2026-05-25');
    expect(weeksOf('2026-05-20', '2026-06-01')).toEqual(['2026-05-18', '2026-05-25', '2026-06-01']);
    expect(previousRange('2026-05-18', '2026-05-31')).toEqual({ from: '2026-05-04', to: '2026-05-17' });
  });
});

describe('ABC', () => {
  it('ranks by value, ties by article, A below 80 % of the positive total above it, B below 95 %', () => {
    // positive total 100: shares above → x:0 (A), y:50 (A), z:79 (A), w:80 (B), v:94 (B), u:95 (C); zero and negative C
    const m = abcLetters(
      new Map([
        ['y', 29],
        ['x', 50],
        ['z', 1],
        ['w', 14],
        ['v', 1],
        ['u', 5],
        ['t', 0],
        ['s', -7],
        ['', 1000],
      ]),
    );
    // order: x 50, y 29, u 5? no: values desc → x50 y29 w14 u5 v1 z1 (v<z by name) t0 s-7
    // above: x0 A, y50 A, w79 A, u93 B, v98 C, z99 C
    expect(Object.fromEntries(m)).toEqual({ x: 'A', y: 'A', w: 'A', u: 'B', v: 'C', z: 'C', t: 'C', s: 'C' });
    expect(m.has('')).toBe(false);
  });

  it('the top article is always A, even alone with all of the total', () => {
    expect(Object.fromEntries(abcLetters(new Map([['only', 5]])))).toEqual({ only: 'A' });
    expect(
      Object.fromEntries(
        abcLetters(
          new Map([
            ['a', 80],
            ['b', 15],
            ['c', 5],
          ]),
        ),
      ),
    ).toEqual({ a: 'A', b: 'B', c: 'C' });
  });
});

describe('margin groups and changes', () => {
  it('groups by margin with 20 % and 0 as the borders', () => {
    expect(marginGroupOf(20, 1)).toBe('high');
    expect(marginGroupOf(19.99, 1)).toBe('low');
    expect(marginGroupOf(0, 0)).toBe('low');
    expect(marginGroupOf(-0.01, -1)).toBe('loss');
    expect(marginGroupOf(null, -5)).toBe('loss');
    expect(marginGroupOf(null, 0)).toBe('low');
  });

  it('changes in % against the previous range; null when it was 0; margin in points', () => {
    const cur = withMargin({ ...emptyWeekFigures(), realization: 15000, profit: 3000, sales_qty: 3 });
    const prev = withMargin({ ...emptyWeekFigures(), realization: 10000, profit: -1000, sales_qty: 0 });
    const c = changes(cur, prev);
    expect(c.realization).toBe(50);
    expect(c.profit).toBe(400); // (3000 − (−1000)) / 1000
    expect(c.sales_qty).toBeNull();
    expect(c.margin).toBe(30); // 20 − (−10)
  });
});

const base = { seller_id: null, report_number: null, period_from: null, period_to: null };

describe('selection', () => {
  it('leaves out combined and unfinished reports and keeps the newest of an identity', () => {
    const old = info('1', '2026-05-18', { identity: 'same' });
    const neu = info('2', '2026-05-18', { identity: 'same' });
    const sel = selectReports([
      old,
      neu,
      info('3', '2026-05-25', { is_combined: true }),
      info('4', '2026-05-25', { status: 'processing' }),
    ]);
    expect(sel.counted.map((r) => r.id)).toEqual(['2']);
    expect(sel.duplicates).toEqual([{ report: old, kept: neu }]);
    expect(sel.processing.map((r) => r.id)).toEqual(['4']);
  });

  it('counts the same rows once: one week as xlsx and xls is one identity, a daily report inside a week is left out', () => {
    const days = { '2026-05-18': '5:01', '2026-05-19': '4:02' };
    const xlsx = info('1', '2026-05-18', {
      identity: reportIdentity({ ...base, id: '1', content_fingerprint: 'r1:9:aa' }, null),
      days,
    });
    const xls = info('2', '2026-05-18', {
      identity: reportIdentity({ ...base, id: '2', content_fingerprint: 'r1:9:aa' }, null),
      days,
    });
    const daily = info('3', '2026-05-18', { period_to: '2026-05-18', days: { '2026-05-18': '5:01' } });
    const other = info('4', '2026-05-18', { days: { '2026-05-18': '5:77' } });
    const sel = selectReports([xlsx, daily, xls, other]);
    expect(sel.counted.map((r) => r.id).sort()).toEqual(['2', '4']);
    expect(sel.duplicates).toEqual([
      { report: xlsx, kept: xls },
      { report: daily, kept: xls, inside: true },
    ]);
  });

  it('the default range is the last 12 weeks that have reports', () => {
    const reports = Array.from({ length: 14 }, (_, i) => info(String(i + 1), addDays('2026-01-05', 14 * i)));
    expect(defaultRange(reports)).toEqual({
      from: addDays('2026-01-05', 14 * 2),
      to: addDays('2026-01-05', 14 * 13 + 6),
    });
    expect(defaultRange([])).toBeNull();
    // An old report a year and more before the newest does not stretch the range.
    expect(defaultRange([info('1', '2022-10-24'), info('2', '2026-05-18'), info('3', '2026-05-25')])).toEqual({
      from: '2026-05-18',
      to: '2026-05-31',
    });
  });

  it('identity: the record own one, else seller and number, else period and content', () => {
    const base = { id: 'R', seller_id: 'S', report_number: '77', period_from: 'a', period_to: 'b' };
    expect(reportIdentity({ ...base, identity: 'x' }, 'h')).toBe('id:x');
    expect(reportIdentity(base, 'h')).toBe('num:S:77');
    expect(reportIdentity({ ...base, report_number: null }, 'h')).toBe('period:a:b:h');
  });
});

describe('computeAnalytics', () => {
  it('weeks, totals, previous range, articles, groups and warnings', () => {
    const w = ['2026-05-04', '2026-05-11', '2026-05-18', '2026-05-25'];
    const reports = [
      info('1', w[0]!), // previous range
      info('2', w[2]!),
      info('3', w[2]!, { identity: 'i-2', created_at: '2025-12-31T00:00:00Z', title: 'старый' }), // older copy of 2
      info('4', w[3]!, { stale: true }),
      info('5', w[3]!, { is_combined: true }),
      info('6', w[3]!, { status: 'processing', period_from: null, period_to: null }),
    ];
    const figs = new Map<string, ReportFigures>([
      ['1', figures([art('A', 10000, 1000)])],
      ['2', figures([art('A', 20000, 5000), art('B', 1000, -500), art('', 0, -300)])],
      ['3', figures([art('A', 999999, 1)])],
      ['4', figures([art('A', 10000, 1000, 2, 1), art('C', 3000, 300)])],
      ['5', figures([art('A', 1, 1)])],
    ]);
    const r = computeAnalytics({ from: w[1]!, to: addDays(w[3]!, 6), reports, figures: figs, article: 'A' });
    expect(r.weeks.map((x) => [x.period_from, x.report_ids])).toEqual([
      [w[1], []],
      [w[2], ['2']],
      [w[3], ['4']],
    ]);
    expect(r.totals.realization).toBe(20000 + 1000 + 10000 + 3000);
    expect(r.totals.profit).toBe(5000 - 500 - 300 + 1000 + 300);
    expect(r.totals.margin).toBe(16.18); // 5500 / 34000 = 16.176…
    expect(r.previous_range).toEqual({ from: '2026-04-20', to: '2026-05-10' });
    expect(r.previous.realization).toBe(10000);
    expect(r.previous.change.realization).toBe(240);
    const byArticle = Object.fromEntries(r.articles.map((a) => [a.article, a]));
    expect(byArticle.A).toMatchObject({ realization: 30000, profit: 6000, margin: 20, sales_qty: 3, returns_qty: 1 });
    expect(byArticle.A!.abc_revenue).toBe('A');
    expect(byArticle.A!.margin_group).toBe('high');
    expect(byArticle.B).toMatchObject({ abc_revenue: 'C', abc_profit: 'C', margin_group: 'loss' });
    expect(byArticle.C).toMatchObject({ abc_revenue: 'B', abc_profit: 'C', margin_group: 'low' });
    expect(byArticle['']).toMatchObject({ abc_revenue: null, margin_group: null });
    expect(r.margin_groups).toEqual({
      high: { count: 1, realization: 30000, profit: 6000 },
      low: { count: 1, realization: 3000, profit: 300 },
      loss: { count: 1, realization: 1000, profit: -500 },
    });
    expect(r.warnings.map((x) => [x.code, x.details])).toEqual([
      [
        'missing_week',
        {
          period_from: w[1],
          period_to: '2026-05-17',
          weeks: 1,
          ranges: [{ period_from: w[1], period_to: '2026-05-17' }],
        },
      ],
      ['duplicate_report', { report_id: '3', kept_report_id: '2' }],
      ['report_processing', { report_id: '6' }],
      ['stale_report', { report_id: '4' }],
    ]);
    expect(r.warnings[0]!.message).toBe('нет отчёта за 11.05–17.05');
    expect(r.history?.weeks.map((x) => x.profit)).toEqual([0, 5000, 1000]);
  });
});

describe('summary encoding', () => {
  it('summarizes effective values and round-trips through gzip chunks', () => {
    const item = (article: string, realization: number, manualProfit?: number) => {
      const computed = {
        realization,
        profit: 100,
        sales_qty: 1,
        returns_qty: 0,
        for_pay: 1,
        payout: 2,
        expenses: 3,
        cost_price: 50,
      };
      return {
        article,
        computed: computed as never,
        effective: { ...computed, profit: manualProfit ?? 100 } as never,
      };
    };
    const s = summarizeItems([item('b', 200, 7), item('a', 100)]);
    expect(s.totals).toEqual({
      realization: 300,
      for_pay: 2,
      payout: 4,
      profit: 107,
      sales_qty: 2,
      returns_qty: 0,
      expenses: 6,
    });
    expect(s.articles.map((a) => [a.article, a.profit, a.cost_price])).toEqual([
      ['a', 100, 50],
      ['b', 7, 50],
    ]);
    // The fingerprint ignores corrections and item order.
    expect(summarizeItems([item('a', 100), item('b', 200)]).content_hash).toBe(s.content_hash);
    expect(summarizeItems([item('a', 101), item('b', 200)]).content_hash).not.toBe(s.content_hash);
    const many = Array.from({ length: 3000 }, (_, i) =>
      art(`ART-${i}-${'x'.repeat(i % 40)}`, i * 7919, i === 0 ? 0 : -i, i % 5, i % 3),
    );
    const chunks = encodeChunks(many, 20_000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.length <= 20_000)).toBe(true);
    // Own costs per unit round-trip too; a figure made without them reads as 0.
    expect(chunks.flatMap((c) => decodeArticles(c))).toEqual(many.map((a) => ({ ...a, own_cost_price: 0 })));
    const owned = many.slice(0, 3).map((a, i) => ({ ...a, own_cost_price: 1_250 * i }));
    expect(decodeArticles(encodeChunks(owned)[0]!)).toEqual(owned);
  });
});

describe('warnings people can read', () => {
  it('joins consecutive missing weeks into ranges in one warning, with their count', () => {
    const mondays = ['2026-01-05', '2026-01-12', '2026-01-19', '2026-02-09', '2026-02-16', '2026-03-02'];
    const w = missingWeeksWarning(mondays);
    expect(w.message).toBe('нет отчётов за 6 недель: 05.01–25.01, 09.02–22.02, 02.03–08.03');
    expect(w.details).toEqual({
      period_from: '2026-01-05',
      period_to: '2026-03-08',
      weeks: 6,
      ranges: [
        { period_from: '2026-01-05', period_to: '2026-01-25' },
        { period_from: '2026-02-09', period_to: '2026-02-22' },
        { period_from: '2026-03-02', period_to: '2026-03-08' },
      ],
    });
    expect(missingWeeksWarning(['2026-01-05', '2026-01-12', '2026-01-19']).message).toBe(
      'нет отчётов за 3 недели: 05.01–25.01',
    );
    expect(missingWeeksWarning(['2026-01-05']).message).toBe('нет отчёта за 05.01–11.01');
    // 17 weeks in a row: one range, not 17 items.
    const many = Array.from({ length: 17 }, (_, i) => addDays('2026-01-05', 7 * i));
    expect(missingWeeksWarning(many).message).toBe('нет отчётов за 17 недель: 05.01–03.05');
  });

  it('computeAnalytics gives one missing-week warning for a range with gaps', () => {
    const reports = [info('1', '2026-01-05'), info('2', '2026-02-02')];
    const figs = new Map([
      ['1', figures([art('A', 100, 10)])],
      ['2', figures([art('A', 100, 10)])],
    ]);
    const r = computeAnalytics({ from: '2026-01-05', to: '2026-02-08', reports, figures: figs });
    expect(r.warnings.filter((x) => x.code === 'missing_week').map((x) => x.message)).toEqual([
      'нет отчётов за 3 недели: 12.01–01.02',
    ]);
  });

  it('tells reports of the same title apart by their period and upload date', () => {
    const same = { title: 'Еженедельный детализированный отчет' };
    const reports = [
      info('1', '2026-01-05', { ...same, identity: 'x', created_at: '2026-01-13T10:00:00Z' }),
      info('2', '2026-01-05', { ...same, identity: 'x', created_at: '2026-01-20T10:00:00Z' }),
      info('3', '2026-01-12', { ...same, status: 'processing' }),
      info('4', '2026-01-19', { ...same, status: 'processing' }),
    ];
    const figs = new Map([['2', figures([art('A', 100, 10)])]]);
    const r = computeAnalytics({ from: '2026-01-05', to: '2026-01-25', reports, figures: figs });
    const messages = r.warnings.filter((x) => x.code !== 'missing_week').map((x) => x.message);
    expect(messages).toEqual([
      'отчёт «Еженедельный детализированный отчет» за 05.01–11.01, загруженный 13.01.2026, — копия отчёта от 20.01.2026; учтён только более новый',
      'отчёт «Еженедельный детализированный отчет» за 12.01–18.01 ещё обрабатывается и не учтён',
      'отчёт «Еженедельный детализированный отчет» за 19.01–25.01 ещё обрабатывается и не учтён',
    ]);
    expect(new Set(messages).size).toBe(messages.length);
  });
});
