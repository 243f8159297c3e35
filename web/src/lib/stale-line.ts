/**
 * «<lead>: «A», «B».» — the line the reports page shows after a summary export, and a new combined
 * report after its combine, naming the chosen reports the API said were stale (an id stands in for a
 * report whose title is not known here).
 */
export function staleLine(
  lead: string,
  ids: readonly string[],
  known: ReadonlyArray<{ id: string; title: string }>,
): string {
  const title = new Map(known.map((r) => [r.id, r.title]));
  return `${lead}: ${ids.map((id) => `«${title.get(id) ?? id}»`).join(', ')}.`;
}
