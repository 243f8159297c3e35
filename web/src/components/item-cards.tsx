import { useState } from 'react';
import type { SortingState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Link } from 'react-router-dom';
import type { Item, Values } from '../api/contract';
import { displayArticle, FIELD_BY_NAME } from '../lib/fields';
import { formatByUnit } from '../lib/format';
import { nullReasonMessage } from '../../../shared/engine/fields';

/** Every card one height: the virtualiser places cards by it (styles.css .item-card agrees). */
const CARD_HEIGHT = 86;
const CARD_OVERSCAN = 4;

/** The three figures of a card, in the P&L's order. */
const CARD_FIELDS = ['realization', 'profit', 'margin'] as const;

const SORTS: ReadonlyArray<{ id: string; title: string; desc: boolean }> = [
  { id: 'realization', title: 'Реализация', desc: true },
  { id: 'profit', title: 'Прибыль', desc: true },
  { id: 'margin', title: 'Маржа', desc: true },
  { id: 'article', title: 'Артикул', desc: false },
];

export interface ItemCardsProps {
  /** The items in the table's order (search and sorting applied). */
  items: readonly Item[];
  totals: Values;
  totalsLabel: string;
  sorting: SortingState;
  onSortingChange: (sorting: SortingState) => void;
  /** The page of an article's unit economics, when the report's articles link there. */
  articleHref?: (article: string) => string;
}

/**
 * The items on a phone: one card per article — its name on up to two lines, then realization, profit and
 * margin — within the screen's width (no sideways scrolling); the totals first. Cards are virtualised
 * like the table's rows. Every column and the corrections are under «Все колонки».
 */
export function ItemCards({ items, totals, totalsLabel, sorting, onSortingChange, articleHref }: ItemCardsProps) {
  const [scrollEl, setScrollEl] = useState<HTMLDivElement | null>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollEl,
    estimateSize: () => CARD_HEIGHT,
    overscan: CARD_OVERSCAN,
  });
  const current = sorting[0]?.id ?? 'realization';
  const virtualCards = virtualizer.getVirtualItems();
  return (
    <div className="item-cards-block">
      <div className="item-card item-card-totals" data-testid="cards-totals">
        <div className="item-card-title">{totalsLabel}</div>
        <Figures values={totals} />
      </div>
      <label className="cards-sort">
        <span className="muted small">Сортировка</span>
        <select
          value={current}
          aria-label="Сортировка карточек"
          onChange={(e) => {
            const sort = SORTS.find((s) => s.id === e.target.value) ?? SORTS[0]!;
            onSortingChange([{ id: sort.id, desc: sort.desc }]);
          }}
        >
          {SORTS.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title}
            </option>
          ))}
        </select>
      </label>
      <div
        className="cards-scroll"
        ref={setScrollEl}
        data-testid="items-cards"
        style={{ height: `min(70vh, ${items.length * CARD_HEIGHT + 2}px)` }}
      >
        <ul className="item-cards" style={{ height: virtualizer.getTotalSize() }}>
          {(virtualCards.length > 0 || scrollEl
            ? virtualCards.map((v) => ({ index: v.index, start: v.start }))
            : // No layout yet (first render, or a test without one): the first cards.
              items.slice(0, 20).map((_, index) => ({ index, start: index * CARD_HEIGHT }))
          ).map(({ index, start }) => {
            const item = items[index]!;
            const article = displayArticle(item.article);
            return (
              <li
                key={item.item_id}
                className="item-card"
                data-testid={`card-${item.article}`}
                style={{ transform: `translateY(${start}px)` }}
              >
                <div className={`item-card-title${item.article === '' ? ' muted' : ''}`} title={article}>
                  {articleHref && item.article !== '' ? (
                    <Link to={articleHref(item.article)} data-testid={`ue-link-${item.article}`}>
                      {article}
                    </Link>
                  ) : (
                    article
                  )}
                </div>
                <Figures values={item.effective} reasons={item.null_reasons} testPrefix={`card-${item.article}`} />
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}

function Figures({
  values,
  testPrefix,
  reasons,
}: {
  values: Values;
  testPrefix?: string;
  reasons?: Item['null_reasons'];
}) {
  return (
    <dl className="item-card-figures">
      {CARD_FIELDS.map((field) => {
        const def = FIELD_BY_NAME.get(field)!;
        const value = values[field];
        // «—» with its reason (an article without a cost price has no margin).
        const reason = field === 'margin' ? reasons?.margin : undefined;
        const why = nullReasonMessage('margin', reason);
        return (
          <div key={field} className="item-card-figure">
            <dt>{def.title}</dt>
            <dd
              className={`figure-${def.unit}${typeof value === 'number' && value < 0 ? ' negative' : ''}`}
              data-testid={testPrefix ? `${testPrefix}-${field}` : `cards-total-${field}`}
            >
              {formatByUnit(def.unit, value)}
              {def.unit === 'money' && value !== null && value !== undefined ? ' ₽' : ''}
              {why ? (
                <small className="item-card-why" title={why}>
                  {reason === 'no_cost_price' ? 'нет себестоимости' : 'нет реализации'}
                </small>
              ) : null}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
