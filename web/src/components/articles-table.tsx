import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import {
  createColumnHelper,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { AbcLetter, AnalyticsArticle, MarginGroup } from '../api/contract';
import { displayArticle } from '../lib/fields';
import { ScrollHint } from './scroll-box';
import { articlesCount, formatInt, formatMoney, formatPercent } from '../lib/format';
import { GROUP_TITLES } from './analytics-charts';
import { SortHeader } from './sort-header';

const ROW_HEIGHT = 34;
const LETTERS: AbcLetter[] = ['A', 'B', 'C'];
const GROUPS: MarginGroup[] = ['high', 'low', 'loss'];
const GROUP_SHORT: Record<MarginGroup, string> = { high: '≥ 20 %', low: '0–20 %', loss: '< 0' };

type Unit = 'money' | 'qty' | 'percent' | 'text';
const helper = createColumnHelper<AnalyticsArticle>();
const num = (key: 'realization' | 'profit' | 'margin' | 'sales_qty' | 'returns_qty', header: string, unit: Unit) =>
  helper.accessor((r) => r[key] ?? undefined, {
    id: key,
    header,
    sortUndefined: 'last',
    sortDescFirst: true,
    meta: { unit },
  });

const COLUMNS = [
  helper.accessor((r) => r.article, {
    id: 'article',
    header: 'Артикул',
    sortingFn: 'alphanumeric',
    meta: { unit: 'text' },
  }),
  num('realization', 'Реализация, ₽', 'money'),
  num('profit', 'Прибыль, ₽', 'money'),
  num('margin', 'Маржа', 'percent'),
  num('sales_qty', 'Продажи, шт', 'qty'),
  num('returns_qty', 'Возвраты, шт', 'qty'),
  helper.accessor((r) => r.abc_revenue ?? 'Z', { id: 'abc_revenue', header: 'ABC выручка', meta: { unit: 'text' } }),
  helper.accessor((r) => r.abc_profit ?? 'Z', { id: 'abc_profit', header: 'ABC прибыль', meta: { unit: 'text' } }),
  helper.accessor((r) => (r.margin_group ? GROUPS.indexOf(r.margin_group) : 9), {
    id: 'margin_group',
    header: 'Группа маржи',
    meta: { unit: 'text' },
  }),
] as ColumnDef<AnalyticsArticle, unknown>[];

function cell(a: AnalyticsArticle, id: string) {
  switch (id) {
    case 'article':
      return displayArticle(a.article);
    case 'realization':
    case 'profit':
      return formatMoney(a[id]);
    case 'margin':
      return formatPercent(a.margin);
    case 'sales_qty':
    case 'returns_qty':
      return formatInt(a[id]);
    case 'abc_revenue':
    case 'abc_profit':
      return a[id] ? <span className={`abc abc-${a[id]}`}>{a[id]}</span> : '—';
    case 'margin_group':
      return a.margin_group ? <span className={`mg mg-${a.margin_group}`}>{GROUP_SHORT[a.margin_group]}</span> : '—';
    default:
      return null;
  }
}

function toggle<T>(set: Set<T>, v: T): Set<T> {
  const next = new Set(set);
  if (next.has(v)) next.delete(v);
  else next.add(v);
  return next;
}

/**
 * Articles over the period: sortable, searchable, filtered by ABC letters (by revenue or profit) and
 * margin group; rows virtualised; a row opens the article's weekly history.
 */
export function ArticlesTable({
  articles,
  selected,
  onSelect,
}: {
  articles: AnalyticsArticle[];
  selected: string | null;
  onSelect: (article: string) => void;
}) {
  const [search, setSearch] = useState('');
  const needle = useDeferredValue(search).trim().toLowerCase();
  const [abcBy, setAbcBy] = useState<'abc_revenue' | 'abc_profit'>('abc_revenue');
  const [letters, setLetters] = useState<Set<AbcLetter>>(new Set());
  const [groups, setGroups] = useState<Set<MarginGroup>>(new Set());
  const [sorting, setSorting] = useState<SortingState>([]);
  const scrollRef = useRef<HTMLDivElement>(null);
  // The same box as state too: its «листайте» hint shows while it is wider than the screen.
  const [scrollEl, setScrollEl] = useState<HTMLDivElement | null>(null);
  const setScroll = useCallback((el: HTMLDivElement | null) => {
    scrollRef.current = el;
    setScrollEl(el);
  }, []);

  const filtered = useMemo(
    () =>
      articles.filter(
        (a) =>
          (!needle ||
            a.article.toLowerCase().includes(needle) ||
            (a.article === '' && 'без артикула'.includes(needle))) &&
          (letters.size === 0 || (a[abcBy] !== null && letters.has(a[abcBy] as AbcLetter))) &&
          (groups.size === 0 || (a.margin_group !== null && groups.has(a.margin_group))),
      ),
    [articles, needle, letters, groups, abcBy],
  );
  const counts = useMemo(() => {
    const c: Record<string, number> = {};
    for (const a of articles) {
      if (a[abcBy]) c[a[abcBy] as string] = (c[a[abcBy] as string] ?? 0) + 1;
      if (a.margin_group) c[a.margin_group] = (c[a.margin_group] ?? 0) + 1;
    }
    return c;
  }, [articles, abcBy]);

  const table = useReactTable({
    data: filtered,
    columns: COLUMNS,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getRowId: (r) => `a:${r.article}`,
  });
  const rows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const padTop = virtualRows.length > 0 ? virtualRows[0]!.start : 0;
  const padBottom = virtualRows.length > 0 ? virtualizer.getTotalSize() - virtualRows[virtualRows.length - 1]!.end : 0;
  const columns = table.getVisibleLeafColumns();

  return (
    <div className="items-table-block">
      <div className="table-toolbar">
        <input
          type="search"
          className="search-input"
          placeholder="Поиск по артикулу"
          aria-label="Поиск по артикулу"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <span className="muted small" data-testid="articles-count">
          {articlesCount(filtered.length, articles.length)}
        </span>
      </div>
      <div className="table-toolbar chips-row">
        <div className="tabs" role="tablist" aria-label="ABC по">
          {(['abc_revenue', 'abc_profit'] as const).map((k) => (
            <button
              key={k}
              type="button"
              role="tab"
              aria-selected={abcBy === k}
              className={abcBy === k ? 'tab active' : 'tab'}
              onClick={() => setAbcBy(k)}
            >
              {k === 'abc_revenue' ? 'ABC по выручке' : 'ABC по прибыли'}
            </button>
          ))}
        </div>
        <div className="group-toggles" role="group" aria-label="Фильтр ABC">
          {LETTERS.map((l) => (
            <label key={l} className={`chip${letters.has(l) ? ' chip-on' : ''}`} data-testid={`chip-abc-${l}`}>
              <input type="checkbox" checked={letters.has(l)} onChange={() => setLetters((s) => toggle(s, l))} />
              {l} · {formatInt(counts[l] ?? 0)}
            </label>
          ))}
        </div>
        <div className="group-toggles" role="group" aria-label="Фильтр групп маржи">
          {GROUPS.map((g) => (
            <label key={g} className={`chip${groups.has(g) ? ' chip-on' : ''}`} data-testid={`chip-mg-${g}`}>
              <input type="checkbox" checked={groups.has(g)} onChange={() => setGroups((s) => toggle(s, g))} />
              {GROUP_TITLES[g]} · {formatInt(counts[g] ?? 0)}
            </label>
          ))}
        </div>
      </div>
      <ScrollHint el={scrollEl} />
      <div
        className="table-scroll"
        ref={setScroll}
        data-testid="articles-table"
        style={{ height: `min(60vh, 620px, ${rows.length * ROW_HEIGHT + 80}px)` }}
      >
        <table className="items-table articles-table" aria-rowcount={rows.length + 1}>
          <thead>
            <tr className="header-row">
              {columns.map((column) => (
                <SortHeader
                  key={column.id}
                  column={column}
                  className={`${(column.columnDef.meta as { unit: Unit }).unit === 'text' ? '' : 'num'}${column.id === 'article' ? ' sticky-col col-article' : ''}`}
                />
              ))}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 ? (
              <tr aria-hidden="true" className="spacer">
                <td colSpan={columns.length} style={{ height: padTop }} />
              </tr>
            ) : null}
            {virtualRows.map((v) => {
              const a = rows[v.index]!.original;
              return (
                <tr
                  key={rows[v.index]!.id}
                  className={`article-row${selected === a.article ? ' selected' : ''}`}
                  data-testid="article-row"
                  data-article={a.article}
                >
                  {columns.map((c) => {
                    const unit = (c.columnDef.meta as { unit: Unit }).unit;
                    const value = c.id === 'profit' || c.id === 'margin' ? a[c.id] : null;
                    if (c.id === 'article')
                      return (
                        <th key={c.id} scope="row" className="sticky-col col-article">
                          <button
                            type="button"
                            className="link-button"
                            onClick={() => onSelect(a.article)}
                            title="Показать прибыль по неделям"
                          >
                            {displayArticle(a.article)}
                          </button>
                        </th>
                      );
                    return (
                      <td
                        key={c.id}
                        className={`${unit === 'text' ? 'center' : 'num'}${typeof value === 'number' && value < 0 ? ' negative' : ''}`}
                        data-col={c.id}
                      >
                        {cell(a, c.id)}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
            {padBottom > 0 ? (
              <tr aria-hidden="true" className="spacer">
                <td colSpan={columns.length} style={{ height: padBottom }} />
              </tr>
            ) : null}
            {rows.length === 0 ? (
              <tr>
                <td colSpan={columns.length} className="empty-row">
                  Ничего не найдено
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </div>
  );
}
