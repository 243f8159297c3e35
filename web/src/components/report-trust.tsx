// What a seller needs to trust a report's numbers: the articles sold without a cost price (a banner
// with a link to fill them in the catalog) and how the costs without an article were spread.
import { Link } from 'react-router-dom';
import type { AllocationMethod, ReportAllocation, ReportWarning } from '../api/contract';
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
