import { monthTitle } from '../../../shared/engine/months';
import { COST_KINDS } from '../../../shared/contract';

/** A kind of WB's per-article costs as the note names it (the one list of kinds, cost-kinds.ts). */
const WORDS: Record<string, string> = Object.fromEntries(COST_KINDS.map((k) => [k.kind, k.pending]));

/** «данные о рекламе и о хранении от WB ещё загружаются», or null when nothing is pending. */
function costsPendingText(kinds: readonly string[] | undefined): string | null {
  const words = (kinds ?? []).map((k) => WORDS[k]).filter((w): w is string => Boolean(w));
  if (words.length === 0) return null;
  const list = words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} и ${words.at(-1)!}`;
  return `данные ${list} от WB ещё загружаются`;
}

/**
 * A report imported from WB whose per-article costs WB's other APIs have not answered yet (the report's
 * `costs_pending`): those costs are spread by sales for now, not final.
 */
export function CostsPendingNote({ kinds }: { kinds: readonly string[] | undefined }) {
  const text = costsPendingText(kinds);
  if (!text) return null;
  return (
    <div className="alert alert-info" role="status" data-testid="costs-pending">
      <strong>{text[0]!.toUpperCase() + text.slice(1)}.</strong> Пока эти расходы распределены по продажам и не
      окончательны; отчёт пересчитается сам, когда WB их отдаст.
    </div>
  );
}

/** The P&L's months whose reports still wait for WB's per-article costs. */
export function PnlCostsPendingNote({ months }: { months: ReadonlyArray<{ month: string; costs_pending: string[] }> }) {
  const pending = months.filter((m) => costsPendingText(m.costs_pending) !== null);
  if (pending.length === 0) return null;
  return (
    <div className="alert alert-info" role="status" data-testid="pnl-costs-pending">
      <ul>
        {pending.map((m) => (
          <li key={m.month}>
            {monthTitle(m.month)}: {costsPendingText(m.costs_pending)}; цифры месяца по этим расходам не окончательны.
          </li>
        ))}
      </ul>
    </div>
  );
}
