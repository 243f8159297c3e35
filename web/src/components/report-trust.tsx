// What a seller needs to trust a report's numbers: the articles sold without a cost price (a banner
// with a link to fill them in the catalog) and how the costs without an article were spread.
import { Link } from 'react-router-dom';
import type { AllocationMethod, Item, ReportAllocation, ReportCostAttribution, ReportWarning } from '../api/contract';
import { formatInt, formatPercent, formatRub, pluralForm } from '../lib/format';

/** The catalog filtered to the products without a cost price. */
export const MISSING_COST_LINK = '/products?missing=1';

export function MissingCostBanner({ warnings }: { warnings: ReportWarning[] | undefined }) {
  const w = warnings?.find((x) => x.code === 'missing_cost_price');
  if (!w) return null;
  const n = Number(w.details?.articles ?? 0);
  const share = w.details?.realization_share as number | null | undefined;
  return (
    <div className="alert alert-warning missing-cost-banner" role="status" data-testid="missing-cost-banner">
      <span>
        Не указана себестоимость у <strong data-testid="missing-cost-count">{formatInt(n)}</strong>{' '}
        {pluralForm(n, ['артикула', 'артикулов', 'артикулов'])} с продажами
        {share !== null && share !== undefined ? (
          <>
            {' '}
            (<span data-testid="missing-cost-share">{formatPercent(share)}</span> реализации)
          </>
        ) : null}
        : прибыль, маржа и ROI по ним завышены.
      </span>{' '}
      <Link className="btn btn-small btn-primary" to={MISSING_COST_LINK} data-testid="missing-cost-link">
        Заполнить себестоимость
      </Link>
    </div>
  );
}

export const ALLOCATION_TITLES: Record<AllocationMethod, string> = {
  realization: 'пропорционально реализации',
  quantity: 'пропорционально проданным штукам',
  none: 'не распределять',
};

const SPREAD_TITLES: Array<[keyof ReportAllocation['spread'], string]> = [
  ['storage', 'Хранение'],
  ['acceptance', 'Приёмка'],
  ['deductions', 'Удержания'],
  ['penalties', 'Штрафы'],
  ['ads', 'Реклама'],
];

export function AllocationPanel({ allocation }: { allocation: ReportAllocation | null | undefined }) {
  if (!allocation) return null;
  const spread = SPREAD_TITLES.filter(([k]) => allocation.spread[k] !== 0);
  return (
    <section className="panel allocation-panel" aria-labelledby="allocation-title" data-testid="allocation-panel">
      <h2 id="allocation-title">Расходы без артикула</h2>
      {allocation.method === 'none' ? (
        <p data-testid="allocation-method">
          Не распределяются: остаются в строке «Без артикула» (способ меняется в настройках).
        </p>
      ) : allocation.total === 0 ? (
        <p data-testid="allocation-method">
          Способ: {ALLOCATION_TITLES[allocation.method]}.{' '}
          {allocation.reason === 'no_base'
            ? 'Распределять не на что: нет артикулов с положительной базой.'
            : 'В отчёте нет расходов без артикула.'}
        </p>
      ) : (
        <>
          <p data-testid="allocation-method">
            Распределены по {formatInt(allocation.articles)}{' '}
            {pluralForm(allocation.articles, ['артикулу', 'артикулам', 'артикулам'])}{' '}
            {ALLOCATION_TITLES[allocation.method]}: доля каждого — в колонке «Распределённые расходы», она уже учтена в
            прибыли, марже и ROI. Итоги отчёта не меняются.
          </p>
          <table className="allocation-table">
            <tbody>
              {spread.map(([k, title]) => (
                <tr key={k} data-testid={`allocation-${k}`}>
                  <th scope="row">{title}</th>
                  <td className="num">{formatRub(allocation.spread[k])}</td>
                </tr>
              ))}
              <tr data-testid="allocation-total">
                <th scope="row">Всего распределено</th>
                <td className="num">
                  <strong>{formatRub(allocation.total)}</strong>
                </td>
              </tr>
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

const ATTRIBUTION_TITLES: Array<[keyof ReportCostAttribution, string, string]> = [
  ['ads', 'Реклама', 'из API «Продвижение» WB'],
  ['storage', 'Хранение', 'из отчёта о платном хранении WB'],
  ['acceptance', 'Приёмка', 'из отчёта о платной приёмке WB'],
];

/**
 * Which part of ads, storage and acceptance sits on the articles from WB's APIs and which stays without an
 * article (the report's own deductions the API does not explain). The report's totals are the same either way.
 */
export function CostAttributionPanel({
  attribution,
  items = [],
}: {
  attribution: ReportCostAttribution | null | undefined;
  items?: readonly Item[];
}) {
  if (!attribution) return null;
  const kinds = ATTRIBUTION_TITLES.filter(([k]) => attribution[k]);
  if (kinds.length === 0) return null;
  // The articles that carry the most ads, each with its own spend, ДРР and ROAS (up to 10).
  const advertised = attribution.ads
    ? items
        .filter((i) => i.article !== '' && Number(i.effective.ads ?? 0) !== 0)
        .sort((a, b) => Number(b.effective.ads ?? 0) - Number(a.effective.ads ?? 0))
        .slice(0, 10)
    : [];
  return (
    <section className="panel attribution-panel" aria-labelledby="attribution-title" data-testid="attribution-panel">
      <h2 id="attribution-title">Расходы по артикулам из API WB</h2>
      <p>
        Каждый артикул несёт свои расходы по данным WB; остаток суммы из отчёта остаётся без артикула и распределяется
        как прочие расходы без артикула. Каждый рубль учтён один раз: итоги отчёта и «К выплате» не меняются.
      </p>
      <table className="allocation-table">
        <thead>
          <tr>
            <th scope="col">Статья</th>
            <th scope="col" className="num">
              В отчёте WB
            </th>
            <th scope="col" className="num">
              На артикулах (API)
            </th>
            <th scope="col" className="num">
              Без артикула
            </th>
          </tr>
        </thead>
        <tbody>
          {kinds.map(([k, title, source]) => {
            const a = attribution[k]!;
            return (
              <tr key={k} data-testid={`attribution-${k}`}>
                <th scope="row">
                  {title} <span className="muted">({source})</span>
                </th>
                <td className="num">{formatRub(a.report_total)}</td>
                <td className="num" data-testid={`attribution-${k}-api`}>
                  {formatRub(a.from_api)}
                </td>
                <td className="num" data-testid={`attribution-${k}-rest`}>
                  {formatRub(a.without_article)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {attribution.ads ? (
        <p data-testid="attribution-ads-remainder">
          Реклама без артикула: <strong>{formatRub(attribution.ads.without_article)}</strong> — удержания
          «ВБ.Продвижение» из отчёта, которые кампании не объясняют; на артикулах —{' '}
          {formatRub(attribution.ads.from_api)} по данным API «Продвижение».
        </p>
      ) : null}
      {advertised.length > 0 ? (
        <table className="allocation-table" data-testid="attribution-articles">
          <caption>Реклама по артикулам</caption>
          <thead>
            <tr>
              <th scope="col">Артикул</th>
              <th scope="col" className="num">
                Реклама
              </th>
              <th scope="col" className="num">
                ДРР
              </th>
              <th scope="col" className="num">
                ROAS
              </th>
            </tr>
          </thead>
          <tbody>
            {advertised.map((i) => (
              <tr key={i.article} data-testid={`attribution-article-${i.article}`}>
                <th scope="row">{i.article}</th>
                <td className="num" data-testid="attribution-article-ads">
                  {formatRub(i.effective.ads)}
                </td>
                <td className="num">{i.effective.drr === null ? '—' : formatPercent(i.effective.drr)}</td>
                <td className="num">{i.effective.roas === null ? '—' : formatPercent(i.effective.roas)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {kinds.map(([k, title]) => {
        const a = attribution[k]!;
        if (a.unmatched === 0) return null;
        return (
          <p key={k} data-testid={`attribution-${k}-unmatched`}>
            {title}: {formatRub(a.unmatched)} по данным WB пришлось на {formatInt(a.unmatched_cards.length)}{' '}
            {pluralForm(a.unmatched_cards.length, ['карточку', 'карточки', 'карточек'])} без строк в этом отчёте (
            {a.unmatched_cards.map((c) => c.nm_id).join(', ')}) — у каждой такой карточки своя строка отчёта с этими
            расходами и убытком, на другие артикулы они не разнесены.
          </p>
        );
      })}
    </section>
  );
}
