import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import {
  createColumnHelper,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type Column,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Item, Values } from '../api/types';
import { COLUMN_GROUPS, displayArticle, FIELD_BY_NAME, type FieldUnit } from '../lib/fields';
import { editText, formatByUnit, formatInt, normaliseForUnit, parseNumberInput } from '../lib/format';
import { ErrorMessage } from './error-message';

const ROW_HEIGHT = 34;

interface ColumnMeta {
  unit?: FieldUnit;
  correctable?: boolean;
  groupId: string;
  className?: string;
}

export interface ItemsTableProps {
  items: Item[];
  totals: Values;
  /** Saves a manual value (roubles for money, null resets); rejects with an ApiError on failure. */
  onSave: (item: Item, field: string, value: number | null) => Promise<void>;
  readOnly?: boolean;
}

const helper = createColumnHelper<Item>();

function buildColumns(): ColumnDef<Item, unknown>[] {
  const itemGroup = helper.group({
    id: 'item',
    header: 'Товар',
    columns: [
      helper.accessor((row) => row.article, {
        id: 'article',
        header: 'Артикул',
        meta: { groupId: 'item', className: 'col-article' } satisfies ColumnMeta,
        sortingFn: 'alphanumeric',
      }),
      helper.accessor((row) => row.nm_id, {
        id: 'nm_id',
        header: 'Код WB',
        meta: { groupId: 'item', className: 'col-nm' } satisfies ColumnMeta,
      }),
      helper.accessor((row) => row.category, {
        id: 'category',
        header: 'Категория',
        meta: { groupId: 'item', className: 'col-category' } satisfies ColumnMeta,
      }),
    ],
  });
  const groups = COLUMN_GROUPS.map((group) =>
    helper.group({
      id: group.id,
      header: group.title,
      columns: group.fields.map((name) => {
        const def = FIELD_BY_NAME.get(name);
        return helper.accessor((row) => row.effective[name] ?? undefined, {
          id: name,
          header: def?.title ?? name,
          sortUndefined: 'last',
          sortDescFirst: true,
          meta: {
            unit: def?.unit ?? 'money',
            correctable: def?.correctable ?? false,
            groupId: group.id,
          } satisfies ColumnMeta,
        });
      }),
    }),
  );
  return [itemGroup, ...groups] as ColumnDef<Item, unknown>[];
}

const COLUMNS = buildColumns();

/** Pixels of columns rendered beyond the visible part: to the left, and (more) to the right, where reading goes. */
const COLUMN_OVERSCAN_LEFT_PX = 480;
const COLUMN_OVERSCAN_RIGHT_PX = 1000;

/**
 * The window of columns to render, [from, to] by index (column 0, the sticky article, is always
 * rendered). Without a measured width (no layout, e.g. tests in happy-dom) every column.
 */
export function columnWindow(
  columns: ReadonlyArray<Column<Item, unknown>>,
  left: number,
  width: number,
): [number, number] {
  if (width <= 0 || columns.length <= 1) return [1, columns.length - 1];
  const lo = left - COLUMN_OVERSCAN_LEFT_PX;
  const hi = left + width + COLUMN_OVERSCAN_RIGHT_PX;
  let x = columnWidth(columns[0]);
  let from = -1;
  let to = columns.length - 1;
  for (let i = 1; i < columns.length; i++) {
    const w = columnWidth(columns[i]);
    if (from < 0 && x + w > lo) from = i;
    if (x >= hi) {
      to = i - 1;
      break;
    }
    x += w;
  }
  return [from < 0 ? columns.length : from, Math.max(to, from < 0 ? columns.length - 1 : from)];
}

/** Pixel width of a column (the table's layout is fixed, so widths never follow the rows on screen). */
const WIDTH_BY_ID: Record<string, number> = { article: 200, nm_id: 100, category: 160 };
function columnWidth(column: Column<Item, unknown>): number {
  return WIDTH_BY_ID[column.id] ?? 112;
}

const matches = (item: Item, needle: string) =>
  item.article.toLowerCase().includes(needle) ||
  item.category?.toLowerCase().includes(needle) ||
  item.brand?.toLowerCase().includes(needle) ||
  String(item.nm_id ?? '').includes(needle) ||
  (item.article === '' && 'без артикула'.includes(needle));

/**
 * The report's items with effective values: grouped, sortable, searchable columns; rows virtualised
 * (a report may have thousands of articles); correctable cells edit in place.
 */
export function ItemsTable({ items, totals, onSave, readOnly }: ItemsTableProps) {
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);
  const [sorting, setSorting] = useState<SortingState>([]);
  const [hiddenGroups, setHiddenGroups] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<{ itemId: string; field: string } | null>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const scrollRef = useRef<HTMLDivElement>(null);

  const filtered = useMemo(() => {
    const needle = deferredSearch.trim().toLowerCase();
    return needle ? items.filter((item) => matches(item, needle)) : items;
  }, [items, deferredSearch]);

  const columnVisibility = useMemo(() => {
    const visibility: Record<string, boolean> = {};
    for (const group of COLUMN_GROUPS) for (const f of group.fields) visibility[f] = !hiddenGroups.has(group.id);
    return visibility;
  }, [hiddenGroups]);

  const table = useReactTable({
    data: filtered,
    columns: COLUMNS,
    state: { sorting, columnVisibility },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (row) => row.item_id,
  });

  const rows = table.getRowModel().rows;
  const leafColumns = table.getVisibleLeafColumns();

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const virtualRows = virtualizer.getVirtualItems();

  // Columns are windowed too: a row renders the sticky article cell, the columns near the visible
  // part (COLUMN_OVERSCAN_*_PX) and one empty cell spanning each side's others.
  const [view, setView] = useState({ left: 0, width: 0 });
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const update = () =>
      setView((v) =>
        v.left === el.scrollLeft && v.width === el.clientWidth ? v : { left: el.scrollLeft, width: el.clientWidth },
      );
    update();
    el.addEventListener('scroll', update, { passive: true });
    const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    resize?.observe(el);
    return () => {
      el.removeEventListener('scroll', update);
      resize?.disconnect();
    };
  }, []);
  const [colFrom, colTo] = useMemo(
    () => columnWindow(leafColumns, view.left, view.width),
    [leafColumns, view.left, view.width],
  );
  const paddingTop = virtualRows.length > 0 ? virtualRows[0].start : 0;
  const paddingBottom =
    virtualRows.length > 0 ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1].end : 0;

  const tableWidth = useMemo(() => leafColumns.reduce((w, c) => w + columnWidth(c), 0), [leafColumns]);

  const save = useCallback(
    async (item: Item, field: string, value: number | null) => {
      const key = `${item.item_id}:${field}`;
      setSaving(key);
      setSaveError(null);
      try {
        await onSave(item, field, value);
        setEditing(null);
      } catch (e) {
        setSaveError(e);
      } finally {
        setSaving(null);
      }
    },
    [onSave],
  );

  const startEdit = useCallback((itemId: string, field: string) => {
    setSaveError(null);
    setEditing({ itemId, field });
  }, []);
  const cancelEdit = useCallback(() => setEditing(null), []);

  const toggleGroup = (id: string) =>
    setHiddenGroups((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const correctedCount = useMemo(
    () =>
      items.reduce(
        (n, item) => n + Object.values(item.manual_values ?? {}).filter((v) => v !== null && v !== undefined).length,
        0,
      ),
    [items],
  );

  return (
    <div className="items-table-block">
      <div className="table-toolbar">
        <input
          type="search"
          className="search-input"
          placeholder="Поиск: артикул, категория, бренд, код WB"
          aria-label="Поиск по артикулам"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <span className="muted small" data-testid="items-count">
          {filtered.length === items.length
            ? `Артикулов: ${formatInt(items.length)}`
            : `Найдено ${formatInt(filtered.length)} из ${formatInt(items.length)}`}
          {correctedCount > 0 ? ` · исправлено вручную: ${correctedCount}` : ''}
        </span>
        <div className="group-toggles" role="group" aria-label="Группы колонок">
          {COLUMN_GROUPS.map((g) => (
            <label key={g.id} className={`chip${hiddenGroups.has(g.id) ? '' : ' chip-on'}`}>
              <input type="checkbox" checked={!hiddenGroups.has(g.id)} onChange={() => toggleGroup(g.id)} />
              {g.title}
            </label>
          ))}
        </div>
      </div>
      {!readOnly ? (
        <p className="muted small table-hint">
          Ячейки с пунктирным подчёркиванием можно исправить: нажмите, введите значение (в рублях для денег) и Enter.
          Исправленные ячейки подсвечены; наведите, чтобы увидеть рассчитанное значение.
        </p>
      ) : null}
      <ErrorMessage error={saveError} testId="cell-save-error" />
      <div
        className="table-scroll"
        ref={scrollRef}
        data-testid="items-table"
        // Few articles: no empty box under the totals row (room for the two header rows and the totals).
        style={{ height: `min(70vh, 760px, ${rows.length * ROW_HEIGHT + 150}px)` }}
      >
        <table className="items-table" aria-rowcount={rows.length + 1} style={{ width: tableWidth }}>
          {/* Fixed column widths (table-layout: fixed): rows mounted while scrolling never re-measure the table. */}
          <colgroup>
            {leafColumns.map((column) => (
              <col key={column.id} style={{ width: columnWidth(column) }} />
            ))}
          </colgroup>
          <thead>
            {table.getHeaderGroups().map((headerGroup, depth) => (
              <tr key={headerGroup.id} className={depth === 0 ? 'group-row' : 'header-row'}>
                {headerGroup.headers.map((header) => {
                  if (depth === 0) {
                    return (
                      <th
                        key={header.id}
                        colSpan={header.colSpan}
                        className={`group-head group-${header.column.id}`}
                        scope="colgroup"
                      >
                        {header.isPlaceholder ? null : String(header.column.columnDef.header ?? '')}
                      </th>
                    );
                  }
                  return <HeaderCell key={header.id} column={header.column} />;
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {paddingTop > 0 ? (
              <tr aria-hidden="true" className="spacer">
                <td colSpan={leafColumns.length} style={{ height: paddingTop }} />
              </tr>
            ) : null}
            {virtualRows.map((virtualRow) => {
              const row = rows[virtualRow.index];
              const item = row.original;
              return (
                <ItemRow
                  key={row.id}
                  item={item}
                  columns={leafColumns}
                  colFrom={colFrom}
                  colTo={colTo}
                  editingField={editing?.itemId === item.item_id ? editing.field : null}
                  savingField={saving?.startsWith(`${item.item_id}:`) ? saving.slice(item.item_id.length + 1) : null}
                  readOnly={readOnly}
                  onStartEdit={startEdit}
                  onCancel={cancelEdit}
                  onSave={save}
                />
              );
            })}
            {paddingBottom > 0 ? (
              <tr aria-hidden="true" className="spacer">
                <td colSpan={leafColumns.length} style={{ height: paddingBottom }} />
              </tr>
            ) : null}
            {rows.length === 0 ? (
              <tr>
                <td colSpan={leafColumns.length} className="empty-row">
                  Ничего не найдено
                </td>
              </tr>
            ) : null}
          </tbody>
          <tfoot>
            <tr className="totals-row" data-testid="totals-row">
              {leafColumns.map((column) => {
                const meta = column.columnDef.meta as ColumnMeta;
                if (column.id === 'article')
                  return (
                    <td key={column.id} className="sticky-col col-article">
                      Итого по отчёту
                    </td>
                  );
                if (!meta.unit) return <td key={column.id} className={meta.className} />;
                const value = totals[column.id];
                return (
                  <td
                    key={column.id}
                    className={`num${typeof value === 'number' && value < 0 ? ' negative' : ''}`}
                    data-testid={`total-${column.id}`}
                  >
                    {formatByUnit(meta.unit, value)}
                  </td>
                );
              })}
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  );
}

function HeaderCell({ column }: { column: Column<Item, unknown> }) {
  const meta = column.columnDef.meta as ColumnMeta;
  const sorted = column.getIsSorted();
  const title = String(column.columnDef.header ?? '');
  return (
    <th
      scope="col"
      className={`${meta.unit ? 'num' : ''} ${meta.className ?? ''}${column.id === 'article' ? ' sticky-col' : ''} group-${meta.groupId}`}
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

interface ItemRowProps {
  item: Item;
  columns: Column<Item, unknown>[];
  /** Columns rendered: the first (article) and colFrom…colTo; the others are covered by spanning empty cells. */
  colFrom: number;
  colTo: number;
  editingField: string | null;
  savingField: string | null;
  readOnly?: boolean;
  onStartEdit: (itemId: string, field: string) => void;
  onCancel: () => void;
  onSave: (item: Item, field: string, value: number | null) => void;
}

const ItemRow = memo(function ItemRow({
  item,
  columns,
  colFrom,
  colTo,
  editingField,
  savingField,
  readOnly,
  onStartEdit,
  onCancel,
  onSave,
}: ItemRowProps) {
  const article = displayArticle(item.article);
  const shown = columns.filter((_, i) => i === 0 || (i >= colFrom && i <= colTo));
  const gapBefore = Math.max(0, colFrom - 1);
  const gapAfter = Math.max(0, columns.length - 1 - colTo);
  return (
    <tr data-testid={`row-${item.article}`} style={{ height: ROW_HEIGHT }}>
      {cellOf(shown[0])}
      {gapBefore > 0 ? <td key="gap-before" className="col-gap" colSpan={gapBefore} /> : null}
      {shown.slice(1).map(cellOf)}
      {gapAfter > 0 ? <td key="gap-after" className="col-gap" colSpan={gapAfter} /> : null}
    </tr>
  );

  function cellOf(column: Column<Item, unknown>) {
    const meta = column.columnDef.meta as ColumnMeta;
    const testId = `cell-${item.article}-${column.id}`;
    if (column.id === 'article') {
      return (
        <th
          key="article"
          scope="row"
          className="sticky-col col-article"
          data-testid={testId}
          title={item.brand ? `${article} · ${item.brand}` : article}
        >
          {item.article === '' ? <span className="muted">{article}</span> : article}
        </th>
      );
    }
    if (!meta.unit) {
      const text = column.id === 'nm_id' ? item.nm_id : item.category;
      return (
        <td key={column.id} className={meta.className} data-testid={testId} title={text || undefined}>
          {text}
        </td>
      );
    }
    return (
      <ValueCell
        key={column.id}
        item={item}
        field={column.id}
        unit={meta.unit}
        correctable={!readOnly && meta.correctable === true}
        editing={editingField === column.id}
        saving={savingField === column.id}
        testId={testId}
        onStartEdit={onStartEdit}
        onCancel={onCancel}
        onSave={onSave}
      />
    );
  }
});

interface ValueCellProps {
  item: Item;
  field: string;
  unit: FieldUnit;
  correctable: boolean;
  editing: boolean;
  saving: boolean;
  testId: string;
  onStartEdit: (itemId: string, field: string) => void;
  onCancel: () => void;
  onSave: (item: Item, field: string, value: number | null) => void;
}

function ValueCell({
  item,
  field,
  unit,
  correctable,
  editing,
  saving,
  testId,
  onStartEdit,
  onCancel,
  onSave,
}: ValueCellProps) {
  const value = item.effective[field];
  const manual = item.manual_values?.[field];
  const corrected = manual !== null && manual !== undefined;
  const title = FIELD_BY_NAME.get(field)?.title ?? field;
  const article = displayArticle(item.article);
  const classes = ['num'];
  if (typeof value === 'number' && value < 0) classes.push('negative');
  if (corrected) classes.push('corrected');
  if (correctable) classes.push('editable');
  if (saving) classes.push('saving');

  if (editing) {
    return (
      <td className={`${classes.join(' ')} editing`} data-testid={testId}>
        <CellEditor
          initial={editText(unit, value)}
          label={`${title}, ${article}`}
          unit={unit}
          disabled={saving}
          onCancel={onCancel}
          onCommit={(next) => {
            if (next === null) return onCancel();
            const normalised = normaliseForUnit(unit, next);
            if (typeof value === 'number' && normaliseForUnit(unit, value) === normalised) return onCancel();
            onSave(item, field, normalised);
          }}
        />
      </td>
    );
  }

  const text = formatByUnit(unit, value);
  const cellTitle = corrected
    ? `Исправлено вручную. Рассчитано: ${formatByUnit(unit, item.computed[field])}`
    : undefined;
  return (
    <td
      className={classes.join(' ')}
      data-testid={testId}
      title={cellTitle}
      data-corrected={corrected ? 'true' : undefined}
    >
      {correctable ? (
        <span className="cell-inner">
          {corrected ? (
            <button
              type="button"
              className="cell-reset"
              aria-label={`Сбросить корректировку: ${title}, ${article}`}
              title="Вернуть рассчитанное значение"
              disabled={saving}
              onClick={() => onSave(item, field, null)}
            >
              ↺
            </button>
          ) : null}
          <button
            type="button"
            className="cell-edit"
            aria-label={`Изменить: ${title}, ${article}`}
            disabled={saving}
            onClick={() => onStartEdit(item.item_id, field)}
          >
            {text}
          </button>
        </span>
      ) : (
        text
      )}
    </td>
  );
}

interface CellEditorProps {
  initial: string;
  label: string;
  unit: FieldUnit;
  disabled: boolean;
  onCommit: (value: number | null) => void;
  onCancel: () => void;
}

function CellEditor({ initial, label, unit, disabled, onCommit, onCancel }: CellEditorProps) {
  const [text, setText] = useState(initial);
  const [invalid, setInvalid] = useState(false);
  const done = useRef(false);
  // A failed save re-enables the editor: let Enter try again.
  useEffect(() => {
    if (!disabled) done.current = false;
  }, [disabled]);

  const commit = () => {
    if (done.current || disabled) return;
    if (text.trim() === '') {
      done.current = true;
      onCancel();
      return;
    }
    const parsed = parseNumberInput(text);
    if (parsed === null || (unit === 'qty' && !Number.isInteger(parsed))) {
      setInvalid(true);
      return;
    }
    done.current = true;
    onCommit(parsed);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      commit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      done.current = true;
      onCancel();
    }
  };

  return (
    <input
      className={`cell-input${invalid ? ' invalid' : ''}`}
      aria-label={label}
      aria-invalid={invalid || undefined}
      title={invalid ? (unit === 'qty' ? 'Введите целое число' : 'Введите число, например 1234,56') : undefined}
      inputMode="decimal"
      autoFocus
      value={text}
      disabled={disabled}
      onChange={(e) => {
        setText(e.target.value);
        setInvalid(false);
        done.current = false;
      }}
      onKeyDown={onKeyDown}
      onBlur={commit}
      onFocus={(e) => e.currentTarget.select()}
    />
  );
}
