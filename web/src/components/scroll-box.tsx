import { useEffect, useState, type ReactNode } from 'react';

/** True while `el` is wider inside than its box (it scrolls sideways); follows resizing. */
export function useSidewaysOverflow(el: HTMLElement | null): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    if (!el) return;
    const check = () => setOver(el.scrollWidth > el.clientWidth + 1);
    check();
    if (typeof ResizeObserver !== 'function') return;
    const ro = new ResizeObserver(check);
    ro.observe(el);
    for (const child of Array.from(el.children)) ro.observe(child);
    return () => ro.disconnect();
  }, [el]);
  return over;
}

/** «Таблица шире экрана: листайте вбок →» above a box that scrolls sideways, only while it does. */
export function ScrollHint({ el }: { el: HTMLElement | null }) {
  const over = useSidewaysOverflow(el);
  if (!over) return null;
  return (
    <p className="scroll-hint muted small" data-testid="scroll-hint">
      Таблица шире экрана: листайте её вбок →
    </p>
  );
}

/** A table's own sideways scroll, with the hint shown while the table is wider than the box. */
export function ScrollBox({ className, children }: { className: string; children: ReactNode }) {
  const [el, setEl] = useState<HTMLDivElement | null>(null);
  return (
    <div className="scroll-box">
      <ScrollHint el={el} />
      <div className={className} ref={setEl}>
        {children}
      </div>
    </div>
  );
}
