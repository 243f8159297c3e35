import { useState } from 'react';

/**
 * «с … по … Показать»: a period typed by hand, shown once submitted (analytics: days; the P&L: months).
 * The inputs keep what is typed until «Показать»; `initial` is the period the page shows now.
 */
export function PeriodRangeForm({
  kind,
  initial,
  labels,
  onSubmit,
}: {
  kind: 'date' | 'month';
  initial: { from: string; to: string };
  /** The inputs' accessible names: first and last day (or month). */
  labels: { from: string; to: string };
  onSubmit: (period: { from: string; to: string }) => void;
}) {
  const [draft, setDraft] = useState(initial);
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(draft);
      }}
    >
      <label className="inline-label">
        с
        <input
          type={kind}
          value={draft.from}
          onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value }))}
          aria-label={labels.from}
        />
      </label>
      <label className="inline-label">
        по
        <input
          type={kind}
          value={draft.to}
          onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value }))}
          aria-label={labels.to}
        />
      </label>
      <button type="submit" className="btn btn-small" disabled={!draft.from || !draft.to}>
        Показать
      </button>
    </form>
  );
}
