import { Link } from 'react-router-dom';
import type { TaxThreshold } from '../api/contract';
import { formatDate, formatPercent, formatRub } from '../lib/format';

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
            Доход с начала года {formatRub(t.income)} — {formatPercent(t.share)} порога{' '}
            {formatRub(t.exemption_threshold)} (предупреждаем с {t.warning_share} %). Доход — вся выручка от покупателей
            по датам продаж, без вычета вознаграждения WB.
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
        </div>
      ))}
    </div>
  );
}
