import type { Column } from '@tanstack/react-table';

/**
 * A sortable column's header cell (the report's items and the analytics articles): the title as a button
 * that cycles the sort, the direction as a mark beside it and as aria-sort for screen readers.
 */
export function SortHeader<T>({ column, className }: { column: Column<T, unknown>; className: string }) {
  const sorted = column.getIsSorted();
  const title = String(column.columnDef.header ?? '');
  return (
    <th
      scope="col"
      className={className}
      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
    >
      <button
        type="button"
        className="sort-button"
        onClick={column.getToggleSortingHandler()}
        title={`Сортировать: ${title}`}
      >
        <span>{title}</span>
        <span className="sort-mark" aria-hidden="true">
          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : ''}
        </span>
      </button>
    </th>
  );
}
