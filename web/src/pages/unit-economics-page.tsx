import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { api } from '../api/client';
import type { ArticleUnitEconomics, WhatIf } from '../api/contract';
import { ApiError } from '../api/errors';
import { ErrorMessage } from '../components/error-message';
import { Spinner } from '../components/progress-bar';
import { ScrollBox } from '../components/scroll-box';
import { displayArticle } from '../lib/fields';
import { formatInt, formatPercent, formatPeriod, formatRub, parseNumberInput } from '../lib/format';
import { useTitle } from '../lib/use-title';

/** The weeks a seller picks from (the API takes any 1–52). */
const WEEK_CHOICES = [1, 2, 4, 8, 12, 26, 52] as const;
const DEFAULT_WEEKS = 4;

type PerUnit = NonNullable<ArticleUnitEconomics['per_unit']>;

/** The per-unit lines in the order money leaves the price, each with the rate it shows beside it. */
const LINES: Array<{ key: keyof PerUnit; title: string; rate?: (u: ArticleUnitEconomics) => number | null }> = [
  { key: 'commission', title: 'Комиссия WB', rate: (u) => u.commission_rate },
  { key: 'acquiring', title: 'Эквайринг', rate: (u) => u.acquiring_rate },
  { key: 'logistics', title: 'Логистика' },
  { key: 'reverse_logistics', title: 'Обратная логистика (возвраты)' },
  { key: 'storage', title: 'Хранение' },
  { key: 'acceptance', title: 'Приёмка' },
  { key: 'penalties', title: 'Штрафы и удержания' },
  { key: 'ads', title: 'Реклама', rate: (u) => u.drr },
  { key: 'vat', title: 'НДС' },
  { key: 'usn', title: 'УСН' },
  { key: 'cost_price', title: 'Себестоимость' },
  { key: 'own_costs', title: 'Свои расходы' },
  { key: 'other', title: 'Прочее (услуги поверенного, доля расходов без артикула, компенсации)' },
];

function weeksOf(params: URLSearchParams): number {
  const n = Number(params.get('weeks'));
  return Number.isInteger(n) && n >= 1 && n <= 52 ? n : DEFAULT_WEEKS;
}

/** «—» with the reason when the article has no cost price: the catalog link to enter it. */
function NoCostPrice({ article }: { article: string }) {
  return (
    <section className="panel" data-testid="ue-no-cost-price">
      <div className="figures">
        <div className="figure figure-profit">
          <div className="figure-title">Прибыль на единицу</div>
          <div className="figure-value" data-testid="ue-profit">
            —
          </div>
          <div className="figure-hint">Нет себестоимости: прибыль и маржа не считаются</div>
        </div>
      </div>
      <p>
        У артикула «{displayArticle(article)}» нет себестоимости в отчётах этих недель.{' '}
        <Link to={`/products?search=${encodeURIComponent(article)}`} data-testid="ue-catalog-link">
          Укажите её в каталоге
        </Link>{' '}
        и пересчитайте отчёты — юнит-экономика посчитается.
      </p>
    </section>
  );
}

function Breakdown({ ue }: { ue: ArticleUnitEconomics }) {
  const p = ue.per_unit;
  return (
    <section className="panel" aria-labelledby="ue-lines-title">
      <h2 id="ue-lines-title">На единицу товара</h2>
      {p === null ? (
        <p className="muted">За эти недели нет чистых продаж: делить не на что.</p>
      ) : (
        <ScrollBox className="table-wrap">
          <table className="data-table ue-table" data-testid="ue-table">
            <thead>
              <tr>
                <th scope="col">Статья</th>
                <th scope="col" className="num">
                  ₽ за шт
                </th>
                <th scope="col" className="num">
                  % цены
                </th>
              </tr>
            </thead>
            <tbody>
              <tr data-line="price">
                <th scope="row">Цена после скидки WB (реализация)</th>
                <td className="num">{formatRub(ue.price)}</td>
                <td className="num">100 %</td>
              </tr>
              {LINES.map(({ key, title, rate }) => (
                <tr key={key} data-line={key}>
                  <th scope="row">− {title}</th>
                  <td className="num">{formatRub(p[key])}</td>
                  <td className="num">
                    {rate
                      ? formatPercent(rate(ue))
                      : ue.price
                        ? formatPercent(Math.round((p[key] / ue.price) * 10000) / 100)
                        : '—'}
                  </td>
                </tr>
              ))}
              <tr data-line="profit" className="totals">
                <th scope="row">= Прибыль</th>
                <td className={`num${p.profit < 0 ? ' negative' : ''}`}>{formatRub(p.profit)}</td>
                <td className="num">{formatPercent(ue.margin)}</td>
              </tr>
            </tbody>
          </table>
        </ScrollBox>
      )}
      <p className="muted small" data-testid="ue-price-note">
        {ue.price_before_discount !== null
          ? `Цена продавца до скидки WB — ${formatRub(ue.price_before_discount)} (скидка WB ${formatPercent(ue.discount_rate)}). `
          : ''}
        Продано {formatInt(ue.sales_qty)} шт, возвратов {formatInt(ue.returns_qty)}
        {ue.return_rate !== null ? ` (${formatPercent(ue.return_rate)})` : ''}; налоги — {formatPercent(ue.tax_rate)}{' '}
        реализации.
      </p>
    </section>
  );
}

function whatIfAnswer(r: WhatIf, asked: 'price' | 'margin'): string {
  if (r.reason === 'no_units') return 'За эти недели нет чистых продаж: посчитать нельзя.';
  if (r.reason === 'unreachable')
    return 'Такую маржу не получить ни при какой цене: комиссия WB, эквайринг и налоги забирают слишком большую долю цены.';
  if (asked === 'price')
    return `При цене ${formatRub(r.price_before_discount)} (после скидки WB ${formatRub(r.price)}) прибыль ${formatRub(r.profit)} за шт, маржа ${formatPercent(r.margin)}.`;
  return `Цена до скидки WB — ${formatRub(r.price_before_discount)} (после скидки ${formatRub(r.price)}): прибыль ${formatRub(r.profit)} за шт, маржа ${formatPercent(r.margin)}.`;
}

function WhatIfPanel({ article, weeks }: { article: string; weeks: number }) {
  const [price, setPrice] = useState('');
  const [margin, setMargin] = useState('20');
  const byPrice = useMutation({ mutationFn: (value: number) => api.whatIf(article, { price: value, weeks }) });
  const byMargin = useMutation({ mutationFn: (value: number) => api.whatIf(article, { margin: value, weeks }) });
  const submit = (e: FormEvent, which: 'price' | 'margin') => {
    e.preventDefault();
    const value = parseNumberInput(which === 'price' ? price : margin);
    if (value === null) return;
    (which === 'price' ? byPrice : byMargin).mutate(value);
  };
  return (
    <section className="panel" aria-labelledby="ue-what-if-title" data-testid="ue-what-if">
      <h2 id="ue-what-if-title">Что если</h2>
      <form className="inline-form" onSubmit={(e) => submit(e, 'margin')}>
        <label className="inline-label">
          Целевая маржа, %
          <input
            value={margin}
            onChange={(ev) => setMargin(ev.target.value)}
            inputMode="decimal"
            aria-label="Целевая маржа, %"
          />
        </label>
        <button type="submit" className="btn" disabled={byMargin.isPending}>
          Найти цену
        </button>
      </form>
      {byMargin.data ? <p data-testid="ue-price-for-margin">{whatIfAnswer(byMargin.data, 'margin')}</p> : null}
      <ErrorMessage error={byMargin.error} />
      <form className="inline-form" onSubmit={(e) => submit(e, 'price')}>
        <label className="inline-label">
          Цена до скидки WB, ₽
          <input
            value={price}
            onChange={(ev) => setPrice(ev.target.value)}
            inputMode="decimal"
            aria-label="Цена до скидки WB, ₽"
          />
        </label>
        <button type="submit" className="btn" disabled={byPrice.isPending}>
          Посчитать маржу
        </button>
      </form>
      {byPrice.data ? <p data-testid="ue-margin-at-price">{whatIfAnswer(byPrice.data, 'price')}</p> : null}
      <ErrorMessage error={byPrice.error} />
      <p className="muted small">
        Комиссия, эквайринг и налоги меняются вместе с ценой; логистика, хранение, реклама и себестоимость на единицу —
        нет. Скидка WB берётся такой, какой была в эти недели.
      </p>
    </section>
  );
}

/**
 * «Юнит-экономика» of one article (docs/METRICS.md «Unit economics over weeks»): the figure first (profit and
 * margin per unit), the per-unit lines over its last weeks, the weeks used, and the what-if on its price.
 */
export function UnitEconomicsPage() {
  const { article: raw = '' } = useParams();
  const article = raw;
  const [params, setParams] = useSearchParams();
  const weeks = weeksOf(params);
  const sellerId = params.get('seller_id');
  useTitle(`Юнит-экономика: ${displayArticle(article)}`);
  const query = useQuery({
    queryKey: ['unit-economics', article, weeks, sellerId],
    queryFn: () => api.unitEconomics(article, weeks, sellerId),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const setWeeks = (n: number) => {
    const next = new URLSearchParams(params);
    if (n === DEFAULT_WEEKS) next.delete('weeks');
    else next.set('weeks', String(n));
    setParams(next, { replace: true });
  };
  const noCost = query.error instanceof ApiError && query.error.code === 'cost_price_missing';
  const ue = query.data;
  return (
    <div className="unit-economics-page">
      <div className="page-head">
        <h1>
          Юнит-экономика <span className="article-name">{displayArticle(article)}</span>
        </h1>
        <label className="inline-label">
          Недели
          <select
            value={weeks}
            onChange={(ev) => setWeeks(Number(ev.target.value))}
            aria-label="Сколько последних недель"
            data-testid="ue-weeks"
          >
            {[...new Set([...WEEK_CHOICES, weeks])]
              .sort((a, b) => a - b)
              .map((n) => (
                <option key={n} value={n}>
                  {n === 1 ? 'последняя неделя' : `последние ${n} нед.`}
                </option>
              ))}
          </select>
        </label>
      </div>
      {query.isPending ? <Spinner label="Считаем юнит-экономику…" /> : null}
      {noCost ? <NoCostPrice article={article} /> : query.error ? <ErrorMessage error={query.error} /> : null}
      {ue ? (
        <>
          <section className="figures" aria-label="Итог на единицу">
            <div className="figure figure-profit">
              <div className="figure-title">Прибыль на единицу</div>
              <div
                className={`figure-value${ue.per_unit && ue.per_unit.profit < 0 ? ' negative' : ''}`}
                data-testid="ue-profit"
              >
                {ue.per_unit ? formatRub(ue.per_unit.profit) : '—'}
              </div>
              <div className="figure-hint">После комиссии WB, логистики, рекламы, налогов и себестоимости</div>
            </div>
            <div className="figure">
              <div className="figure-title">Маржа</div>
              <div className="figure-value" data-testid="ue-margin">
                {formatPercent(ue.margin)}
              </div>
              <div className="figure-hint">Прибыль / цена после скидки WB</div>
            </div>
            <div className="figure">
              <div className="figure-title">Цена после скидки WB</div>
              <div className="figure-value" data-testid="ue-price">
                {formatRub(ue.price)}
              </div>
              <div className="figure-hint">Продано чистыми {formatInt(ue.units)} шт</div>
            </div>
          </section>
          <Breakdown ue={ue} />
          <WhatIfPanel article={article} weeks={weeks} />
          <section className="panel" aria-labelledby="ue-weeks-title">
            <h2 id="ue-weeks-title">Недели расчёта</h2>
            <ul className="plain-list" data-testid="ue-weeks-used">
              {ue.weeks.map((w) => (
                <li key={w.report_id}>
                  <Link to={`/reports/${encodeURIComponent(w.report_id)}`}>
                    {formatPeriod(w.period_from, w.period_to)}
                  </Link>{' '}
                  <span className="muted small">{w.title}</span>
                </li>
              ))}
            </ul>
            {ue.weeks.length < ue.weeks_asked ? (
              <p className="muted small">
                Недель с этим артикулом меньше, чем выбрано: {ue.weeks.length} из {ue.weeks_asked}.
              </p>
            ) : null}
          </section>
        </>
      ) : null}
    </div>
  );
}
