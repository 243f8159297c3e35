import type { ReactNode } from 'react';

export function AuthCard({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle?: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <div className="auth-card">
      <div className="auth-brand">
        <span className="brand-mark" aria-hidden="true" />
        Прибыльность WB
      </div>
      <h1>{title}</h1>
      {subtitle ? <p className="muted">{subtitle}</p> : null}
      {children}
      {footer ? <div className="auth-footer">{footer}</div> : null}
    </div>
  );
}

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
