// The pieces every hand-written SVG chart shares (report-charts.tsx, analytics-charts.tsx): the <svg>
// itself, a linear scale that always includes zero, round ticks and the value axis drawn from them.
import type { ReactNode } from 'react';

/** Maps values onto [from, to] so that the range covers them and zero; from > to draws upwards (a y axis). */
export function zeroScale(values: number[], from: number, to: number): (v: number) => number {
  const min = Math.min(0, ...values);
  const max = Math.max(0, ...values);
  const span = max - min || 1;
  return (v: number) => from + ((v - min) / span) * (to - from);
}

/**
 * Round values for an axis covering [min, max] with about `ticks` lines (1, 2, 2.5 or 5 × 10ⁿ apart).
 * The first is at or below min and the last at or above max: a bar never reaches past the axis.
 */
function niceTicks(min: number, max: number, ticks = 4): number[] {
  const span = max - min || 1;
  const raw = span / ticks;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  const last = Math.ceil(max / step - 1e-9) * step;
  for (let v = Math.floor(min / step + 1e-9) * step; v <= last + 1e-9; v += step) out.push(Math.round(v * 100) / 100);
  return out;
}

/** A vertical value axis: round ticks around the values and zero, and y() from the top to the bottom edge. */
export function valueAxis(values: number[], top: number, bottom: number, ticks = 4) {
  const marks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), ticks);
  return { ticks: marks, y: zeroScale([marks[0] ?? 0, marks[marks.length - 1] ?? 1], bottom, top) };
}

const compact = new Intl.NumberFormat('ru-RU', { notation: 'compact', maximumFractionDigits: 1 });

/** Grid lines across the plot at each tick, labelled (1,2 тыс., 3 млн) left of `left`; zero is the axis. */
export function ValueTicks({
  ticks,
  y,
  left,
  right,
}: {
  ticks: number[];
  y: (v: number) => number;
  left: number;
  right: number;
}) {
  return ticks.map((t) => (
    <g key={t}>
      <line x1={left} x2={right} y1={y(t)} y2={y(t)} className={t === 0 ? 'chart-axis' : 'chart-grid'} />
      <text x={left - 6} y={y(t)} className="chart-tick" textAnchor="end" dominantBaseline="middle">
        {compact.format(t)}
      </text>
    </g>
  ));
}

/**
 * A chart's <svg>: as wide as its box, `width` × `height` units, read by screen readers as one picture
 * named `label`. `narrow` marks a phone layout (styles.css lets it shrink below the desktop minimum).
 */
export function ChartSvg({
  width,
  height,
  label,
  testId,
  className,
  narrow,
  children,
}: {
  width: number;
  height: number;
  label: string;
  testId: string;
  className?: string;
  narrow?: boolean;
  children: ReactNode;
}) {
  return (
    <svg
      className={['chart', className, narrow ? 'chart-narrow' : null].filter(Boolean).join(' ')}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
      data-testid={testId}
      data-layout={narrow ? 'narrow' : undefined}
      preserveAspectRatio="xMinYMin meet"
    >
      {children}
    </svg>
  );
}
