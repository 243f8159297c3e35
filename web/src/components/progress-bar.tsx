interface ProgressBarProps {
  /** 0..1; leave out for work of unknown length (an animated stripe). */
  value?: number;
  label: string;
  detail?: string;
  testId?: string;
}

export function ProgressBar({ value, label, detail, testId }: ProgressBarProps) {
  const known = typeof value === 'number' && Number.isFinite(value);
  const percent = known ? Math.max(0, Math.min(100, Math.round(value * 100))) : undefined;
  return (
    <div className="progress" data-testid={testId}>
      <div className="progress-label">
        <span>{label}</span>
        <span className="muted">{detail ?? (percent !== undefined ? `${percent} %` : '')}</span>
      </div>
      <div
        className={`progress-track${known ? '' : ' indeterminate'}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="progress-fill" style={known ? { width: `${percent}%` } : undefined} />
      </div>
    </div>
  );
}

export function Spinner({ label }: { label: string }) {
  return (
    <div className="spinner-line" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}
