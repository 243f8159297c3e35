// Reports imported from WB's Finance API: the «WB API» mark and the reconciliation of our totals against
// the sums of WB's report list («Итого к оплате» and its parts, docs/WB-API.md «Reconciliation»): a badge
// in the reports list and a panel on the report page with the lines that differ.
import type { Reconciliation, ReconciliationField, ReportSummary } from '../api/contract';
import { fieldTitle } from '../lib/fields';
import { formatRub } from '../lib/format';
import { ScrollBox } from './scroll-box';

/** WB's titles of the report list's sums (the weekly report's summary in the seller's portal). */
const WB_SUM_TITLES: Record<string, string> = {
  bankPaymentSum: 'Итого к оплате',
  forPaySum: 'К перечислению за товар',
  retailAmountSum: 'Продажа',
  deliveryServiceSum: 'Стоимость логистики',
  paidStorageSum: 'Стоимость хранения',
  paidAcceptanceSum: 'Стоимость платной приёмки',
  deductionSum: 'Прочие удержания',
  penaltySum: 'Общая сумма штрафов',
  additionalPaymentSum: 'Доплаты',
  cashbackAmountSum: 'Баллы за отзывы (кешбэк)',
  cashbackDiscountSum: 'Компенсация скидки по программе лояльности',
  cashbackCommissionChangeSum: 'Изменение комиссии по программе лояльности',
  paymentSchedule: 'Разовое изменение срока перечисления',
  '−cashbackAmountSum − cashbackCommissionChangeSum': 'Программа лояльности: баллы и изменение комиссии',
};

const wbTitle = (f: ReconciliationField) => WB_SUM_TITLES[f.wb_field] ?? f.wb_field;
const kopecks = (roubles: number) => Math.round(roubles * 100);

/** «WB API» beside a report imported through a connection. */
export function WbSourceBadge({ report }: { report: Pick<ReportSummary, 'source'> }) {
  if (report.source !== 'wb_api') return null;
  return (
    <span className="badge badge-wb" data-testid="wb-source-badge" title="Загружен из WB по API">
      WB API
    </span>
  );
}

/** «Сходится с WB» / «Расходится» in the reports list; nothing when WB gave no sums. */
export function ReconciliationBadge({ reconciliation }: { reconciliation?: Reconciliation }) {
  if (!reconciliation || reconciliation.status === 'unavailable') return null;
  const match = reconciliation.status === 'match';
  return (
    <span
      className={`badge ${match ? 'badge-match' : 'badge-mismatch'}`}
      data-testid="reconciliation-badge"
      title={
        match
          ? 'Итоги отчёта совпадают с суммами отчёта WB до копейки'
          : 'Итоги отчёта отличаются от сумм отчёта WB: подробности на странице отчёта'
      }
    >
      {match ? 'Сходится с WB' : 'Расходится'}
    </span>
  );
}

/** The report page's one line under its title: «Сходится с WB» or «Расходится с WB», a link to the details. */
export function ReconciliationStatus({ reconciliation }: { reconciliation?: Reconciliation }) {
  if (!reconciliation || reconciliation.status === 'unavailable') return null;
  const differing = reconciliation.fields.filter((f) => kopecks(f.diff) !== 0);
  return (
    <a
      href="#reconciliation-title"
      className={differing.length === 0 ? 'reconciliation-ok' : 'reconciliation-bad'}
      data-testid="report-reconciliation"
    >
      {differing.length === 0 ? '✓ Сходится с WB до копейки' : `Расходится с WB: ${differing.map(wbTitle).join(', ')}`}
    </a>
  );
}

/** The report page's «Сверка с WB»: all equal, or the lines that differ with WB's figure, ours and the difference. */
export function ReconciliationPanel({ reconciliation }: { reconciliation?: Reconciliation }) {
  if (!reconciliation) return null;
  const differing = reconciliation.fields.filter((f) => kopecks(f.diff) !== 0);
  return (
    <section className="panel wb-reconciliation" aria-labelledby="reconciliation-title" data-testid="reconciliation">
      <h2 id="reconciliation-title">Сверка с WB</h2>
      {reconciliation.status === 'unavailable' ? (
        <p className="muted" data-testid="reconciliation-summary">
          WB не прислал сумм этого отчёта: сверить итоги не с чем.
        </p>
      ) : reconciliation.status === 'match' ? (
        <p className="reconciliation-ok" data-testid="reconciliation-summary">
          ✓ Сходится с WB до копейки: {reconciliation.fields.map(wbTitle).join(', ') || 'итоги отчёта'}.
        </p>
      ) : (
        <>
          <p className="reconciliation-bad" data-testid="reconciliation-summary">
            {differing.length > 0
              ? `Расходится с WB: ${differing.map(wbTitle).join(', ')} — наши итоги отличаются от сумм отчёта WB.`
              : 'Расходится с WB по отдельным отчётам (ниже), хотя суммы за весь период совпадают.'}
          </p>
          {differing.length > 0 ? (
            <ScrollBox className="table-wrap">
              <table className="data-table reconciliation-mismatch" data-testid="reconciliation-table">
                <thead>
                  <tr>
                    <th>Показатель</th>
                    <th className="num">WB</th>
                    <th className="num">У нас</th>
                    <th className="num">Разница</th>
                  </tr>
                </thead>
                <tbody>
                  {differing.map((f) => (
                    <tr key={`${f.field}-${f.wb_field}`} data-testid={`reconciliation-${f.wb_field}`}>
                      <td data-label="Показатель">
                        <div>{wbTitle(f)}</div>
                        <div className="muted small">
                          у нас: {fieldTitle(f.field)} · поле WB: {f.wb_field}
                        </div>
                      </td>
                      <td className="num" data-label="WB">
                        {formatRub(f.wb)}
                      </td>
                      <td className="num" data-label="У нас">
                        {formatRub(f.ours)}
                      </td>
                      <td className="num negative" data-label="Разница">
                        {f.diff > 0 ? '+' : ''}
                        {formatRub(f.diff)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          ) : null}
        </>
      )}
      <PartsList reports={reconciliation.reports} />
    </section>
  );
}

/** A combined report of WB's reports: each WB report id with its own verdict and the figures that differ. */
function PartsList({ reports }: { reports: Reconciliation['reports'] }) {
  if (!reports || reports.length === 0) return null;
  return (
    <ul className="reconciliation-parts" data-testid="reconciliation-reports">
      {reports.map((r) => {
        const differing = r.fields.filter((f) => kopecks(f.diff) !== 0);
        return (
          <li key={r.report_id} data-testid={`reconciliation-report-${r.wb_report_id}`} data-status={r.status}>
            Отчёт WB № {r.wb_report_id}:{' '}
            {r.status === 'match' ? (
              <span className="reconciliation-ok">сходится до копейки</span>
            ) : r.status === 'unavailable' ? (
              <span className="muted">WB не прислал его сумм</span>
            ) : (
              <span className="reconciliation-bad">
                расходится —{' '}
                {differing
                  .map(
                    (f) =>
                      `${wbTitle(f)}: WB ${formatRub(f.wb)}, у нас ${formatRub(f.ours)} (${f.diff > 0 ? '+' : ''}${formatRub(f.diff)})`,
                  )
                  .join('; ')}
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
