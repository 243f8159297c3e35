import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import type { TaxPeriod, TaxThreshold } from '../api/contract';
import { ErrorMessage } from './error-message';
import { formatBySize, formatDate, formatPercent } from '../lib/format';

/**
 * Adds the proposed dated tax periods where the seller's profile lives: the seller's own periods (a
 * seller without its own starts from the user's default, so earlier dates keep what applied to them),
 * else the user's default.
 */
async function addProposedPeriods(t: TaxThreshold): Promise<void> {
  const add = (base: TaxPeriod[]): TaxPeriod[] => [
    ...base.filter((p) => !t.proposals.some((x) => x.valid_from === p.valid_from)),
    ...t.proposals,
  ];
  if (t.seller_id) {
    const seller = (await api.listSellers()).items.find((x) => x.id === t.seller_id);
    const base = seller?.tax_periods ?? (await api.me()).user.tax_periods;
    await api.patchSeller(t.seller_id, { tax_periods: add(base) });
  } else {
    await api.updateMe({ tax_periods: add((await api.me()).user.tax_periods) });
  }
}

function AddPeriods({ t }: { t: TaxThreshold }) {
  const client = useQueryClient();
  const m = useMutation({
    mutationFn: () => addProposedPeriods(t),
    onSuccess: () => {
      for (const key of ['me', 'sellers', 'pnl', 'tax-thresholds', 'reports'])
        void client.invalidateQueries({ queryKey: [key] });
    },
  });
  if (m.isSuccess)
    return (
      <p role="status" data-testid="threshold-added">
        Период добавлен. Пересоберите отчёты с {formatDate(t.proposals[0]!.valid_from)}: на странице «Отчёты» они
        помечены как устаревшие.
      </p>
    );
  return (
    <>
      <button type="button" className="btn btn-small" onClick={() => m.mutate()} disabled={m.isPending}>
        Добавить период
      </button>
      <ErrorMessage error={m.error} />
    </>
  );
}

/**
 * The VAT threshold of each USN seller (docs/METRICS.md, «Tax thresholds»): a quiet line below the
 * warning share, a warning from it, an alert once crossed with the day VAT applies from and the tax
 * period to add in the settings. Shown on the P&L and the analytics page.
 */
export function TaxThresholdBanner({
  thresholds,
  quietBelow = false,
}: {
  thresholds: TaxThreshold[];
  quietBelow?: boolean;
}) {
  const shown = quietBelow ? thresholds.filter((t) => t.level !== 'below') : thresholds;
  if (shown.length === 0) return null;
  return (
    <div data-testid="tax-thresholds">
      {shown.map((t) => (
        <div
          key={`${t.seller_id ?? ''}-${t.year}`}
          className={
            t.level === 'crossed'
              ? 'alert alert-error'
              : t.level === 'approaching'
                ? 'alert alert-warning'
                : 'alert alert-info'
          }
          role={t.level === 'below' ? 'status' : 'alert'}
          data-level={t.level}
          data-testid="tax-threshold"
        >
          <p>
            <strong>
              НДС на УСН, {t.year}
              {thresholds.length > 1 || t.seller_id ? ` · ${t.seller_name}` : ''}:
            </strong>{' '}
            {t.message}
          </p>
          <p className="muted small">
            Доход с начала года {formatBySize(t.income)} — {formatPercent(t.share)} порога{' '}
            {formatBySize(t.exemption_threshold)} (предупреждаем с {t.warning_share} %). Доход — вся выручка от
            покупателей по датам продаж, без вычета вознаграждения WB.
          </p>
          {t.proposals.length > 0 ? (
            <p data-testid="threshold-proposal">
              Добавьте налоговый период{' '}
              {t.proposals
                .map((p) => `с ${formatDate(p.valid_from)}: УСН ${p.usn_rate} %, НДС ${p.vat_rate} %`)
                .join('; ')}{' '}
              — в <Link to="/settings">настройках</Link>
              {t.seller_id ? ' продавца' : ''}, затем пересоберите отчёты этих недель.
            </p>
          ) : null}
          {t.proposals.length > 0 ? <AddPeriods t={t} /> : null}
        </div>
      ))}
    </div>
  );
}
