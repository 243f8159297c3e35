import { useMemo, useState, type ReactNode } from 'react';
import { PAYOUT_LINES } from '../../../shared/engine/payout';
import type { Item, Values } from '../api/contract';
import { displayArticle, fieldTitle } from '../lib/fields';
import { formatMoney } from '../lib/format';
import { useNarrowScreen } from '../lib/use-narrow-screen';
import { ChartSvg, zeroScale } from './chart-parts';

interface Step {
  label: string;
  /** Full bar from zero (a milestone) or a change from the running total. */
  kind: 'total' | 'delta';
  value: number;
  start: number;
  end: number;
}

const n = (v: number | null | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const cents = (v: number) => Math.round(v * 100) / 100;

/**
 * docs/METRICS.md "The way from the seller's price to profit", on the report's totals. Where a milestone
 * differs from the running sum (WB's per-column rounding, manual corrections) the gap is its own step,
 * so the picture always adds up.
 */
export function waterfallSteps(totals: Values): Step[] {
  const steps: Step[] = [];
  let running = 0;
  const total = (label: string, value: number, gapLabel: string) => {
    const gap = cents(value - running);
    if (steps.length > 0 && Math.abs(gap) >= 0.01) delta(gapLabel, gap);
    steps.push({ label, kind: 'total', value, start: 0, end: value });
    running = value;
  };
  const delta = (label: string, change: number) => {
    if (Math.abs(change) < 0.005) return;
    steps.push({ label, kind: 'delta', value: change, start: running, end: running + change });
    running = cents(running + change);
  };
  // The signed value beside each step says which way it goes; a sign in the label as well would read
  // "− Комиссия WB +1 064,31" when WB's commission is negative (a large platform discount).
  const minus = (field: string) => delta(fieldTitle(field), -n(totals[field]));
  const plus = (field: string) => delta(fieldTitle(field), n(totals[field]));

  total(fieldTitle('seller_price'), n(totals.seller_price), '');
  minus('wb_discount');
  total(fieldTitle('realization'), n(totals.realization), 'Ручные корректировки');
  minus('commission');
  minus('acquiring');
  minus('attorney_services');
  total(fieldTitle('for_pay'), n(totals.for_pay), 'Округления WB и корректировки');
  // What WB transfers, line by line, as the engine computes it (shared/engine/payout.ts); for_pay is the milestone above.
  for (const line of PAYOUT_LINES) {
    if (line.key === 'for_pay') continue;
    if (line.sign > 0) plus(line.key);
    else minus(line.key);
  }
  // Loans lower what WB transfers but are not an expense: they come back before profit.
  total(fieldTitle('payout'), n(totals.payout), 'Округления WB и корректировки');
  delta('Займы (не расход)', n(totals.loans));
  // Acquiring WB bills separately is an expense outside the payout.
  for (const f of ['acquiring_billed', 'vat', 'usn', 'cost_total', 'own_costs']) minus(f);
  total(fieldTitle('profit'), n(totals.profit), 'Ручные корректировки');
  return steps;
}

const ROW = 28;
const LABEL_W = 230;
const VALUE_W = 130;
const WIDTH = 1000;

/** Narrow screens (phones): the label above each bar, the amount at its right, the chart as wide as the screen. */
const NARROW_WIDTH = 360;
const NARROW_ROW = 40;

function NarrowWaterfall({ steps }: { steps: Step[] }) {
  const x = zeroScale(
    steps.flatMap((s) => [s.start, s.end]),
    4,
    NARROW_WIDTH - 4,
  );
  const height = steps.length * NARROW_ROW + 6;
  return (
    <ChartSvg
      width={NARROW_WIDTH}
      height={height}
      label="Путь от цены продавца к прибыли"
      testId="waterfall-chart"
      narrow
    >
      <line x1={x(0)} x2={x(0)} y1={0} y2={height} className="chart-axis" />
      {steps.map((s, i) => {
        const y = i * NARROW_ROW;
        const left = Math.min(x(s.start), x(s.end));
        const w = Math.max(1.5, Math.abs(x(s.end) - x(s.start)));
        const cls =
          s.kind === 'total' ? (s.value < 0 ? 'bar-total-negative' : 'bar-total') : s.value < 0 ? 'bar-down' : 'bar-up';
        return (
          <g key={`${s.label}-${i}`}>
            <title>{`${s.label}: ${formatMoney(s.value)} ₽`}</title>
            <text x={4} y={y + 14} className={`chart-label${s.kind === 'total' ? ' strong' : ''}`}>
              {s.label}
            </text>
            <text
              x={NARROW_WIDTH - 4}
              y={y + 14}
              className={`chart-value${s.value < 0 ? ' negative' : ''}${s.kind === 'total' ? ' strong' : ''}`}
              textAnchor="end"
            >
              {s.kind === 'delta' && s.value > 0 ? '+' : ''}
              {formatMoney(s.value)}
            </text>
            <rect x={left} y={y + 20} width={w} height={14} rx={3} className={cls} />
          </g>
        );
      })}
    </ChartSvg>
  );
}

/** One row of a wide horizontal bar chart: the label before the plot, the bar from `from` to `to`, the amount at the right edge. */
function BarRow({
  y,
  title,
  label,
  strong,
  from,
  to,
  barClass,
  value,
  negative,
  children,
}: {
  y: number;
  title: string;
  label: string;
  strong?: boolean;
  from: number;
  to: number;
  barClass: string;
  value: string;
  negative: boolean;
  children?: ReactNode;
}) {
  return (
    <g>
      <title>{title}</title>
      <text
        x={LABEL_W}
        y={y + ROW / 2}
        className={`chart-label${strong ? ' strong' : ''}`}
        textAnchor="end"
        dominantBaseline="middle"
      >
        {label}
      </text>
      <rect
        x={Math.min(from, to)}
        y={y + 4}
        width={Math.max(1.5, Math.abs(to - from))}
        height={ROW - 10}
        rx={3}
        className={barClass}
      />
      {children}
      <text
        x={WIDTH - 4}
        y={y + ROW / 2}
        className={`chart-value${negative ? ' negative' : ''}${strong ? ' strong' : ''}`}
        textAnchor="end"
        dominantBaseline="middle"
      >
        {value}
      </text>
    </g>
  );
}

function WaterfallChart({ totals, narrow }: { totals: Values; narrow?: boolean }) {
  const steps = useMemo(() => waterfallSteps(totals), [totals]);
  if (narrow) return <NarrowWaterfall steps={steps} />;
  const x = zeroScale(
    steps.flatMap((s) => [s.start, s.end]),
    LABEL_W + 10,
    WIDTH - VALUE_W - 10,
  );
  const height = steps.length * ROW + 10;
  return (
    <ChartSvg width={WIDTH} height={height} label="Путь от цены продавца к прибыли" testId="waterfall-chart">
      <line x1={x(0)} x2={x(0)} y1={0} y2={height} className="chart-axis" />
      {steps.map((s, i) => {
        const y = i * ROW + 5;
        const cls =
          s.kind === 'total' ? (s.value < 0 ? 'bar-total-negative' : 'bar-total') : s.value < 0 ? 'bar-down' : 'bar-up';
        return (
          <BarRow
            key={`${s.label}-${i}`}
            y={y}
            title={`${s.label}: ${formatMoney(s.value)} ₽`}
            label={s.label}
            strong={s.kind === 'total'}
            from={x(s.start)}
            to={x(s.end)}
            barClass={cls}
            value={`${s.kind === 'delta' && s.value > 0 ? '+' : ''}${formatMoney(s.value)}`}
            negative={s.value < 0}
          >
            {i < steps.length - 1 ? (
              <line x1={x(s.end)} x2={x(s.end)} y1={y + ROW - 6} y2={y + ROW + 4} className="chart-connector" />
            ) : null}
          </BarRow>
        );
      })}
    </ChartSvg>
  );
}

/** The most profitable articles, then the worst losses (most negative last). */
function topByProfit(items: Item[], best = 10, worst = 5): Item[] {
  const sorted = items
    .filter((i) => typeof i.effective.profit === 'number')
    .sort((a, b) => n(b.effective.profit) - n(a.effective.profit));
  const winners = sorted.filter((i) => n(i.effective.profit) > 0).slice(0, best);
  const losers = sorted.filter((i) => n(i.effective.profit) < 0).slice(-worst);
  return [...winners, ...losers];
}

function ProfitByArticleChart({ items }: { items: Item[] }) {
  const rows = useMemo(() => topByProfit(items), [items]);
  if (rows.length === 0) return <p className="muted">Нет артикулов с прибылью или убытком.</p>;
  const x = zeroScale(
    rows.map((r) => n(r.effective.profit)),
    LABEL_W + 10,
    WIDTH - VALUE_W - 10,
  );
  const height = rows.length * ROW + 10;
  return (
    <ChartSvg width={WIDTH} height={height} label="Прибыль по артикулам" testId="profit-chart">
      <line x1={x(0)} x2={x(0)} y1={0} y2={height} className="chart-axis" />
      {rows.map((item, i) => {
        const profit = n(item.effective.profit);
        const label = displayArticle(item.article);
        return (
          <BarRow
            key={item.item_id}
            y={i * ROW + 5}
            title={`${label}: ${formatMoney(profit)} ₽`}
            label={label.length > 30 ? `${label.slice(0, 29)}…` : label}
            from={x(0)}
            to={x(profit)}
            barClass={profit < 0 ? 'bar-down' : 'bar-up'}
            value={formatMoney(profit)}
            negative={profit < 0}
          />
        );
      })}
    </ChartSvg>
  );
}

export function ReportCharts({ items, totals }: { items: Item[]; totals: Values }) {
  const [tab, setTab] = useState<'waterfall' | 'articles'>('waterfall');
  const narrow = useNarrowScreen();
  return (
    <section className="panel" aria-labelledby="charts-title">
      <div className="panel-head">
        <h2 id="charts-title">
          {tab === 'waterfall' ? 'От цены продавца к прибыли, ₽' : 'Прибыль по артикулам: лучшие и худшие, ₽'}
        </h2>
        <div className="tabs" role="tablist" aria-label="График">
          <button
            type="button"
            role="tab"
            aria-selected={tab === 'waterfall'}
            className={tab === 'waterfall' ? 'tab active' : 'tab'}
            onClick={() => setTab('waterfall')}
          >
            Путь к прибыли
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={tab === 'articles'}
            className={tab === 'articles' ? 'tab active' : 'tab'}
            onClick={() => setTab('articles')}
          >
            По артикулам
          </button>
        </div>
      </div>
      <div className="chart-wrap" role="tabpanel">
        {tab === 'waterfall' ? (
          <WaterfallChart totals={totals} narrow={narrow} />
        ) : (
          <ProfitByArticleChart items={items} />
        )}
      </div>
    </section>
  );
}
