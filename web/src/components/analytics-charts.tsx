// Charts of the analytics page, hand-written SVG like report-charts.tsx: weeks side by side, margin
// groups, one article's profit by week. Tooltips are SVG <title>s (hover, and focus for keyboards).
import { useState } from 'react';
import type { Analytics, AnalyticsWeek, MarginGroup } from '../api/contract';
import { formatInt, formatMoney, formatPercent } from '../lib/format';
import { ChartSvg, ValueTicks, valueAxis } from './chart-parts';

const WIDTH = 1000;
/** Phones: charts drawn 360 units wide, so 11.5-unit labels stay about 11 px on the screen. */
const NARROW_WIDTH = 360;

export const SERIES = [
  { key: 'realization', title: 'Реализация', className: 'series-realization' },
  { key: 'payout', title: 'К выплате', className: 'series-payout' },
  { key: 'profit', title: 'Прибыль', className: 'series-profit' },
] as const;

/** dd.mm of YYYY-MM-DD. */
export const ddmm = (d: string) => `${d.slice(8, 10)}.${d.slice(5, 7)}`;

/**
 * The plot of a by-week chart: its width, the room left of it for the value labels, one slot per week,
 * and every how many weeks a date is written under the bars (at most 6 dates on a phone, 13 elsewhere).
 */
function weekPlot(weeks: number, narrow: boolean | undefined) {
  const width = narrow ? NARROW_WIDTH : WIDTH;
  const left = narrow ? 52 : 70;
  const right = narrow ? 6 : 10;
  const slot = (width - left - right) / Math.max(1, weeks);
  return { width, left, right, slot, labelEvery: Math.max(1, Math.ceil(weeks / (narrow ? 6 : 13))) };
}

function weekTooltip(w: AnalyticsWeek): string {
  if (w.report_ids.length === 0) return `${ddmm(w.period_from)}–${ddmm(w.period_to)}: нет отчёта`;
  return [
    `${ddmm(w.period_from)}–${ddmm(w.period_to)}`,
    `Реализация: ${formatMoney(w.realization)} ₽`,
    `К выплате: ${formatMoney(w.payout)} ₽`,
    `Прибыль: ${formatMoney(w.profit)} ₽`,
    `Маржа: ${formatPercent(w.margin)}`,
    `Продажи: ${formatInt(w.sales_qty)} шт, возвраты: ${formatInt(w.returns_qty)} шт`,
  ].join('\n');
}

/** Realization, payout and profit per week: three bars side by side; a week without a report is hatched. */
export function WeeksChart({ weeks, narrow }: { weeks: AnalyticsWeek[]; narrow?: boolean }) {
  const [hover, setHover] = useState<number | null>(null);
  const { width, left, right, slot, labelEvery } = weekPlot(weeks.length, narrow);
  const height = narrow ? 230 : 300;
  const top = 16;
  const bottom = 40;
  const { ticks, y } = valueAxis(
    weeks.flatMap((w) => SERIES.map((s) => w[s.key])),
    top,
    height - bottom,
  );
  const bar = Math.max(2, Math.min(22, (slot * 0.8) / SERIES.length));
  return (
    <ChartSvg
      width={width}
      height={height}
      label="Реализация, к выплате и прибыль по неделям"
      testId="weeks-chart"
      className="chart-weeks"
      narrow={narrow}
    >
      <ValueTicks ticks={ticks} y={y} left={left} right={width - right} />
      {weeks.map((w, i) => {
        const x0 = left + i * slot;
        const groupLeft = x0 + (slot - bar * SERIES.length) / 2;
        const empty = w.report_ids.length === 0;
        return (
          <g
            key={w.period_from}
            className={`week${hover === i ? ' week-hover' : ''}`}
            data-testid="week-group"
            data-week={w.period_from}
            tabIndex={0}
            onMouseEnter={() => setHover(i)}
            onMouseLeave={() => setHover(null)}
            onFocus={() => setHover(i)}
            onBlur={() => setHover(null)}
          >
            <title>{weekTooltip(w)}</title>
            <rect x={x0} y={top} width={slot} height={height - top - bottom} className="week-hit" />
            {empty ? (
              <rect
                x={x0 + slot * 0.1}
                y={top}
                width={slot * 0.8}
                height={height - top - bottom}
                className="week-missing"
                data-testid="week-missing"
              />
            ) : (
              SERIES.map((s, j) => {
                const v = w[s.key];
                return (
                  <ValueBar
                    key={s.key}
                    x={groupLeft + j * bar}
                    width={bar - 1}
                    value={v}
                    y={y}
                    className={s.key === 'profit' && v < 0 ? 'series-loss' : s.className}
                  />
                );
              })
            )}
            {i % labelEvery === 0 ? (
              <text x={x0 + slot / 2} y={height - bottom + 16} className="chart-tick" textAnchor="middle">
                {ddmm(w.period_from)}
              </text>
            ) : null}
          </g>
        );
      })}
    </ChartSvg>
  );
}

/** A vertical bar from zero to `value`, at least a pixel high so a zero week still shows. */
function ValueBar({
  x,
  width,
  value,
  y,
  className,
}: {
  x: number;
  width: number;
  value: number;
  y: (v: number) => number;
  className: string;
}) {
  return (
    <rect
      x={x}
      y={Math.min(y(value), y(0))}
      width={width}
      height={Math.max(1, Math.abs(y(value) - y(0)))}
      rx={2}
      className={className}
    />
  );
}

export const GROUP_TITLES: Record<MarginGroup, string> = {
  high: 'Маржа ≥ 20 %',
  low: 'Маржа 0–20 %',
  loss: 'Убыточные (< 0)',
};

const groupTooltip = (g: MarginGroup, v: Analytics['margin_groups'][MarginGroup]) =>
  `${GROUP_TITLES[g]}: ${formatInt(v.count)} арт., реализация ${formatMoney(v.realization)} ₽, прибыль ${formatMoney(v.profit)} ₽`;

/** Per margin group: its share of realization (bar), articles and profit. */
export function MarginGroupsChart({ groups, narrow }: { groups: Analytics['margin_groups']; narrow?: boolean }) {
  const order: MarginGroup[] = ['high', 'low', 'loss'];
  const total = order.reduce((s, g) => s + Math.max(0, groups[g].realization), 0) || 1;
  if (narrow) return <NarrowMarginGroups groups={groups} order={order} total={total} />;
  const row = 46;
  const labelW = 170;
  const valueW = 330;
  const barMax = WIDTH - labelW - valueW - 20;
  return (
    <ChartSvg
      width={WIDTH}
      height={order.length * row + 8}
      label="Группы маржи"
      testId="margin-groups-chart"
      className="chart-groups"
    >
      {order.map((g, i) => {
        const v = groups[g];
        const w = (Math.max(0, v.realization) / total) * barMax;
        const yy = i * row + 6;
        return (
          <g key={g} data-testid={`margin-group-${g}`}>
            <title>{groupTooltip(g, v)}</title>
            <text
              x={labelW}
              y={yy + row / 2 - 4}
              className="chart-label strong"
              textAnchor="end"
              dominantBaseline="middle"
            >
              {GROUP_TITLES[g]}
            </text>
            <rect
              x={labelW + 10}
              y={yy + 6}
              width={Math.max(1.5, w)}
              height={row - 20}
              rx={3}
              className={`group-${g}`}
            />
            <text x={WIDTH - 4} y={yy + row / 2 - 4} className="chart-value" textAnchor="end" dominantBaseline="middle">
              {`${formatInt(v.count)} арт. · ${formatMoney(v.realization)} ₽ · прибыль `}
              <tspan className={v.profit < 0 ? 'negative' : undefined}>{formatMoney(v.profit)}</tspan>
            </text>
          </g>
        );
      })}
    </ChartSvg>
  );
}

/** Phones: per group its name and count, the bar under them across the width, then realization and profit. */
function NarrowMarginGroups({
  groups,
  order,
  total,
}: {
  groups: Analytics['margin_groups'];
  order: MarginGroup[];
  total: number;
}) {
  const row = 62;
  return (
    <ChartSvg
      width={NARROW_WIDTH}
      height={order.length * row + 4}
      label="Группы маржи"
      testId="margin-groups-chart"
      className="chart-groups"
      narrow
    >
      {order.map((g, i) => {
        const v = groups[g];
        const yy = i * row;
        return (
          <g key={g} data-testid={`margin-group-${g}`}>
            <title>{groupTooltip(g, v)}</title>
            <text x={4} y={yy + 14} className="chart-label strong">
              {GROUP_TITLES[g]}
            </text>
            <text x={NARROW_WIDTH - 4} y={yy + 14} className="chart-value" textAnchor="end">
              {`${formatInt(v.count)} арт.`}
            </text>
            <rect
              x={4}
              y={yy + 21}
              width={Math.max(1.5, (Math.max(0, v.realization) / total) * (NARROW_WIDTH - 8))}
              height={12}
              rx={3}
              className={`group-${g}`}
            />
            <text x={4} y={yy + 50} className="chart-value">
              {`${formatMoney(v.realization)} ₽ · прибыль `}
              <tspan className={v.profit < 0 ? 'negative' : undefined}>{formatMoney(v.profit)}</tspan>
            </text>
          </g>
        );
      })}
    </ChartSvg>
  );
}

/** One article's profit by week (the weekly history). */
export function ArticleHistoryChart({
  history,
  narrow,
}: {
  history: NonNullable<Analytics['history']>;
  narrow?: boolean;
}) {
  const { width, left, right, slot, labelEvery } = weekPlot(history.weeks.length, narrow);
  const height = narrow ? 160 : 180;
  const top = 12;
  const bottom = 28;
  const { ticks, y } = valueAxis(
    history.weeks.map((w) => w.profit),
    top,
    height - bottom,
    3,
  );
  const bar = Math.max(2, Math.min(40, slot * 0.7));
  return (
    <ChartSvg
      width={width}
      height={height}
      label={`Прибыль артикула ${history.article} по неделям`}
      testId="article-history-chart"
      className="chart-history"
      narrow={narrow}
    >
      <ValueTicks ticks={ticks} y={y} left={left} right={width - right} />
      {history.weeks.map((w, i) => (
        <g key={w.period_from}>
          <title>{`${ddmm(w.period_from)}–${ddmm(w.period_to)}: прибыль ${formatMoney(w.profit)} ₽, реализация ${formatMoney(w.realization)} ₽, маржа ${formatPercent(w.margin)}, продажи ${formatInt(w.sales_qty)} шт`}</title>
          <ValueBar
            x={left + i * slot + (slot - bar) / 2}
            width={bar}
            value={w.profit}
            y={y}
            className={w.profit < 0 ? 'series-loss' : 'series-profit'}
          />
          {i % labelEvery === 0 ? (
            <text x={left + i * slot + slot / 2} y={height - 8} className="chart-tick" textAnchor="middle">
              {ddmm(w.period_from)}
            </text>
          ) : null}
        </g>
      ))}
    </ChartSvg>
  );
}
