import type { ReactNode } from 'react';

/**
 * On a phone, page controls (period, seller, export) folded under one line that says what is shown, so the
 * figure the seller came for is on the first screen; on a wider screen the controls as they are.
 */
export function PhoneCollapsible({
  narrow,
  summary,
  children,
}: {
  narrow: boolean;
  summary: string;
  children: ReactNode;
}) {
  if (!narrow) return <>{children}</>;
  return (
    <details className="phone-collapsible" data-testid="phone-controls">
      <summary>{summary}</summary>
      {children}
    </details>
  );
}
