import { useState } from 'react';
import type { Item } from '../api/contract';
import { marginAtPrice, priceForMargin, unitEconomicsOf } from '../../../shared/engine/target-price';
import { displayArticle } from '../lib/fields';
import { formatPercent, formatRub, parseNumberInput } from '../lib/format';

/** API roubles → the engine's kopecks for the money fields unitEconomicsOf reads. */
const kop = (v: number | null | undefined) => Math.round((v ?? 0) * 100);

/**
 * «Цена для целевой маржи»: pick an article of the report, type a margin — the price that gives it; or type a
 * price — the margin at it (docs/METRICS.md «Price for a target margin»).
 */
export function TargetPriceCalculator({ items }: { items: Item[] }) {
  const sold = items.filter((i) => (i.effective.net_qty ?? 0) > 0 && (i.effective.realization ?? 0) > 0);
  const [article, setArticle] = useState(sold[0]?.article ?? '');
  const [margin, setMargin] = useState('20');
  const [price, setPrice] = useState('');
  if (sold.length === 0) return null;
  const item = sold.find((i) => i.article === article) ?? sold[0]!;
  const e = item.effective;
  const u = unitEconomicsOf({
    realization: kop(e.realization),
    net_qty: e.net_qty ?? 0,
    commission: kop(e.commission),
    acquiring: kop(e.acquiring),
    logistics: kop(e.logistics),
    reverse_logistics: kop(e.reverse_logistics),
    ads: kop(e.ads),
    vat: kop(e.vat),
    usn: kop(e.usn),
    cost_price: kop(e.cost_price),
    own_cost_price: kop(e.own_cost_price),
  })!;
  const m = parseNumberInput(margin);
  const p = parseNumberInput(price);
  const target = m === null ? null : priceForMargin(u, m);
  const at = p === null ? null : marginAtPrice(u, p);
  return (
    <section className="panel" aria-labelledby="target-price-title" data-testid="target-price">
      <h2 id="target-price-title">Цена для целевой маржи</h2>
      <div className="inline-form">
        <label className="inline-label">
          Артикул
          <select value={item.article} onChange={(ev) => setArticle(ev.target.value)} aria-label="Артикул">
            {sold.map((i) => (
              <option key={i.article} value={i.article}>
                {displayArticle(i.article)}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-label">
          Маржа, %
          <input
            value={margin}
            onChange={(ev) => setMargin(ev.target.value)}
            inputMode="decimal"
            aria-label="Маржа, %"
          />
        </label>
        <label className="inline-label">
          Цена, ₽
          <input value={price} onChange={(ev) => setPrice(ev.target.value)} inputMode="decimal" aria-label="Цена, ₽" />
        </label>
      </div>
      <p className="muted small" data-testid="target-price-units">
        На единицу: комиссия WB {formatPercent(u.commission_rate)}, эквайринг {formatPercent(u.acquiring_rate)}, налоги{' '}
        {formatPercent(u.tax_rate)} цены; логистика {formatRub(u.logistics_per_unit)}, реклама{' '}
        {formatRub(u.ads_per_unit)}, себестоимость {formatRub(u.cost_per_unit)}.
      </p>
      <p data-testid="target-price-answer">
        {m === null
          ? 'Введите маржу числом.'
          : target === null
            ? `Маржу ${formatPercent(m)} не получить ни при какой цене: комиссия, эквайринг и налоги забирают ${formatPercent(u.commission_rate + u.acquiring_rate + u.tax_rate)} цены.`
            : `Для маржи ${formatPercent(m)} цена (реализация за штуку) — ${formatRub(target)}.`}
      </p>
      {at ? (
        <p data-testid="target-price-margin">
          При цене {formatRub(p)}: прибыль {formatRub(at.profit)} за штуку, маржа {formatPercent(at.margin)}.
        </p>
      ) : null}
    </section>
  );
}
