import { useEffect, useState } from 'react';
import type { ReportSummary } from '../api/contract';

/** The API combines and exports at most this many reports at once. */
const MAX_SELECTED = 100;

export interface ReportSelection {
  /** Ticked reports, in the list's order. */
  selectedIds: string[];
  isSelected: (id: string) => boolean;
  toggle: (id: string) => void;
  /** The first MAX_SELECTED reports of the list are all ticked. */
  allSelected: boolean;
  toggleAll: () => void;
  clear: () => void;
}

/** The ticks of the reports list, never more than MAX_SELECTED and only of reports still listed. */
export function useReportSelection(items: ReportSummary[]): ReportSelection {
  const [selected, setSelected] = useState<Set<string>>(new Set());

  // Keep the selection to reports still on screen (after a delete or a filter change).
  useEffect(() => {
    setSelected((prev) => {
      const visible = new Set(items.map((r) => r.id));
      const next = new Set([...prev].filter((id) => visible.has(id)));
      return next.size === prev.size ? prev : next;
    });
  }, [items]);

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else if (next.size < MAX_SELECTED) next.add(id);
      return next;
    });

  const allSelected = items.length > 0 && items.slice(0, MAX_SELECTED).every((r) => selected.has(r.id));
  const toggleAll = () => setSelected(allSelected ? new Set() : new Set(items.slice(0, MAX_SELECTED).map((r) => r.id)));

  return {
    selectedIds: items.filter((r) => selected.has(r.id)).map((r) => r.id),
    isSelected: (id) => selected.has(id),
    toggle,
    allSelected,
    toggleAll,
    clear: () => setSelected(new Set()),
  };
}
