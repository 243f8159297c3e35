import {
  memo,
  useCallback,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from 'react';
import {
  createColumnHelper,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type Column,
  type ColumnDef,
  type Row,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Link } from 'react-router-dom';
import { isUnknownRate, nullReasonMessage } from '../../../shared/engine/fields';
import { computeTotals } from '../../../shared/engine/totals';
import type { Item, Values } from '../api/contract';
import {
  COLUMN_GROUPS,
  displayArticle,
  FIELD_BY_NAME,
  FIELDS,
  kopecksToRoubles,
  MAIN_FIELDS,
  roublesToKopecks,
  type FieldUnit,
  type FieldName,
} from '../lib/fields';
import { articlesCount, editText, formatByUnit, formatInt, normaliseForUnit, parseNumberInput } from '../lib/format';
import { useNarrowScreen } from '../lib/use-narrow-screen';
import { ErrorMessage } from './error-message';
import { ItemCards } from './item-cards';
import { ScrollHint } from './scroll-box';
import { SortHeader } from './sort-header';

const ROW_HEIGHT = 34;
/**
 * Rows rendered beyond the visible ones on each side. Rows render in the scroll event itself (the
 * virtualiser flushes synchronously), so a fast scroll shows no blank rows; more would only add DOM.
 */
const ROW_OVERSCAN = 6;

interface ColumnMeta {
  unit?: FieldUnit;
  correctable?: boolean;
  groupId: string;
  className?: string;
}

export interface ItemsTableProps {
  items: Item[];
  totals: Values;
  /**
   * Saves a manual value (roubles for money, null resets); rejects with an ApiError on failure. Resolves
   * with the item as the API answered it, so the table can say what changed downstream.
   */
  onSave: (item: Item, field: string, value: number | null) => Promise<Item | void>;
  readOnly?: boolean;
  /** The page of an article's unit economics, when the report's articles link there. */
  articleHref?: (article: string) => string;
}

const helper = createColumnHelper<Item>();

/** The column presets: «Главное» (a few columns; on a phone, a card per article) and «Все колонки». */
type ColumnPreset = 'main' | 'all';

function valueGroup(group: { id: string; title: string; fields: readonly string[] }) {
  return helper.group({
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
  });
}

/**
 * The table's columns, read like a P&L: the (sticky) article, the result right beside it, the card's
 * WB code and category, then the rest (COLUMN_GROUPS). «Главное» keeps the article and MAIN_FIELDS.
 */
function buildColumns(preset: ColumnPreset): ColumnDef<Item, unknown>[] {
  const articleGroup = helper.group({
    id: 'item',
    header: 'Товар',
    columns: [
      helper.accessor((row) => row.article, {
        id: 'article',
        header: 'Артикул',
        meta: { groupId: 'item', className: 'col-article' } satisfies ColumnMeta,
        sortingFn: 'alphanumeric',
      }),
    ],
  });
  if (preset === 'main')
    return [articleGroup, valueGroup({ id: 'main', title: 'Главное', fields: MAIN_FIELDS })] as ColumnDef<
      Item,
      unknown
    >[];
  const cardGroup = helper.group({
    id: 'card',
    header: 'Карточка',
    columns: [
      helper.accessor((row) => row.nm_id, {
        id: 'nm_id',
        header: 'Код WB',
        meta: { groupId: 'card', className: 'col-nm' } satisfies ColumnMeta,
      }),
      helper.accessor((row) => row.category, {
        id: 'category',
        header: 'Категория',
        meta: { groupId: 'card', className: 'col-category' } satisfies ColumnMeta,
      }),
    ],
  });
  const [result, ...rest] = COLUMN_GROUPS.map(valueGroup);
  return [articleGroup, result!, cardGroup, ...rest] as ColumnDef<Item, unknown>[];
}

const COLUMNS: Record<ColumnPreset, ColumnDef<Item, unknown>[]> = {
  main: buildColumns('main'),
  all: buildColumns('all'),
};

/** The table's first order: realization, largest first. */
const DEFAULT_SORTING: SortingState = [{ id: 'realization', desc: true }];

/** Pixels of columns rendered beyond the visible part: to the left, and (more) to the right, where reading goes. */
const COLUMN_OVERSCAN_LEFT_PX = 320;
const COLUMN_OVERSCAN_RIGHT_PX = 1000;
/**
 * The scroll position the column window follows, in steps of this many pixels: a sideways scroll
 * re-renders the table once a step, not once an event (the overscan covers the step).
 */
const COLUMN_STEP_PX = 80;

/**
 * The window of columns to render, [from, to] by index (column 0, the sticky article, is always
 * rendered). Without a measured width (no layout, e.g. tests in happy-dom) every column.
 */
export function columnWindow(
  columns: ReadonlyArray<Column<Item, unknown>>,
  left: number,
  width: number,
  narrow = isNarrow(width),
): [number, number] {
  if (width <= 0 || columns.length <= 1) return [1, columns.length - 1];
  const lo = left - COLUMN_OVERSCAN_LEFT_PX;
  const hi = left + width + COLUMN_OVERSCAN_RIGHT_PX;
  let x = columnWidth(columns[0]!, narrow);
  let from = -1;
  let to = columns.length - 1;
  for (let i = 1; i < columns.length; i++) {
    const w = columnWidth(columns[i]!, narrow);
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
/** On a phone the sticky article column is capped (styles.css, max-width 640px) so the figures keep the screen. */
const NARROW_ARTICLE_WIDTH = 110;
/** A table box this narrow (measured, in px) is a phone's: the article column takes NARROW_ARTICLE_WIDTH. */
const NARROW_BOX_PX = 600;
const isNarrow = (boxWidth: number) => boxWidth > 0 && boxWidth < NARROW_BOX_PX;
function columnWidth(column: Column<Item, unknown>, narrow = false): number {
  if (narrow && column.id === 'article') return NARROW_ARTICLE_WIDTH;
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
export function ItemsTable({ items, totals, onSave, readOnly, articleHref }: ItemsTableProps) {
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);
  // Read like a P&L: the articles that sell most first (a click on any header reorders).
  const [sorting, setSorting] = useState<SortingState>(DEFAULT_SORTING);
  const [choice, setChoice] = useState<ColumnChoice>(loadColumnChoice);
  const hiddenGroups = useMemo(() => new Set(choice.hiddenGroups), [choice.hiddenGroups]);
  const [editing, setEditing] = useState<EditState | null>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [lastChange, setLastChange] = useState<CorrectionChange | null>(null);
  // The scroll box as state: the body's virtualiser (a child) needs it on its next render.
  const [scrollEl, setScrollEl] = useState<HTMLDivElement | null>(null);

  useEffect(() => saveColumnChoice(choice), [choice]);
  // Until the seller picks a preset: every column on a wide screen, the cards on a phone.
  const narrowScreen = useNarrowScreen();
  const preset: ColumnPreset = choice.preset ?? (narrowScreen ? 'main' : 'all');
  const cards = narrowScreen && preset === 'main';

  const needle = deferredSearch.trim().toLowerCase();
  const filtered = useMemo(() => (needle ? items.filter((item) => matches(item, needle)) : items), [items, needle]);
  const shownTotals = useMemo(() => (needle ? totalsOf(filtered) : totals), [needle, filtered, totals]);

  const zeroFields = useMemo(() => allZeroFields(items, totals), [items, totals]);

  const columnVisibility = useMemo(() => {
    const visibility: Record<string, boolean> = {};
    if (preset === 'main') {
      for (const f of MAIN_FIELDS) visibility[f] = choice.showZero || !zeroFields.has(f);
      return visibility;
    }
    for (const group of COLUMN_GROUPS)
      for (const f of group.fields)
        visibility[f] = !hiddenGroups.has(group.id) && (choice.showZero || !zeroFields.has(f));
    return visibility;
  }, [preset, hiddenGroups, choice.showZero, zeroFields]);

  const table = useReactTable({
    data: filtered,
    columns: COLUMNS[preset],
    state: { sorting, columnVisibility },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (row) => row.item_id,
  });

  const rows = table.getRowModel().rows;
  const leafColumns = table.getVisibleLeafColumns();

  // Columns are windowed too: a row renders the sticky article cell, the columns near the visible
  // part (COLUMN_OVERSCAN_*_PX) and one empty cell spanning each side's others.
  const [view, setView] = useState({ left: 0, width: 0 });
  useEffect(() => {
    const el = scrollEl;
    if (!el) return;
    const update = () => {
      const left = Math.floor(el.scrollLeft / COLUMN_STEP_PX) * COLUMN_STEP_PX;
      const width = el.clientWidth;
      setView((v) => (v.left === left && v.width === width ? v : { left, width }));
    };
    // A vertical scroll changes neither: the width is read on resize only.
    const onScroll = () => {
      const left = Math.floor(el.scrollLeft / COLUMN_STEP_PX) * COLUMN_STEP_PX;
      setView((v) => (v.left === left ? v : { ...v, left }));
    };
    update();
    el.addEventListener('scroll', onScroll, { passive: true });
    const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update);
    resize?.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      resize?.disconnect();
    };
  }, [scrollEl]);
  const narrow = isNarrow(view.width);
  const [colFrom, colTo] = useMemo(
    () => columnWindow(leafColumns, view.left, view.width, narrow),
    [leafColumns, view.left, view.width, narrow],
  );
  const tableWidth = useMemo(() => leafColumns.reduce((w, c) => w + columnWidth(c, narrow), 0), [leafColumns, narrow]);

  const save = useCallback(
    async (item: Item, field: string, value: number | null) => {
      const key = `${item.item_id}:${field}`;
      setSaving(key);
      setSaveError(null);
      setLastChange(null);
      try {
        const after = await onSave(item, field, value);
        setEditing(null);
        if (after) setLastChange({ field, before: item, after });
      } catch (e) {
        setSaveError(e);
      } finally {
        setSaving(null);
      }
    },
    [onSave],
  );

  const itemById = useMemo(() => new Map(items.map((i) => [i.item_id, i])), [items]);

  const startEdit = useCallback(
    (itemId: string, field: string) => {
      setSaveError(null);
      const item = itemById.get(itemId);
      const unit = FIELD_BY_NAME.get(field)?.unit ?? 'money';
      setEditing({ itemId, field, text: editText(unit, item?.effective[field]), invalid: null });
    },
    [itemById],
  );
  const cancelEdit = useCallback(() => setEditing(null), []);
  const changeDraft = useCallback(
    (text: string) => setEditing((prev) => (prev ? { ...prev, text, invalid: null } : prev)),
    [],
  );

  /** Enter, the editor's «Сохранить» or leaving the input: check the draft, then save it (or nothing when unchanged). */
  const commitEdit = useCallback(() => {
    if (!editing || saving) return;
    const item = itemById.get(editing.itemId);
    if (!item) return setEditing(null);
    const unit = FIELD_BY_NAME.get(editing.field)?.unit ?? 'money';
    if (editing.text.trim() === '') return setEditing(null);
    const parsed = parseNumberInput(editing.text);
    const problem = inputProblem(unit, parsed);
    if (problem || parsed === null) {
      setEditing({ ...editing, invalid: problem ?? 'Введите число' });
      return;
    }
    const normalised = normaliseForUnit(unit, parsed);
    const value = item.effective[editing.field];
    if (typeof value === 'number' && normaliseForUnit(unit, value) === normalised) return setEditing(null);
    void save(item, editing.field, normalised);
  }, [editing, saving, itemById, save]);

  // One object of handlers for every row, the same for the table's life: a row re-renders only when
  // its own item, its editing state or the column window changes, never because the table did.
  const latest = useRef({ changeDraft, commitEdit, startEdit, cancelEdit, save });
  useLayoutEffect(() => {
    latest.current = { changeDraft, commitEdit, startEdit, cancelEdit, save };
  });
  const actions = useMemo<RowActions>(
    () => ({
      onDraft: (text) => latest.current.changeDraft(text),
      onCommit: () => latest.current.commitEdit(),
      onStartEdit: (itemId, field) => latest.current.startEdit(itemId, field),
      onCancel: () => latest.current.cancelEdit(),
      onSave: (item, field, value) => void latest.current.save(item, field, value),
    }),
    [],
  );

  const toggleGroup = (id: string) =>
    setChoice((prev) => ({
      ...prev,
      hiddenGroups: prev.hiddenGroups.includes(id)
        ? prev.hiddenGroups.filter((g) => g !== id)
        : [...prev.hiddenGroups, id],
    }));

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
          {articlesCount(filtered.length, items.length)}
          {correctedCount > 0 ? ` · исправлено вручную: ${correctedCount}` : ''}
        </span>
        <div className="preset-toggles" role="group" aria-label="Набор колонок">
          {PRESETS.map((p) => (
            <button
              key={p.id}
              type="button"
              className={`chip${preset === p.id ? ' chip-on' : ''}`}
              aria-pressed={preset === p.id}
              data-testid={`preset-${p.id}`}
              onClick={() => setChoice((prev) => ({ ...prev, preset: p.id }))}
            >
              {p.title}
            </button>
          ))}
        </div>
        <div className="group-toggles" role="group" aria-label="Группы колонок">
          {(preset === 'all' ? COLUMN_GROUPS : []).map((g) => (
            <label key={g.id} className={`chip${hiddenGroups.has(g.id) ? '' : ' chip-on'}`}>
              <input type="checkbox" checked={!hiddenGroups.has(g.id)} onChange={() => toggleGroup(g.id)} />
              {g.title}
            </label>
          ))}
          {zeroFields.size > 0 && !cards ? (
            <label className={`chip${choice.showZero ? ' chip-on' : ''}`} data-testid="show-zero-columns">
              <input
                type="checkbox"
                checked={choice.showZero}
                onChange={() => setChoice((prev) => ({ ...prev, showZero: !prev.showZero }))}
              />
              {choice.showZero
                ? `Нулевые колонки показаны (${zeroFields.size})`
                : `Показать нулевые колонки (${zeroFields.size})`}
            </label>
          ) : null}
        </div>
      </div>
      {!readOnly && !cards ? (
        <p className="muted small table-hint" data-testid="correction-hint">
          Числа с пунктирным подчёркиванием можно исправить: нажмите на ячейку, введите значение (в рублях для денег) и
          нажмите «Сохранить» или Enter. Исправленные ячейки подсвечены; рассчитанное значение показано в редакторе
          ячейки.
        </p>
      ) : null}
      {editing ? (
        <EditorPanel
          editing={editing}
          item={itemById.get(editing.itemId)}
          saving={saving !== null}
          onSave={commitEdit}
          onReset={() => {
            const item = itemById.get(editing.itemId);
            if (item) void save(item, editing.field, null);
          }}
          onCancel={cancelEdit}
        />
      ) : null}
      {lastChange && !editing ? <ChangeNote change={lastChange} onClose={() => setLastChange(null)} /> : null}
      <ErrorMessage error={saveError} testId="cell-save-error" />
      {cards ? (
        <ItemCards
          items={rows.map((r) => r.original)}
          totals={shownTotals}
          totalsLabel={needle ? `Итого по найденным (${formatInt(filtered.length)})` : 'Итого по отчёту'}
          sorting={sorting}
          onSortingChange={setSorting}
          articleHref={articleHref}
        />
      ) : (
        <ScrollHint el={scrollEl} />
      )}
      {cards ? null : (
        <div
          className="table-scroll"
          ref={setScrollEl}
          data-testid="items-table"
          // Few articles: no empty box under the totals row (room for the two header rows and the totals).
          style={{ height: `min(70vh, 760px, ${rows.length * ROW_HEIGHT + 150}px)` }}
        >
          <table className="items-table" aria-rowcount={rows.length + 1} style={{ width: tableWidth }}>
            {/* Fixed column widths (table-layout: fixed): rows mounted while scrolling never re-measure the table. */}
            <colgroup>
              {leafColumns.map((column) => (
                <col key={column.id} style={{ width: columnWidth(column, narrow) }} />
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
            <ItemsBody
              rows={rows}
              columns={leafColumns}
              colFrom={colFrom}
              colTo={colTo}
              scrollEl={scrollEl}
              editing={editing}
              saving={saving}
              readOnly={readOnly}
              actions={actions}
              articleHref={articleHref}
            />
            <tfoot>
              <tr className="totals-row" data-testid="totals-row">
                {leafColumns.map((column) => {
                  const meta = column.columnDef.meta as ColumnMeta;
                  if (column.id === 'article')
                    return (
                      <td key={column.id} className="sticky-col col-article" data-testid="totals-label">
                        {needle ? `Итого по найденным (${formatInt(filtered.length)})` : 'Итого по отчёту'}
                      </td>
                    );
                  if (!meta.unit) return <td key={column.id} className={meta.className} />;
                  const value = shownTotals[column.id];
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
      )}
      {rows.length === 0 ? (
        // Outside the scrolling box: visible however far the table is scrolled sideways.
        <div className="empty-state table-empty" role="status" data-testid="items-empty">
          Ничего не найдено{needle ? ` по запросу «${deferredSearch.trim()}»` : ''}
        </div>
      ) : null}
    </div>
  );
}

function HeaderCell({ column }: { column: Column<Item, unknown> }) {
  const meta = column.columnDef.meta as ColumnMeta;
  return (
    <SortHeader
      column={column}
      className={`${meta.unit ? 'num' : ''} ${meta.className ?? ''}${column.id === 'article' ? ' sticky-col' : ''} group-${meta.groupId}`}
    />
  );
}

/** What a row's cells do; one stable object for the table's life (see ItemsTable). */
interface RowActions {
  onDraft: (text: string) => void;
  onCommit: () => void;
  onStartEdit: (itemId: string, field: string) => void;
  onCancel: () => void;
  onSave: (item: Item, field: string, value: number | null) => void;
}

interface ItemsBodyProps {
  rows: Row<Item>[];
  columns: Column<Item, unknown>[];
  colFrom: number;
  colTo: number;
  scrollEl: HTMLDivElement | null;
  editing: EditState | null;
  saving: string | null;
  readOnly?: boolean;
  actions: RowActions;
  articleHref?: (article: string) => string;
}

/**
 * The rows near the visible part of the scroll box. Its own component with the virtualiser, so that a
 * vertical scroll re-renders this body alone (not the header, the footer or the toolbar), and rows
 * already on screen are skipped (memoised ItemRow).
 */
const ItemsBody = memo(function ItemsBody({
  rows,
  columns,
  colFrom,
  colTo,
  scrollEl,
  editing,
  saving,
  readOnly,
  actions,
  articleHref,
}: ItemsBodyProps) {
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollEl,
    estimateSize: () => ROW_HEIGHT,
    overscan: ROW_OVERSCAN,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const paddingTop = virtualRows.length > 0 ? virtualRows[0]!.start : 0;
  const paddingBottom =
    virtualRows.length > 0 ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1]!.end : 0;
  return (
    <tbody>
      {paddingTop > 0 ? (
        <tr aria-hidden="true" className="spacer">
          <td colSpan={columns.length} style={{ height: paddingTop }} />
        </tr>
      ) : null}
      {virtualRows.map((virtualRow) => {
        const row = rows[virtualRow.index]!;
        const item = row.original;
        const mine = editing?.itemId === item.item_id ? editing : null;
        return (
          <ItemRow
            key={row.id}
            item={item}
            columns={columns}
            colFrom={colFrom}
            colTo={colTo}
            editing={mine}
            savingField={saving?.startsWith(`${item.item_id}:`) ? saving.slice(item.item_id.length + 1) : null}
            readOnly={readOnly}
            actions={actions}
            articleHref={articleHref}
          />
        );
      })}
      {paddingBottom > 0 ? (
        <tr aria-hidden="true" className="spacer">
          <td colSpan={columns.length} style={{ height: paddingBottom }} />
        </tr>
      ) : null}
    </tbody>
  );
});

interface ItemRowProps {
  item: Item;
  columns: Column<Item, unknown>[];
  /** Columns rendered: the first (article) and colFrom…colTo; the others are covered by spanning empty cells. */
  colFrom: number;
  colTo: number;
  /** The open editor, when it is in this row. */
  editing: EditState | null;
  savingField: string | null;
  readOnly?: boolean;
  actions: RowActions;
  articleHref?: (article: string) => string;
}

const ItemRow = memo(function ItemRow({
  item,
  columns,
  colFrom,
  colTo,
  editing,
  savingField,
  readOnly,
  actions,
  articleHref,
}: ItemRowProps) {
  const article = displayArticle(item.article);
  const shown = columns.filter((_, i) => i === 0 || (i >= colFrom && i <= colTo));
  const gapBefore = Math.max(0, colFrom - 1);
  const gapAfter = Math.max(0, columns.length - 1 - colTo);
  return (
    <tr data-testid={`row-${item.article}`} className="item-row">
      {cellOf(shown[0]!)}
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
          {articleHref && item.article !== '' ? (
            <Link className="article-name" to={articleHref(item.article)} data-testid={`ue-link-${item.article}`}>
              {article}
            </Link>
          ) : (
            <span className={`article-name${item.article === '' ? ' muted' : ''}`}>{article}</span>
          )}
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
        draft={editing?.field === column.id ? editing : null}
        saving={savingField === column.id}
        testId={testId}
        actions={actions}
      />
    );
  }
});

interface ValueCellProps {
  item: Item;
  field: string;
  unit: FieldUnit;
  correctable: boolean;
  /** The open editor, when it is on this cell. */
  draft: EditState | null;
  saving: boolean;
  testId: string;
  actions: RowActions;
}

/** Cell text per item and field, formatted once (a row mounts again each time it scrolls back in). */
const cellTexts = new WeakMap<Item, Map<string, string>>();
function cellText(item: Item, field: string, unit: FieldUnit): string {
  let texts = cellTexts.get(item);
  if (!texts) cellTexts.set(item, (texts = new Map()));
  let text = texts.get(field);
  if (text === undefined)
    texts.set(field, (text = isUnknownRate(field, item.effective) ? '—' : formatByUnit(unit, item.effective[field])));
  return text;
}

const ValueCell = memo(function ValueCell({
  item,
  field,
  unit,
  correctable,
  draft,
  saving,
  testId,
  actions,
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

  if (draft) {
    return (
      <td className={`${classes.join(' ')} editing`} data-testid={testId}>
        <CellEditor
          text={draft.text}
          invalid={draft.invalid !== null}
          label={`${title}, ${article}`}
          disabled={saving}
          onChange={actions.onDraft}
          onCancel={actions.onCancel}
          onCommit={actions.onCommit}
        />
      </td>
    );
  }

  const text = cellText(item, field, unit);
  // A correctable cell is one button (no wrapper) unless it also has the reset button.
  const editButton = correctable ? (
    <button
      type="button"
      className="cell-edit"
      aria-label={`Изменить: ${title}, ${article}`}
      disabled={saving}
      onClick={() => actions.onStartEdit(item.item_id, field)}
    >
      {text}
    </button>
  ) : null;
  const cellTitle = corrected
    ? `Исправлено вручную. Рассчитано: ${formatByUnit(unit, item.computed[field])}`
    : field === 'roi' || field === 'margin'
      ? (nullReasonMessage(field, item.null_reasons[field]) ?? undefined)
      : undefined;
  return (
    <td
      className={classes.join(' ')}
      data-testid={testId}
      title={cellTitle}
      data-corrected={corrected ? 'true' : undefined}
    >
      {!correctable ? (
        text
      ) : corrected ? (
        <span className="cell-inner">
          <button
            type="button"
            className="cell-reset"
            aria-label={`Сбросить корректировку: ${title}, ${article}`}
            title="Вернуть рассчитанное значение"
            disabled={saving}
            onClick={() => actions.onSave(item, field, null)}
          >
            ↺
          </button>
          {editButton}
        </span>
      ) : (
        editButton
      )}
    </td>
  );
});

interface CellEditorProps {
  text: string;
  invalid: boolean;
  label: string;
  disabled: boolean;
  onChange: (text: string) => void;
  onCommit: () => void;
  onCancel: () => void;
}

/** The input in the cell; what it means (computed value, a refusal, the buttons) is in the editor panel. */
function CellEditor({ text, invalid, label, disabled, onChange, onCommit, onCancel }: CellEditorProps) {
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      onCommit();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    }
  };

  return (
    <input
      className={`cell-input${invalid ? ' invalid' : ''}`}
      aria-label={label}
      aria-invalid={invalid || undefined}
      aria-describedby={EDITOR_PANEL_ID}
      inputMode="decimal"
      autoFocus
      value={text}
      disabled={disabled}
      onChange={(e) => onChange(e.target.value)}
      onKeyDown={onKeyDown}
      onBlur={(e) => {
        // Moving to the editor panel's buttons is not leaving the editor.
        const next = e.relatedTarget as Node | null;
        if (next && document.getElementById(EDITOR_PANEL_ID)?.contains(next)) return;
        onCommit();
      }}
      onFocus={(e) => e.currentTarget.select()}
    />
  );
}

const EDITOR_PANEL_ID = 'cell-editor-panel';

interface EditState {
  itemId: string;
  field: string;
  text: string;
  /** Why the draft cannot be saved; shown as an error in the editor panel. */
  invalid: string | null;
}

function inputProblem(unit: FieldUnit, parsed: number | null): string | null {
  if (parsed === null) return unit === 'qty' ? 'Введите целое число, например 12' : 'Введите число, например 1234,56';
  if (unit === 'qty' && !Number.isInteger(parsed)) return 'Введите целое число, например 12';
  return null;
}

/**
 * The open cell editor's panel: which cell, its computed value (and the correction, if any), a
 * refusal shown as an error, and buttons that work by tap as well as Enter and Escape.
 */
function EditorPanel({
  editing,
  item,
  saving,
  onSave,
  onReset,
  onCancel,
}: {
  editing: EditState;
  item: Item | undefined;
  saving: boolean;
  onSave: () => void;
  onReset: () => void;
  onCancel: () => void;
}) {
  if (!item) return null;
  const def = FIELD_BY_NAME.get(editing.field);
  const unit = def?.unit ?? 'money';
  const manual = item.manual_values?.[editing.field];
  const corrected = manual !== null && manual !== undefined;
  const keep = (e: { preventDefault: () => void }) => e.preventDefault();
  return (
    <div
      className="editor-panel"
      id={EDITOR_PANEL_ID}
      role="group"
      aria-label="Исправление ячейки"
      data-testid="editor-panel"
    >
      <div className="editor-panel-text">
        <strong>{def?.title ?? editing.field}</strong> · {displayArticle(item.article)}
        <span className="editor-computed" data-testid="editor-computed">
          Рассчитано: {withUnit(unit, item.computed[editing.field])}
          {corrected ? ` · исправлено на ${withUnit(unit, manual)}` : ''}
        </span>
      </div>
      {editing.invalid ? (
        <div className="editor-error" role="alert" data-testid="editor-error">
          {editing.invalid}
        </div>
      ) : null}
      <div className="editor-buttons">
        <button
          type="button"
          className="btn btn-primary btn-small"
          onMouseDown={keep}
          onClick={onSave}
          disabled={saving}
        >
          {saving ? 'Сохраняем…' : 'Сохранить'}
        </button>
        {corrected ? (
          <button type="button" className="btn btn-small" onMouseDown={keep} onClick={onReset} disabled={saving}>
            Вернуть рассчитанное
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onMouseDown={keep}
          onClick={onCancel}
          disabled={saving}
        >
          Отмена
        </button>
      </div>
    </div>
  );
}

function withUnit(unit: FieldUnit, value: number | null | undefined): string {
  const text = formatByUnit(unit, value);
  if (text === '—') return text;
  return unit === 'money' ? `${text} ₽` : unit === 'qty' ? `${text} шт` : text;
}

interface CorrectionChange {
  field: string;
  before: Item;
  after: Item;
}

/** What the article's result fields became after a correction. */
const DOWNSTREAM: ReadonlyArray<{ field: string; label: string }> = [
  { field: 'profit', label: 'прибыль' },
  { field: 'margin', label: 'маржа' },
  { field: 'payout', label: 'к выплате' },
];

/** After a correction: the cell's change and what followed from it for the article (profit, margin, payout). */
function ChangeNote({ change, onClose }: { change: CorrectionChange; onClose: () => void }) {
  const def = FIELD_BY_NAME.get(change.field);
  const unit = def?.unit ?? 'money';
  const same = (a: number | null | undefined, b: number | null | undefined) =>
    Math.round((a ?? 0) * 100) === Math.round((b ?? 0) * 100) && (a === null) === (b === null);
  const moved = DOWNSTREAM.filter(
    (d) => d.field !== change.field && !same(change.before.effective[d.field], change.after.effective[d.field]),
  );
  return (
    <div className="alert alert-info change-note" role="status" data-testid="correction-change">
      <div>
        <strong>{displayArticle(change.after.article)}</strong> · {def?.title ?? change.field}:{' '}
        {withUnit(unit, change.before.effective[change.field])} → {withUnit(unit, change.after.effective[change.field])}
        .
      </div>
      <div>
        {moved.length === 0
          ? 'Прибыль, маржа и сумма к выплате по артикулу не изменились.'
          : `Отсюда: ${moved
              .map((d) => {
                const u = FIELD_BY_NAME.get(d.field)?.unit ?? 'money';
                return `${d.label} ${withUnit(u, change.before.effective[d.field])} → ${withUnit(u, change.after.effective[d.field])}`;
              })
              .join('; ')}.`}
      </div>
      <button type="button" className="link-button" onClick={onClose}>
        Скрыть
      </button>
    </div>
  );
}

/** Fields whose every item value (and total) is zero or empty: hidden unless the seller asks for them. */
export function allZeroFields(items: readonly Item[], totals: Values): Set<string> {
  const out = new Set<string>();
  for (const group of COLUMN_GROUPS) {
    for (const f of group.fields) {
      const zero = (v: number | null | undefined) => v === null || v === undefined || v === 0;
      if (zero(totals[f]) && items.every((i) => zero(i.effective[f]))) out.add(f);
    }
  }
  return out;
}

/**
 * Totals of some items (the rows a search leaves), as the server builds the report's totals: each money value
 * back to integer kopecks, the engine's computeTotals (integer sums, ratios recomputed from the sums), roubles
 * once at the end — so a filtered total of every row equals the report's total to the kopeck.
 */
export function totalsOf(items: readonly Item[]): Values {
  const rows = items.map((it) => {
    const v = {} as Record<FieldName, number | null>;
    for (const def of FIELDS) {
      const x = it.effective[def.name];
      v[def.name] = x === null || x === undefined ? null : def.unit === 'money' ? roublesToKopecks(x) : x;
    }
    return v;
  });
  const sums = computeTotals(rows);
  const t: Values = {};
  for (const def of FIELDS) {
    const x = sums[def.name];
    t[def.name] = x === null ? null : def.unit === 'money' ? kopecksToRoubles(x) : x;
  }
  return t;
}

/** The seller's column choice (groups shown, zero columns shown), kept in this browser. */
export const COLUMNS_KEY = 'svc_columns';

interface ColumnChoice {
  hiddenGroups: string[];
  showZero: boolean;
  /** The preset the seller picked; none yet: «Все колонки» on a wide screen, «Главное» (cards) on a phone. */
  preset?: ColumnPreset;
}

const PRESETS: ReadonlyArray<{ id: ColumnPreset; title: string }> = [
  { id: 'main', title: 'Главное' },
  { id: 'all', title: 'Все колонки' },
];

function loadColumnChoice(): ColumnChoice {
  try {
    const raw = window.localStorage.getItem(COLUMNS_KEY);
    const parsed = raw ? (JSON.parse(raw) as Partial<ColumnChoice>) : {};
    const known = new Set(COLUMN_GROUPS.map((g) => g.id));
    return {
      hiddenGroups: Array.isArray(parsed.hiddenGroups)
        ? parsed.hiddenGroups.filter((g): g is string => typeof g === 'string' && known.has(g))
        : [],
      showZero: parsed.showZero === true,
      preset: parsed.preset === 'main' || parsed.preset === 'all' ? parsed.preset : undefined,
    };
  } catch {
    return { hiddenGroups: [], showZero: false };
  }
}

function saveColumnChoice(choice: ColumnChoice): void {
  try {
    window.localStorage.setItem(COLUMNS_KEY, JSON.stringify(choice));
  } catch {
    // storage full or disabled: the choice lasts this visit only
  }
}
