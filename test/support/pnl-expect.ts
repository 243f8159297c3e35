/**
 * The P&L as a test computes it on its own, from what GET /api/reports/{id} shows (totals in roubles,
 * the period): each report's lines by the formulas of docs/METRICS.md «P&L by month», a report
 * straddling months split by its days with the largest remainder to the kopeck, period costs added to
 * their months. Independent of shared/engine/pnl.ts on purpose.
 */
type Totals = Record<string, number | null>;

const k = (roubles: number | null | undefined): number => Math.round((roubles ?? 0) * 100);

function linesOf(t: Totals): Record<string, number> {
  const v = (f: string) => k(t[f]);
  return {
    revenue: v('realization'),
    compensations: v('compensations') + v('additional_payments'),
    commission: v('realization') - v('for_pay') - v('acquiring') - v('attorney_services'),
    attorney_services: v('attorney_services'),
    acquiring: v('acquiring') + v('acquiring_billed'),
    logistics: v('logistics') + v('reverse_logistics'),
    storage: v('storage'),
    acceptance: v('acceptance'),
    ads: v('ads'),
    penalties: v('penalties') + v('deductions'),
    loyalty: -v('loyalty'),
    cost_of_goods: v('cost_total'),
    vat: v('vat'),
    usn: v('usn'),
  };
}

/** How each line enters net profit (returns are for reference only). */
const SIGNS: Record<string, number> = {
  revenue: 1,
  compensations: 1,
  commission: -1,
  attorney_services: -1,
  acquiring: -1,
  logistics: -1,
  storage: -1,
  acceptance: -1,
  ads: -1,
  penalties: -1,
  loyalty: -1,
  cost_of_goods: -1,
  vat: -1,
  usn: -1,
  adjustments: 1,
};

function dayList(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d.setUTCDate(d.getUTCDate() + 1))
    out.push(d.toISOString().slice(0, 10));
  return out;
}

/** `value` split by weights, the largest remainders get the leftover kopecks (ties: the earlier part). */
function split(value: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const abs = Math.abs(value);
  const exact = weights.map((w) => (abs * w) / total);
  const parts = exact.map(Math.floor);
  let left = abs - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let j = 0; left > 0; j++, left--) parts[order[j % order.length]![1]]! += 1;
  return parts.map((p) => (value < 0 ? -p : p));
}

export interface ExpectedCost {
  amount: number; // roubles
  kind: 'monthly' | 'one_off';
  from_month?: string;
  to_month?: string | null;
  date?: string;
}

/** Kopecks by month: every line, `period_costs`, and `net_profit` (Σ profit shares − period costs). */
export function expectedPnl(
  reports: Array<{ period_from: string | null; period_to: string | null; totals: Totals }>,
  costs: ExpectedCost[],
  months: string[],
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const m of months) out[m] = { period_costs: 0, net_profit: 0 };
  for (const r of reports) {
    const days = dayList(r.period_from!, r.period_to!);
    const byMonth = new Map<string, number>();
    for (const d of days) byMonth.set(d.slice(0, 7), (byMonth.get(d.slice(0, 7)) ?? 0) + 1);
    const ms = [...byMonth.keys()];
    const weights = ms.map((m) => byMonth.get(m)!);
    const lines = linesOf(r.totals);
    // What the lines do not explain of the report's profit (manual values of derived fields).
    lines.adjustments = k(r.totals.profit) - Object.entries(lines).reduce((s, [key, v]) => s + SIGNS[key]! * v, 0);
    for (const [key, value] of Object.entries(lines)) {
      const parts = split(value, weights);
      ms.forEach((m, i) => {
        if (!out[m]) return;
        out[m]![key] = (out[m]![key] ?? 0) + parts[i]!;
        out[m]!.net_profit! += SIGNS[key]! * parts[i]!;
      });
    }
  }
  for (const c of costs)
    for (const m of months) {
      const hit =
        c.kind === 'one_off' ? c.date!.slice(0, 7) === m : m >= c.from_month! && (!c.to_month || m <= c.to_month);
      if (hit) {
        out[m]!.period_costs! += k(c.amount);
        out[m]!.net_profit! -= k(c.amount);
      }
    }
  return out;
}
