// Charts of the analytics page, hand-written SVG like report-charts.tsx: weeks side by side, margin
// groups, one article's profit by week. Tooltips are SVG <title>s (hover, and focus for keyboards).
import { useState } from 'react';
import type { Analytics, AnalyticsWeek, MarginGroup } from '../api/types';
import { formatInt, formatMoney, formatPercent } from '../lib/format';

const WIDTH = 1000;

export const SERIES = [
  { key: 'realization', title: 'Реализация', className: 'series-realization' },
  { key: 'payout', title: 'К выплате', className: 'series-payout' },
  { key: 'profit', title: 'Прибыль', className: 'series-profit' },
] as const;

/** dd.mm of YYYY-MM-DD. */
export const ddmm = (d: string) => `${d.slice(8, 10)}.${d.slice(5, 7)}`;

/** A round step for an axis covering [min, max] with about `ticks` lines. */
function niceTicks(min: number, max: number, ticks = 4): number[] {
  const span = max - min || 1;
  const raw = span / ticks;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + 1e-9; v += step) out.push(Math.round(v * 100) / 100);
  return out;
}

const short = new Intl.NumberFormat('ru-RU', { notation: 'compact', maximumFractionDigits: 1 });

export function weekTooltip(w: AnalyticsWeek): string {
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
export function WeeksChart({ weeks }: { weeks: AnalyticsWeek[] }) {
  const [hover, setHover] = useState<number | null>(null);
  const height = 300;
  const top = 16;
  const bottom = 40;
  const left = 70;
  const right = 10;
  const values = weeks.flatMap((w) => SERIES.map((s) => w[s.key]));
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values));
  const min = Math.min(0, ticks[0] ?? 0);
  const max = Math.max(0, ticks[ticks.length - 1] ?? 1);
  const y = (v: number) => top + ((max - v) / (max - min || 1)) * (height - top - bottom);
  const slot = (WIDTH - left - right) / Math.max(1, weeks.length);
  const bar = Math.max(2, Math.min(22, (slot * 0.8) / SERIES.length));
  const labelEvery = Math.ceil(weeks.length / 13);
  return (
    <svg
      className="chart chart-weeks"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-label="Реализация, к выплате и прибыль по неделям"
      data-testid="weeks-chart"
      preserveAspectRatio="xMinYMin meet"
    >
      {ticks.map((t) => (
        <g key={t}>
          <line x1={left} x2={WIDTH - right} y1={y(t)} y2={y(t)} className={t === 0 ? 'chart-axis' : 'chart-grid'} />
          <text x={left - 6} y={y(t)} className="chart-tick" textAnchor="end" dominantBaseline="middle">
            {short.format(t)}
          </text>
        </g>
      ))}
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
                const cls = s.key === 'profit' && v < 0 ? 'series-loss' : s.className;
                return (
                  <rect
                    key={s.key}
                    x={groupLeft + j * bar}
                    y={Math.min(y(v), y(0))}
                    width={bar - 1}
                    height={Math.max(1, Math.abs(y(v) - y(0)))}
                    rx={2}
                    className={cls}
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
    </svg>
  );
}

export const GROUP_TITLES: Record<MarginGroup, string> = {
  high: 'Маржа ≥ 20 %',
  low: 'Маржа 0–20 %',
  loss: 'Убыточные (< 0)',
};

/** Per margin group: its share of realization (bar), articles and profit. */
export function MarginGroupsChart({ groups }: { groups: Analytics['margin_groups'] }) {
  const order: MarginGroup[] = ['high', 'low', 'loss'];
  const total = order.reduce((s, g) => s + Math.max(0, groups[g].realization), 0) || 1;
  const row = 46;
  const labelW = 170;
  const valueW = 330;
  const barMax = WIDTH - labelW - valueW - 20;
  return (
    <svg
      className="chart chart-groups"
      viewBox={`0 0 ${WIDTH} ${order.length * row + 8}`}
      role="img"
      aria-label="Группы маржи"
      data-testid="margin-groups-chart"
      preserveAspectRatio="xMinYMin meet"
    >
      {order.map((g, i) => {
        const v = groups[g];
        const w = (Math.max(0, v.realization) / total) * barMax;
        const yy = i * row + 6;
        return (
          <g key={g} data-testid={`margin-group-${g}`}>
            <title>{`${GROUP_TITLES[g]}: ${formatInt(v.count)} арт., реализация ${formatMoney(v.realization)} ₽, прибыль ${formatMoney(v.profit)} ₽`}</title>
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
    </svg>
  );
}

/** One article's profit by week (the weekly history). */
export function ArticleHistoryChart({ history }: { history: NonNullable<Analytics['history']> }) {
  const height = 180;
  const top = 12;
  const bottom = 28;
  const left = 70;
  const values = history.weeks.map((w) => w.profit);
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), 3);
  const min = Math.min(0, ticks[0] ?? 0);
  const max = Math.max(0, ticks[ticks.length - 1] ?? 1);
  const y = (v: number) => top + ((max - v) / (max - min || 1)) * (height - top - bottom);
  const slot = (WIDTH - left - 10) / Math.max(1, history.weeks.length);
  const bar = Math.max(2, Math.min(40, slot * 0.7));
  const labelEvery = Math.ceil(history.weeks.length / 13);
  return (
    <svg
      className="chart chart-history"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-label={`Прибыль артикула ${history.article} по неделям`}
      data-testid="article-history-chart"
      preserveAspectRatio="xMinYMin meet"
    >
      {ticks.map((t) => (
        <g key={t}>
          <line x1={left} x2={WIDTH - 10} y1={y(t)} y2={y(t)} className={t === 0 ? 'chart-axis' : 'chart-grid'} />
          <text x={left - 6} y={y(t)} className="chart-tick" textAnchor="end" dominantBaseline="middle">
            {short.format(t)}
          </text>
        </g>
      ))}
      {history.weeks.map((w, i) => {
        const x0 = left + i * slot + (slot - bar) / 2;
        return (
          <g key={w.period_from}>
            <title>{`${ddmm(w.period_from)}–${ddmm(w.period_to)}: прибыль ${formatMoney(w.profit)} ₽, реализация ${formatMoney(w.realization)} ₽, маржа ${formatPercent(w.margin)}, продажи ${formatInt(w.sales_qty)} шт`}</title>
            <rect
              x={x0}
              y={Math.min(y(w.profit), y(0))}
              width={bar}
              height={Math.max(1, Math.abs(y(w.profit) - y(0)))}
              rx={2}
              className={w.profit < 0 ? 'series-loss' : 'series-profit'}
            />
            {i % labelEvery === 0 ? (
              <text x={left + i * slot + slot / 2} y={height - 8} className="chart-tick" textAnchor="middle">
                {ddmm(w.period_from)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}
